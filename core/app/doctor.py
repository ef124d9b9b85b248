"""A corpus that checks itself: ``python -m core doctor [--repair]`` (and the Library's
"Check the corpus" panel).

It compares the pieces of a data folder: the registry (documents, chunk texts, facts), the
vectors, the kept originals, the run records and the SQLite files beside them (checkpoints,
cache). Each problem is a :class:`Finding` saying what is wrong, what it costs and what
``--repair`` does about it. Repairs never lose data that can be read:

* vectors lost or cut short (``chroma/`` deleted): the chunk texts in the registry are
  embedded again (no filing is parsed again);
* the keyword index (BM25, held in memory, built from the registry's chunk texts) out of step
  with the registry (another process corrected a filing's metadata): built again from the
  registry; chunk texts the registry has lost (its ``chunks`` table dropped) read again from
  the kept original when it parses into the very chunks indexed; chunks that cannot be read
  are reported (ingest that filing again);
* vectors lost, cut short or unreadable (a segment folder under ``chroma/`` deleted: Chroma
  still lists the ids), or vectors no document owns: see ``core.app.doctor_stores``;
* facts lost (the ``facts`` table dropped) or never extracted: read again from the original;
* a paused run whose checkpoint is gone: its record is marked failed, with the reason;
* an original no document owns (an ingest killed before its document was stored): deleted;
* an unreadable run record: moved to ``runs/quarantine/`` (kept, no longer listed as a run);
* an unreadable checkpoints or cache file: moved aside as ``<name>.corrupt`` (a cache is
  rebuilt; paused plans in a corrupt checkpoint file cannot be resumed, their records stay).

An unreadable registry is reported, never touched: it is the corpus itself.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from core.app import doctor_stores as stores
from core.app.doctor_findings import Finding, Report
from core.foundation.config import Settings

__all__ = ["Finding", "Report", "examine", "repair", "repair_until_sound"]


def _sqlite_problem(path: Path) -> str | None:
    """Why the SQLite file at ``path`` cannot be read, or None (missing counts as fine)."""
    if not path.exists():
        return None
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            row = conn.execute("PRAGMA quick_check").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        return str(exc)
    return None if row and row[0] == "ok" else str(row[0] if row else "no answer")


def _move_aside(path: Path) -> str:
    target = path.with_name(path.name + ".corrupt")
    path.replace(target)
    for extra in ("-wal", "-shm"):
        side = path.with_name(path.name + extra)
        if side.exists():
            side.replace(target.with_name(target.name + extra))
    return f"moved to {target.name}"


def _files(settings: Settings) -> list[Finding]:
    out = []
    checks = [("checkpoints", settings.data_dir / "checkpoints.sqlite",
               "paused plans in it cannot be resumed (their run records are kept)"),
              ("cache", settings.cache_path, "a cache: it is rebuilt as runs go")]
    for what, path, cost in checks:
        why = _sqlite_problem(path)
        if why:
            out.append(Finding(what, f"{path.name} cannot be read ({why}); {cost}",
                               f"move it aside as {path.name}.corrupt",
                               _fix=lambda p=path: _move_aside(p)))
    return out


def _runs(settings: Settings) -> list[Finding]:
    from core.app.runs import unreadable_runs

    out = []
    for run_id in unreadable_runs(settings):
        path = settings.runs_dir / f"{run_id}.json"

        def fix(path=path) -> str:
            folder = path.parent / "quarantine"
            folder.mkdir(exist_ok=True)
            path.replace(folder / path.name)
            return f"moved to runs/quarantine/{path.name}"

        out.append(Finding("run record", f"{run_id} cannot be read (truncated or not a run "
                           "record); it is not listed among the runs",
                           "move it to runs/quarantine/",
                           _fix=fix if path.exists() else None))
    return out


def _delete(path: Path) -> str:
    path.unlink(missing_ok=True)
    return "deleted"


def _originals(settings: Settings, store) -> list[Finding]:
    from core.store.files import original_path, orphaned_originals

    docs = store.documents()
    out = []
    for doc_id, path in orphaned_originals(settings, {d.doc_id for d in docs}):
        if store.registry.status(doc_id) is not None:  # being written by an ingest
            continue
        out.append(Finding("original", f"{path.name} belongs to no document (an ingest "
                           "stopped before storing it)", "delete the file",
                           _fix=lambda p=path: _delete(p)))
    for doc in docs:
        if original_path(settings, doc) is None:
            out.append(Finding("original", f"{doc.file_name} ({doc.doc_id}) has no kept "
                               "original: citations cannot show its page; ingesting the "
                               "file again restores it"))
    return out


def _vectors(store) -> list[Finding]:
    gaps = store.vector_gaps()
    if not gaps:
        return []
    names = {d.doc_id: d.file_name for d in store.documents()}
    n = sum(gaps.values())

    def fix() -> str:  # gaps again: chunks the registry got back meanwhile count too
        now = store.vector_gaps() or gaps
        done = sum(store.restore_vectors(doc_id) for doc_id in now)
        return f"{done} chunks of {len(now)} filing(s) embedded again from the registry"

    some = ", ".join(names.get(d, d) for d in list(gaps)[:3]) + (" ..." if len(gaps) > 3 else "")
    return [Finding("vectors", f"{n} chunk(s) of {len(gaps)} filing(s) have no vector ({some}): "
                    "vector and hybrid search cannot find them",
                    "embed the stored chunk texts again (no filing is parsed)", _fix=fix)]


def _checked_vectors(store) -> list[Finding]:
    """``_vectors``, or one line when the registry's chunks cannot be read to compare (the
    keyword index check names the filing)."""
    from core.store.failures import first_line

    try:
        return _vectors(store)
    except Exception as exc:  # noqa: BLE001 - a chunk row that does not read
        return [Finding("vectors", f"cannot be compared with the registry: a chunk does not "
                        f"read ({first_line(exc)}); see the keyword index line")]


def _keyword(settings: Settings, store) -> list[Finding]:
    from core.store.failures import first_line

    names = {d.doc_id: d.file_name for d in store.documents()}
    out, unreadable = [], set()
    for doc in store.documents():
        try:
            held = len(store.registry.chunks(doc.doc_id))
        except Exception as exc:  # noqa: BLE001 - any row that does not read is reported
            unreadable.add(doc.doc_id)
            out.append(Finding("keyword index", f"the chunks of {doc.file_name} ({doc.doc_id}) "
                               f"cannot be read from the registry ({first_line(exc)}): keyword "
                               "and hybrid search fail; delete the filing and ingest it again"))
            continue
        if doc.n_chunks > held:
            out.append(stores.lost_chunks(settings, store, doc, held))
    if unreadable:
        return out
    drift = store.keyword.out_of_step()
    if drift:
        some = ", ".join(names.get(d, d) for d in list(drift)[:3]) + (
            " ..." if len(drift) > 3 else "")
        out.append(Finding("keyword index", f"{sum(drift.values())} chunk(s) of {len(drift)} "
                           f"filing(s) are indexed as they were, not as the registry reads now "
                           f"({some}): keyword search ranks them on old text",
                           "build it again from the registry's chunk texts",
                           _fix=lambda: f"{store.keyword.rebuild()} chunks indexed again"))
    return out


def examine(settings: Settings, open_store: Callable[[], object]) -> Report:
    """Every finding of the data folder; ``open_store()`` opens its CorpusStore (called only
    when the registry can be read)."""
    findings = _files(settings)
    checked = ["checkpoints", "cache"]
    why = None if settings.team_mode else _sqlite_problem(settings.registry_path)
    if why:
        findings.append(Finding("registry", f"{settings.registry_path.name} cannot be read "
                                f"({why}): the documents and chunk texts are in it; restore it "
                                "from a backup or move it aside and ingest the filings again"))
    else:
        store = open_store()
        # keyword index (chunk texts) first: --repair restores them before re-embedding
        findings += _keyword(settings, store) + _checked_vectors(store)
        findings += stores.orphan_vectors(store) + stores.facts(settings, store)
        findings += _originals(settings, store) + stores.names(store)
        checked += ["registry", "keyword index", "vectors", "facts", "originals"]
    findings += _runs(settings) + stores.lost_checkpoints(settings)
    checked.append("run records")
    return Report(findings, checked)


def repair(report: Report) -> Report:
    """Carry out every repair the report offers (each one at most once)."""
    for finding in report.findings:
        if finding._fix is not None and not finding.repaired:
            finding.repair = finding._fix()
            finding.repaired = True
    return report


def repair_until_sound(settings: Settings, open_store, passes: int = 3) -> Report:
    """Examine and repair, then examine again, until nothing more can be repaired (at most
    ``passes`` times): a repair can uncover what it hid (chunk texts restored from the
    originals show the vectors a deleted segment lost), and one ``--repair`` mends both. The
    report holds every pass's findings; what is still wrong and cannot be repaired stays."""
    report = repair(examine(settings, open_store))
    findings = list(report.findings)
    for _ in range(passes - 1):
        again = examine(settings, open_store)
        if not any(f._fix is not None for f in again.findings):
            seen = {f.line() for f in findings}
            findings += [f for f in again.findings if f.line() not in seen]
            break
        findings += repair(again).findings
    return Report(findings, report.checked)
