"""The doctor's checks of one store against another (``core.app.doctor``):

* registry ↔ vectors: vectors of chunks no document owns (a delete that lost the registry
  row, a registry restored from an older copy) are deleted by ``--repair`` (no text is held
  for them, nothing can cite them);
* registry ↔ keyword index: chunk texts (what BM25 indexes, and what search shows and
  citations open) the registry lost, e.g. its ``chunks`` table dropped, are read again from
  the kept original with the chunking that made them; they are written back only when the
  parse gives exactly the chunks indexed (same ids, same count), so nothing is renumbered;
* registry ↔ facts: facts a filing lost (the ``facts`` table dropped or cut), never had
  extracted, or had read by another version of the facts reader (``reader_version``: an
  older release, a changed metric catalogue) are read again from its kept original;
* run records ↔ checkpoints: a run saved as paused at plan review whose checkpoint is gone
  (the checkpoints file moved aside as corrupt) cannot be resumed: ``--repair`` marks the
  record failed with the reason (it is kept, with its plan and events).

Each finding is a ``core.app.doctor.Finding``; repairs read the originals, never the network.
"""

from __future__ import annotations

from core.app.doctor_findings import Finding
from core.foundation.config import Settings


def _finding(*args, **kw) -> Finding:
    return Finding(*args, **kw)


def _names(store) -> dict[str, str]:
    return {d.doc_id: d.file_name for d in store.documents()}


def names(store) -> list:
    """Filings whose printed company name disagrees with EDGAR's or their filer's others."""
    return [_finding("company", d.name_conflict) for d in store.documents() if d.name_conflict]


def orphan_vectors(store) -> list:
    """Vectors whose chunk's document the registry does not know (any status)."""
    ids = store.vectors.all_ids()
    owners = {cid.rsplit("-", 1)[0] for cid in ids}
    gone = {d for d in owners if store.registry.status(d) is None}
    orphans = [cid for cid in ids if cid.rsplit("-", 1)[0] in gone]
    if not orphans:
        return []

    def fix() -> str:
        store.vectors.delete_ids(orphans)
        return f"{len(orphans)} vector(s) deleted"

    return [_finding("vectors", f"{len(orphans)} vector(s) of {len(gone)} document(s) the "
                     "registry does not hold: no text or filing goes with them",
                     "delete them", _fix=fix)]


def reparse_chunks(settings: Settings, doc) -> list:
    """The chunks of ``doc`` as its kept original parses now, statement tags included;
    AppError when there is no original or it does not give back the chunks indexed."""
    from core.foundation.errors import AppError
    from core.ingest.pipeline import prepare
    from core.store.files import original_path
    from core.store.index_text import tag_statements

    path = original_path(settings, doc)
    if path is None:
        raise AppError(f"{doc.file_name} has no kept original to read its chunks from; "
                       "ingest the file again")
    chunks = prepare(path.read_bytes(), doc.file_name, settings).chunks
    wanted = [f"{doc.doc_id}-{i:05d}" for i in range(doc.n_chunks)]
    if [c.chunk_id for c in chunks] != wanted:
        raise AppError(f"{doc.file_name} now parses into {len(chunks)} chunks, not the "
                       f"{doc.n_chunks} indexed (were DTR_CHUNK_SIZE or DTR_CHUNK_OVERLAP "
                       "changed?); set them back, or delete the filing and ingest it again")
    return [c.model_copy(update={"statement": tag})
            for c, tag in zip(chunks, tag_statements(chunks), strict=True)]


def lost_chunks(settings: Settings, store, doc, held: int):
    """A finding for a document whose registry holds ``held`` of its chunks."""
    from core.store.files import original_path

    what = (f"{doc.file_name} ({doc.doc_id}) has {held} of its {doc.n_chunks} chunks in the "
            "registry: the others cannot be searched (keyword or vector)")
    if original_path(settings, doc) is None:
        return _finding("keyword index", f"{what}; ingest the filing again")

    def fix() -> str:
        chunks = reparse_chunks(settings, doc)
        store.registry.restore_chunks(doc.doc_id, chunks)
        store.keyword.invalidate(doc.doc_id)
        store._sections = None
        return f"{doc.n_chunks - held} chunk(s) read again from the kept original"

    return _finding("keyword index", what, "read them again from the kept original (the "
                    "same chunks, the same ids)", _fix=fix)


def facts(settings: Settings, store) -> list:
    """Filings whose facts are fewer than extracted, were never extracted, or were read by
    another version of the facts reader (an older release, or a changed metric catalogue)."""
    from core.ingest.facts import reader_version
    from core.store import facts_table
    from core.store.files import original_path

    status = store.facts_status()
    readers, current = store.registry.facts_readers(), reader_version()
    out = []
    for doc in store.documents():
        held = len(store.registry.facts([doc.doc_id]))
        if doc.doc_id in status and held >= status[doc.doc_id]:
            if readers.get(doc.doc_id, current) == current:
                continue
            what = (f"{doc.file_name} ({doc.doc_id}): its facts were read by "
                    + (f"another version of the facts reader ({readers[doc.doc_id]}, this one "
                       f"is {current})" if readers[doc.doc_id] else "an older release")
                    + "; figure answers can miss or mis-state figures this version reads")
        elif doc.doc_id in status:
            damaged = facts_table.skipped([doc.doc_id]).get(doc.doc_id, 0)
            what = (f"{doc.file_name} ({doc.doc_id}) has {held} of its {status[doc.doc_id]} "
                    "facts (figure questions cannot find the others)" + (
                        f"; {damaged} of its facts rows cannot be read (damaged)"
                        if damaged else ""))
        else:
            what = (f"{doc.file_name} ({doc.doc_id}) has no facts extracted: figure questions "
                    "cannot find its figures")
        if original_path(settings, doc) is None:
            out.append(_finding("facts", f"{what}; ingest the file again"))
            continue
        out.append(_finding("facts", what, "read them again from the kept original",
                            _fix=lambda d=doc: f"{reextract_facts(settings, store, d)} facts "
                            "read again from the kept original"))
    return out


def stale_facts(store) -> list[str]:
    """File names of the filings whose facts another version of the facts reader read
    (``reader_version``), in corpus order: ``--repair`` reads them again."""
    from core.ingest.facts import reader_version

    current, readers = reader_version(), store.registry.facts_readers()
    return [d.file_name for d in store.documents() if readers.get(d.doc_id, current) != current]


def reextract_facts(settings: Settings, store, doc) -> int:
    """Extract ``doc``'s facts again from its kept original and store them; the count."""
    from core.ingest.facts import extract_facts
    from core.ingest.pipeline import reparse
    from core.store.facts_table import with_statements
    from core.store.files import original_path

    data = original_path(settings, doc).read_bytes()
    chunks = store.registry.chunks(doc.doc_id)
    parsed = reparse(data, doc.file_name, chunks, settings.pdf_text)
    found = with_statements(extract_facts(doc, parsed, chunks, data), chunks)
    store.registry.write_facts(doc.doc_id, found)
    return len(found)


def lost_checkpoints(settings: Settings) -> list:
    """Run records paused at plan review whose checkpoint is gone."""
    from core.app.runs import list_runs, save_run

    paused = list_runs(settings, status="paused")
    if not paused:
        return []
    gone = paused_without_checkpoint(settings, [r.id for r in paused])
    out = []
    for record in (r for r in paused if r.id in gone):
        def fix(record=record) -> str:
            reason = ("its checkpoint was lost (the checkpoints file was moved aside or "
                      "deleted), so the plan cannot be resumed; ask the question again")
            save_run(record.model_copy(update={"status": "failed", "error": reason}), settings)
            return "marked failed with the reason; the record is kept"

        out.append(_finding("run record", f"{record.id} is paused at plan review but its "
                            "checkpoint is gone: it cannot be resumed",
                            "mark it failed, with the reason", _fix=fix))
    return out


def paused_without_checkpoint(settings: Settings, run_ids: list[str]) -> set[str]:
    """The ids among ``run_ids`` with no checkpoint (none when checkpoints cannot be read)."""
    from core.app.checkpointing import open_checkpointer
    from core.store.checkpoints import close_checkpointer

    try:
        saver = open_checkpointer(settings)
    except Exception:  # noqa: BLE001 - an unreadable file is the files check's finding
        return set()
    try:
        return {i for i in run_ids
                if saver.get_tuple({"configurable": {"thread_id": i}}) is None}
    except Exception:  # noqa: BLE001 - ditto
        return set()
    finally:
        close_checkpointer(saver)
