"""The corpus service: ingest files and URLs into the store, list, delete, search.

This is the one object pages and the CLI talk to for the library. It ties
``core.ingest`` (parse, sections, chunks) to ``core.store`` (registry, Chroma,
BM25) and ``core.retrieval`` (the search funnel).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from core.foundation.config import Settings
from core.foundation.errors import IngestError
from core.foundation.types import DocumentMeta, SearchResult

STAGE_LABELS = {
    "parse": "parsing",
    "sections": "finding sections",
    "chunk": "chunking",
    "facts": "reading financial facts",
    "embed": "embedding {n} chunks",
    "index": "indexing",
}


class StageClock:
    """Times named stages as they are announced and forwards a readable label."""

    def __init__(self, callback: Callable[[str], None] | None = None):
        self.callback = callback
        self.timings: dict[str, float] = {}
        self.n_chunks = 0
        self._current: str | None = None
        self._t0 = 0.0

    def __call__(self, name: str) -> None:
        self.stop()
        self._current, self._t0 = name, time.perf_counter()
        if self.callback:
            self.callback(STAGE_LABELS.get(name, name).format(n=self.n_chunks))

    def stop(self) -> None:
        if self._current is not None:
            elapsed = time.perf_counter() - self._t0
            self.timings[self._current] = self.timings.get(self._current, 0.0) + elapsed
            self._current = None


@dataclass
class IngestReport:
    """What one ingest did: the document, whether it was new, seconds per stage."""

    meta: DocumentMeta
    added: bool
    timings: dict[str, float] = field(default_factory=dict)
    n_facts: int | None = None  # facts stored with the document (None: not extracted)
    warnings: list[str] = field(default_factory=list)
    corrected: list[str] = field(default_factory=list)  # fields a re-ingest's options changed


def _fill_unknown(meta: DocumentMeta, known: dict[str, str]) -> DocumentMeta:
    """``meta`` with the ``known`` cik/ticker/company where it has none."""
    from core.ingest.cover import normal_cik

    update = {}
    if known.get("cik") and not meta.cik:
        update["cik"] = normal_cik(known["cik"])
    if known.get("ticker") and not meta.ticker:
        update["ticker"] = known["ticker"]
    if known.get("company") and meta.company == "unknown":
        update["company"] = known["company"]
    if known.get("company") and known.get("cik"):  # EDGAR's name for the CIK, kept apart
        update["edgar_name"] = known["company"]
    return meta.model_copy(update=update) if update else meta


class Corpus:
    """Facade over ingest + store + retrieval for one Settings (one storage folder)."""

    def __init__(self, settings: Settings, embedder=None, reranker=None, *, sweep: bool = True):
        """``sweep``: remove originals no document owns as the corpus opens (the doctor opens
        it without, to report them)."""
        from core.retrieval.rerank import get_reranker
        from core.retrieval.retriever import Retriever
        from core.store.corpus_store import CorpusStore

        if embedder is None:
            from core.foundation.models import get_embedder

            embedder = get_embedder(settings)
        self.settings = settings
        self.store = CorpusStore(settings, embedder)
        self.embedder = self.store.embedder  # the backend that indexed the corpus, if other
        self._reranker = reranker
        self._retriever: Retriever | None = None
        self._retriever_cls = Retriever
        self._get_reranker = get_reranker
        if sweep:
            with contextlib.suppress(Exception):  # never stops the corpus opening
                self.sweep()

    # --- retrieval -------------------------------------------------------
    @property
    def reranker(self):
        if self._reranker is None:
            self._reranker = self._get_reranker(self.settings, self.embedder, self.store)
        return self._reranker

    @property
    def retriever(self):
        if self._retriever is None:
            self._retriever = self._retriever_cls(
                self.store, self.embedder, self.reranker, self.settings
            )
        return self._retriever

    def use_reranker(self, reranker) -> None:
        """Search with ``reranker`` from now on (e.g. one named in the settings page)."""
        self._reranker = reranker
        self._retriever = None

    def search(self, query: str, **kwargs) -> SearchResult:
        return self.retriever.search(query, **kwargs)

    # --- library ---------------------------------------------------------
    def documents(self) -> list[DocumentMeta]:
        return self.store.documents()

    def delete(self, doc_id: str) -> None:
        """Remove a document and everything kept for it: chunks, vectors, keyword entries,
        facts, the original file and the baseline's pieces (it may be confidential)."""
        from core.baseline.index import forget
        from core.store.files import remove_original

        self.store.delete(doc_id)
        remove_original(self.settings, doc_id)
        forget(self.settings, self.embedder, doc_id)

    def sweep(self) -> list[str]:
        """Remove originals no document owns (an ingest killed before its document was
        stored, a delete interrupted); returns the ids swept. Run at startup."""
        from core.store.files import orphaned_originals

        known = {d.doc_id for d in self.store.documents()}
        swept = []
        for doc_id, path in orphaned_originals(self.settings, known):
            if self.store.registry.status(doc_id) is not None:  # pending: being written
                continue
            try:
                path.unlink()
            except OSError:
                continue
            swept.append(doc_id)
        return swept

    def update_document(self, doc_id: str, **fields: str) -> DocumentMeta:
        """Correct company, form (``form_type``), period or ticker of a document; filters
        and citations read the stored metadata, so they follow. Raises StoreError."""
        return self.store.update_document(doc_id, **fields)

    def ingest_bytes(
        self,
        data: bytes,
        file_name: str,
        *,
        company: str | None = None,
        form_type: str | None = None,
        period: str | None = None,
        source: str = "",
        on_stage: Callable[[str], None] | None = None,
        known: dict[str, str] | None = None,
    ) -> IngestReport:
        """Parse, chunk, embed and index one file.

        Raises IngestError (the corpus is then unchanged). ``on_stage`` receives a
        readable label as each stage starts ("parsing", ..., "embedding 485 chunks").
        ``known``: ``cik``, ``ticker`` and ``company`` from where the file came from (EDGAR),
        used only where the filing itself states none."""
        from core.ingest.pipeline import prepare

        clock = StageClock(on_stage)
        prepared = prepare(
            data,
            file_name,
            self.settings,
            company=company,
            form_type=form_type,
            period=period,
            source=source or file_name,
            on_stage=clock,
            facts_later=True,
        )
        clock.stop()
        if known:
            prepared.meta = _fill_unknown(prepared.meta, known)
        from core.store.files import keep_original

        existing = self.store.get_document(prepared.meta.doc_id)
        if existing is not None:  # unchanged; one ingested before facts existed gets them
            n_facts = self.store.facts_status().get(existing.doc_id)
            if n_facts is None and prepared.read_facts(data) is not None:
                self.store.write_facts(existing.doc_id, prepared.facts)
                n_facts = len(prepared.facts)
            keep_original(self.settings, existing.doc_id, data)  # restores a lost one
            existing, changes = self._corrected(existing, company, form_type, period)
            return IngestReport(existing, False, dict(prepared.timings), n_facts=n_facts,
                                warnings=prepared.warnings, corrected=sorted(changes))
        clock.n_chunks = len(prepared.chunks)
        # The facts are read while the chunks embed (ONNX Runtime's threads free the GIL, and
        # the embedding leaves some of two cores idle): the store waits for them to index.
        with ThreadPoolExecutor(1, thread_name_prefix="ingest-facts") as pool:
            facts = pool.submit(prepared.read_facts, data)
            meta, added = self.store.add(prepared.meta, prepared.chunks, on_stage=clock,
                                         facts=facts)
        # kept once the document is stored, so a killed ingest leaves no file behind;
        # citations show the filing as filed from it
        keep_original(self.settings, meta.doc_id, data)
        clock.stop()
        timings = dict(prepared.timings)
        timings.update({k: v for k, v in clock.timings.items() if k in ("embed", "index")})
        n_facts = None if prepared.facts is None else len(prepared.facts)
        stored = self.store.get_document(meta.doc_id) or meta  # its filer's name, checked
        changes: dict[str, str] = {}
        if not added:  # another ingest of this file stored it meanwhile: the options still apply
            stored, changes = self._corrected(stored, company, form_type, period)
        warnings = prepared.warnings + ([stored.name_conflict] if stored.name_conflict else [])
        return IngestReport(stored, added, timings, n_facts=n_facts, warnings=warnings,
                            corrected=sorted(changes))

    def _corrected(self, existing: DocumentMeta, company: str | None, form_type: str | None,
                   period: str | None) -> tuple[DocumentMeta, dict[str, str]]:
        """``existing`` with the options given now applied to its stored metadata."""
        asked = {"company": company, "form_type": form_type, "period": period}
        changes = {k: v for k, v in asked.items() if v and getattr(existing, k) != v}
        if changes:
            existing = self.store.update_document(existing.doc_id, **changes)
        return existing, changes

    def ingest_path(self, path: str | Path, **kwargs) -> IngestReport:
        p = Path(path)
        if not p.exists():
            raise IngestError(f"File not found: {p}. Check the path and try again.")
        if p.is_dir():
            raise IngestError(f"{p} is a folder, not a file. Give the filing's file path.")
        if not p.is_file():
            raise IngestError(f"{p} is not a regular file (a device, pipe or socket). Give the "
                              "path of a filing saved on disk.")
        size = p.stat().st_size
        if size > self.settings.max_file_bytes:
            raise IngestError(
                f"{p.name} is {size / 1024 / 1024:.1f} MiB, over the "
                f"{self.settings.max_file_mb:g} MiB limit (raise DTR_MAX_FILE_MB to accept it)."
            )
        kwargs.setdefault("source", str(p))
        return self.ingest_bytes(p.read_bytes(), p.name, **kwargs)

    def ingest_url(self, url: str, **kwargs) -> IngestReport:
        from core.ingest.fetch import fetch_url

        data, name = fetch_url(url, self.settings)
        kwargs.setdefault("source", url)
        return self.ingest_bytes(data, name, **kwargs)

    def close(self) -> None:
        self.store.close()
