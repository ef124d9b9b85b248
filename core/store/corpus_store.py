"""CorpusStore: the persistent corpus (registry + Chroma vectors + BM25), one facade.

Everything lives under ``settings.data_dir`` (the registry file, the Chroma
folder); with ``settings.chroma_url`` the vectors live on a Chroma server in a
collection named for this data folder.

Adding a document is atomic with respect to searches and listings:

1. tag financial-statement chunks and embed each chunk under its context header
   (``core.store.index_text``; nothing written yet);
2. write the document and its chunks with status ``pending`` (one transaction);
3. upsert the vectors into Chroma;
4. flip the document to ``ready`` (one transaction).

Reads only see ``ready`` documents, and vector queries are always restricted to
ready doc ids, so a failure or a kill between 2 and 4 leaves nothing visible.
A failure is rolled back at once; a killed process leaves a ``pending`` row that
the next open purges (vectors included).

Several processes may share a data folder (the app, the CLI): index writes hold the folder's
writer lock, and each query first checks the registry's generation, reopening the local Chroma
client when another process changed the corpus (:mod:`core.store.coherence`).
"""

from __future__ import annotations

import logging
import math
import threading
from concurrent.futures import Future

import numpy as np

from core.foundation.config import Settings
from core.foundation.errors import StoreError
from core.foundation.models import Embedder
from core.foundation.types import Chunk, DocumentMeta, Fact
from core.store.coherence import Generation
from core.store.doc_vectors import DocVectors
from core.store.facts_table import with_statements
from core.store.failures import add_failed, delete_failed, first_line
from core.store.index_text import index_text, tag_statements, vector_text
from core.store.keyword import KeywordIndex, TextOf
from core.store.registry_api import Registry
from core.store.storage import storage_for
from core.store.vector_health import VectorHealth
from core.store.vectors import EmbedderMismatch, VectorIndex, lost_vector

log = logging.getLogger(__name__)

_MEMORY_DOCS = 4  # a filtered vector search over at most this many filings runs in memory
_OPEN_MAX = 1000  # largest over-fetch of an unfiltered query standing in for a filtered one


def _open_vectors(settings: Settings, embedder: Embedder) -> tuple[VectorIndex, Embedder]:
    """The vector index and the embedder its queries and new chunks must use: ``embedder``,
    or, when the corpus was indexed by another backend of the same model and the backend
    setting is 'auto', that backend's embedder (wrapped as ``embedder`` was, if it can be)."""
    try:
        return VectorIndex(settings, embedder.name, embedder.dim), embedder
    except EmbedderMismatch as exc:
        from core.foundation.models import embedder_for_corpus, is_model_embedder

        other = embedder_for_corpus(settings, exc.recorded)
        if other is None:
            raise
        if hasattr(embedder, "rewrap"):
            other = embedder.rewrap(other)
        elif not is_model_embedder(embedder):
            raise
        log.info("corpus %s was indexed by %s: using it (not %s)", settings.data_dir,
                 other.name, embedder.name)
        return VectorIndex(settings, other.name, other.dim), other


class CorpusStore:
    """The corpus of one data folder: see the module docstring."""

    def __init__(self, settings: Settings, embedder: Embedder, keyword_text: TextOf | None = None):
        """``keyword_text(chunk, document)`` is the text the keyword index holds for a chunk
        (default: the chunk under its context header, ``core.store.index_text``)."""
        self.settings = settings
        self.embedder = embedder
        self._lock = threading.RLock()
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        self.storage = storage_for(settings)  # SQLite + file lock, or the team database
        self.registry: Registry = self.storage.registry()
        self.vectors, self.embedder = _open_vectors(settings, embedder)
        self.doc_vectors = DocVectors(self.vectors)
        self.keyword = KeywordIndex(self.registry, text_of=keyword_text or index_text)
        self._sections: tuple[list[str], dict[str, list[str]]] | None = None
        self._generation = Generation(self.registry.generation())
        self._health = VectorHealth()
        self._purge_pending()

    # --- writes -----------------------------------------------------------
    def add(
        self, meta: DocumentMeta, chunks: list[Chunk], on_stage=None,
        facts: list[Fact] | Future | None = None,
    ) -> tuple[DocumentMeta, bool]:
        """Index a document; returns ``(meta, False)`` when its doc_id is already present.

        ``on_stage`` (optional) is called with "embed" and "index" as each stage starts.
        ``facts`` (``core.ingest.facts``) are written with the chunks, in the same
        transaction; a fact whose table named no statement takes its chunk's tag. A Future
        of them (being read while the chunks embed) is waited for before the index stage.
        """
        stage = on_stage or (lambda _name: None)
        bad = [c.chunk_id for c in chunks if c.doc_id != meta.doc_id]
        if bad:
            raise StoreError(
                f"{len(bad)} chunk(s) (e.g. {bad[0]}) do not belong to document {meta.doc_id}."
            )
        existing = self.registry.get_document(meta.doc_id)
        if existing is not None:
            return existing, False
        meta = meta.model_copy(update={"n_chunks": len(chunks)})
        if not meta.sections:
            meta.sections = list(dict.fromkeys(c.section for c in chunks))
        chunks = [c.model_copy(update={"statement": tag})
                  for c, tag in zip(chunks, tag_statements(chunks), strict=True)]
        # Embedding (minutes for a long filing) holds no lock: readers in this process
        # (sections, search) go on meanwhile; only the short index stage is serialised.
        stage("embed")
        vectors = self._embed([vector_text(c, meta, self.settings.embed_context) for c in chunks])
        if isinstance(facts, Future):
            facts = facts.result()
        facts = None if facts is None else with_statements(facts, chunks)
        stage("index")
        with self._lock, self.storage.writer_lock():
            self._sync()
            existing = self.registry.get_document(meta.doc_id)  # added meanwhile elsewhere
            if existing is not None:
                return existing, False
            if self.registry.status(meta.doc_id) == "pending" and not self._rollback(
                    meta.doc_id):
                raise StoreError(add_failed(meta.file_name, self._where, None))
            try:
                self.registry.write_pending(meta, chunks, facts)
                self.vectors.add(chunks, vectors)
                self._generation.wrote(self.registry.mark_ready(meta.doc_id))
            except BaseException as exc:
                clean = self._rollback(meta.doc_id)
                if isinstance(exc, StoreError) or not isinstance(exc, Exception):
                    raise
                raise StoreError(add_failed(meta.file_name, self._where, exc, clean)) from None
            finally:
                self.keyword.invalidate()
        return meta, True

    def delete(self, doc_id: str) -> None:
        """Remove a document, its chunks and its vectors (no-op for an unknown id)."""
        with self._lock, self.storage.writer_lock():
            if self.registry.status(doc_id) is None:
                return
            self._sync()
            try:
                self.vectors.delete_doc(doc_id)
            except Exception as exc:  # noqa: BLE001 - nothing was removed from the registry
                raise StoreError(delete_failed(doc_id, self._where, exc)) from None
            self._generation.wrote(self.registry.remove(doc_id))
            self.keyword.invalidate(doc_id)

    def write_facts(self, doc_id: str, facts: list[Fact]) -> None:
        """Replace a stored document's facts (``facts --rebuild``); statements as in ``add``."""
        self.registry.write_facts(doc_id, with_statements(facts, self.registry.chunks(doc_id)))

    def update_document(self, doc_id: str, **fields: str) -> DocumentMeta:
        """Correct a document's company / form_type / period / ticker (see
        ``Registry.update_document``); keyword search re-reads it on its next query."""
        with self._lock:
            meta = self.registry.update_document(doc_id, **fields)
            self.keyword.invalidate(doc_id)
        return meta

    def _embed(self, texts: list[str]) -> np.ndarray:
        vecs = np.asarray(self.embedder.encode(texts), dtype=np.float32)
        if vecs.shape != (len(texts), self.embedder.dim):
            raise StoreError(
                f"The embedder returned shape {vecs.shape} for {len(texts)} texts "
                f"(expected dim {self.embedder.dim})."
            )
        return vecs

    def vectors_lost(self) -> bool:
        """Ready chunks exist but the vector store holds none (cheap: two counts)."""
        return bool(self.registry.ready_ids()) and self._fresh(self.vectors.count) == 0

    def vectors_missing(self) -> int:
        """How many ready filings have chunks whose vector cannot be read (a few chunks of
        each probed, once per corpus generation: ``core.store.vector_health``)."""
        return self._health.missing(self)

    def vector_gaps(self) -> dict[str, int]:
        """doc_id -> how many of the document's chunks have no readable vector (ready
        documents with at least one missing; the vector store lost, cut short, or its
        segment folder deleted)."""
        gaps = {}
        for doc in self.registry.documents():
            ids = [c.chunk_id for c in self.registry.chunks(doc.doc_id)]
            missing = len(ids) - len(self._fresh(self.vectors.readable, ids))
            if missing:
                gaps[doc.doc_id] = missing
        return gaps

    def restore_vectors(self, doc_id: str) -> int:
        """Embed a ready document's stored chunk texts again and store their vectors (no
        parsing: the registry has every chunk as it was indexed); returns the chunk count.
        The corpus generation moves so every process reloads its vector state."""
        meta = self.registry.get_document(doc_id)
        if meta is None:
            raise StoreError(f"No ready document {doc_id} to restore vectors for.")
        chunks = self.registry.chunks(doc_id)
        vectors = self._embed([vector_text(c, meta, self.settings.embed_context) for c in chunks])
        with self._lock, self.storage.writer_lock():
            self._sync()
            self.vectors.add(chunks, vectors)
            self._generation.wrote(self.registry.mark_ready(doc_id))
        self.doc_vectors = DocVectors(self.vectors)
        self._health = VectorHealth()
        return len(chunks)

    def _rollback(self, doc_id: str) -> bool:
        """Remove a half-added document. If its vectors cannot be deleted (Chroma server
        gone), the registry keeps it as an abandoned ``pending`` row, invisible to reads, that
        the next open purges; returns whether the rollback is complete."""
        try:
            self.vectors.delete_doc(doc_id)
        except Exception as exc:  # noqa: BLE001 - any Chroma/transport failure
            log.warning("could not delete the vectors of %s (%s); they will be purged when the "
                        "corpus is next opened", doc_id, first_line(exc))
            log.debug("rollback failure", exc_info=True)
            self.registry.abandon(doc_id)
            return False
        self._generation.wrote(self.registry.remove(doc_id))
        return True

    @property
    def _where(self) -> object:
        return self.settings.chroma_url or self.settings.chroma_dir

    def _purge_pending(self) -> None:
        if not self.registry.stale_pending():
            return
        with self._lock, self.storage.writer_lock():
            self._sync()
            for doc_id in self.registry.stale_pending():
                log.warning("purging half-indexed document %s left by an interrupted add", doc_id)
                self._rollback(doc_id)

    def _sync(self) -> None:
        """Reopen the local Chroma client if another process changed the corpus since."""
        if self.vectors.local and self._generation.moved(self.registry.generation()):
            self.vectors.reopen()

    def _fresh(self, read, *args):
        """``read(*args)`` on a current vector index; retried once on a reopened client if
        Chroma fails on an id another process removed between the check and the query."""
        self._sync()
        try:
            return read(*args)
        except Exception as exc:
            from chromadb.errors import InternalError

            if not (self.vectors.local and isinstance(exc, InternalError)):
                raise
            log.info("vector index changed under a query (%s); reopening", exc)
            self.vectors.reopen()
            return read(*args)

    # --- reads --------------------------------------------------------------
    def documents(self) -> list[DocumentMeta]:
        """Ready documents, in the order they were added."""
        return self.registry.documents()

    def get_document(self, doc_id: str) -> DocumentMeta | None:
        return self.registry.get_document(doc_id)

    def chunks(self, doc_id: str | None = None, section: str | None = None) -> list[Chunk]:
        """Chunks of ready documents (optionally one document / one exact section), ordered."""
        return self.registry.chunks(doc_id, section)

    def get_chunks(self, ids: list[str]) -> list[Chunk]:
        """Chunks by id in the order given; unknown ids are skipped."""
        return self.registry.get_chunks(ids)

    def sections(self) -> dict[str, list[str]]:
        """doc_id -> section titles, in reading order.

        Read from the registry only when the set of ready documents changed (here or in
        another process): a ready document's chunks never change, and grouping every chunk
        of the corpus on each search cost ~11 ms at 3.5k chunks, ~1 s at 370k.
        """
        ready = self.registry.ready_ids()
        with self._lock:
            if self._sections is None or self._sections[0] != ready:
                self._sections = (ready, self.registry.sections())
            cached = self._sections[1]
        return {doc_id: list(titles) for doc_id, titles in cached.items()}

    def facts(self, doc_ids: list[str] | None = None, *, metric: str | None = None,
              fiscal_years: list[int] | None = None, concept: str | None = None,
              statement: str | None = None) -> list[Fact]:
        """Facts of ready documents matching every filter given, in document order."""
        return self.registry.facts(doc_ids, metric=metric, fiscal_years=fiscal_years,
                                   concept=concept, statement=statement)

    def facts_status(self) -> dict[str, int]:
        """doc_id -> number of facts, for documents whose facts were extracted (one
        ingested before facts existed is absent: ``python -m core facts --rebuild``)."""
        return self.registry.facts_status()

    def get_vectors(self, ids: list[str]) -> dict[str, np.ndarray]:
        """Stored chunk vectors by id (for rerankers: no re-encoding)."""
        return self._fresh(self.vectors.get_vectors, ids)

    # --- searches (used by core.retrieval.Retriever) ------------------------
    def vector_search(
        self,
        vector: np.ndarray,
        k: int,
        doc_ids: list[str] | None = None,
        sections: list[str] | None = None,
    ) -> list[tuple[str, float]]:
        """Top ``k`` (chunk_id, cosine) among ready documents (and ``doc_ids``, ``sections``).

        Chunks of documents that are not ready are never returned. Chroma's own filters cost
        the more the larger the collection (a ``where`` listing 500 ready doc ids: ~4 s a
        query at ~370k chunks; one filing by ``where`` or ``ids=``: 120-300 ms; no filter:
        ~3 ms), so:

        * no filter: an unfiltered query fetches a few more than ``k`` and drops chunks of
          documents that are not ready (a chunk id is ``<doc_id>-<index>``); if too many were
          dropped, it tries again fetching ``_OPEN_MAX``, then with the ready ids in a
          ``where`` clause;
        * a filter within a few filings: exact cosine over those filings' vectors, held in
          memory after their first search (:mod:`core.store.doc_vectors`);
        * a broader filter: an over-fetched unfiltered query kept to the chunks in scope (the
          keyword index knows every ready chunk's document and section), else Chroma's
          ``ids=`` subset;
        * before the keyword index is first built: Chroma's ``where`` on the ready doc ids.
        """
        try:
            return self._fresh(self._vector_search, vector, k, doc_ids, sections)
        except Exception as exc:
            if lost_vector(exc) and self.vectors_missing():
                return []  # the retriever says the vectors are missing
            raise

    def _vector_search(self, vector, k, doc_ids, sections) -> list[tuple[str, float]]:
        if k <= 0:
            return []
        if doc_ids is None and sections is None:
            return self._vector_search_all(vector, k)
        scope = self.keyword.scope(doc_ids, sections)
        if scope is None:  # keyword index not built yet: let Chroma filter
            ready = self.registry.ready_ids()
            docs = ready if doc_ids is None else [d for d in ready if d in set(doc_ids)]
            return self.vectors.query(vector, k, docs, sections)
        if not len(scope):
            return []
        if scope.n_docs() <= _MEMORY_DOCS:
            return self.doc_vectors.search(vector, k, scope.parts())
        n = k + math.ceil(3 * k / scope.share)
        if n <= _OPEN_MAX:
            hits = self.vectors.query_open(vector, n)
            kept = [(cid, score) for cid, score in hits if cid in scope]
            if len(kept) >= k or len(hits) < n:
                return kept[:k]
        return self.vectors.query_ids(vector, k, scope.ids())

    def _vector_search_all(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        ready = self.registry.ready_ids()
        if not ready:
            return []
        allowed = set(ready)
        for n in (k + max(10, k // 2), _OPEN_MAX):  # a second, wider try before the clause
            hits = self.vectors.query_open(vector, n)
            kept = [(cid, score) for cid, score in hits if cid.rsplit("-", 1)[0] in allowed]
            if len(kept) >= k or len(hits) < n:
                return kept[:k]
        return self.vectors.query(vector, k, ready)

    def keyword_search(
        self,
        query: str,
        k: int,
        doc_ids: list[str] | None = None,
        sections: list[str] | None = None,
    ) -> list[tuple[str, float]]:
        """Top ``k`` (chunk_id, BM25 score) among ready documents, filtered before the cut."""
        return self.keyword.search(query, k, doc_ids, sections)

    def statement_search(
        self,
        query: str,
        statements: list[str],
        k: int,
        doc_ids: list[str] | None = None,
        sections: list[str] | None = None,
    ) -> list[tuple[str, float]]:
        """Top ``k`` chunks of the given financial statements, by BM25 of ``query`` (chunks
        that match no query term follow in reading order)."""
        ids = self.registry.statement_chunk_ids(statements, doc_ids, sections)
        if not ids:
            return []
        scores = self.keyword.score(query, ids)
        ranked = sorted(ids, key=lambda i: -scores.get(i, 0.0))
        return [(i, scores.get(i, 0.0)) for i in ranked[:k]]

    def keyword_scores(self, query: str, chunk_ids: list[str]) -> dict[str, float]:
        """BM25 scores of ``query`` for given chunks (used by the fallback reranker)."""
        return self.keyword.score(query, chunk_ids)

    def keyword_idf(self, terms: list[str]) -> dict[str, float]:
        """Corpus IDF of tokenised terms (used by the fallback reranker)."""
        return self.keyword.idf(terms)

    def close(self) -> None:
        """Close the registry. The Chroma client stays cached for the process."""
        self.registry.close()

    def __enter__(self) -> CorpusStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
