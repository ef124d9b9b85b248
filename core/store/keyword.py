"""The keyword index: BM25 (Okapi, from ``rank-bm25``) over the registry's chunk texts.

It is derived data: built lazily from the ready chunks in the registry on the
first search, marked stale by every add or delete and rebuilt on the next
search. Token lists are kept per document, so an add only tokenises the new
document. Filters (documents, sections) select the rows that are scored before
the top-k cut, never after it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np
from rank_bm25 import BM25Okapi

from core.retrieval.tokenize import tokenize
from core.store.registry import Registry
from core.types import Chunk, DocumentMeta


class KeywordIndex:
    """BM25 over every ready chunk of a registry."""

    def __init__(self, registry: Registry, tokenizer: Callable[[str], list[str]] = tokenize,
                 text_of: Callable[[Chunk, DocumentMeta | None], str] | None = None):
        self.registry = registry
        self.tokenizer = tokenizer
        self.text_of = text_of or (lambda chunk, _doc: chunk.text)
        self._lock = threading.RLock()
        self._tokens: dict[str, list[list[str]]] = {}
        self._stale = True
        self._bm25: BM25Okapi | None = None
        self._ids: list[str] = []
        self._row: dict[str, int] = {}
        self._docs = np.array([], dtype=object)
        self._sections = np.array([], dtype=object)
        self.build_seconds = 0.0

    def invalidate(self, doc_id: str | None = None) -> None:
        """Mark the index stale (and forget ``doc_id``'s tokens, e.g. after a delete)."""
        with self._lock:
            if doc_id is not None:
                self._tokens.pop(doc_id, None)
            self._stale = True

    def _build(self) -> None:
        import time

        t0 = time.perf_counter()
        chunks = self.registry.chunks()
        metas = {d.doc_id: d for d in self.registry.documents()}
        by_doc: dict[str, list] = {}
        for c in chunks:
            by_doc.setdefault(c.doc_id, []).append(c)
        self._tokens = {d: t for d, t in self._tokens.items() if d in by_doc}
        corpus: list[list[str]] = []
        for doc_id, doc_chunks in by_doc.items():
            if doc_id not in self._tokens:
                meta = metas.get(doc_id)
                self._tokens[doc_id] = [self.tokenizer(self.text_of(c, meta)) for c in doc_chunks]
            corpus.extend(self._tokens[doc_id])
        self._ids = [c.chunk_id for c in chunks]
        self._row = {cid: i for i, cid in enumerate(self._ids)}
        self._docs = np.array([c.doc_id for c in chunks], dtype=object)
        self._sections = np.array([c.section for c in chunks], dtype=object)
        # BM25Okapi divides by the corpus size; an empty corpus has no index.
        self._bm25 = BM25Okapi(corpus) if corpus else None
        self._stale = False
        self.build_seconds = time.perf_counter() - t0

    def ensure(self) -> None:
        """Build or rebuild the index if it is stale."""
        with self._lock:
            if self._stale:
                self._build()

    def search(
        self,
        query: str,
        k: int,
        doc_ids: list[str] | None = None,
        sections: list[str] | None = None,
    ) -> list[tuple[str, float]]:
        """Top ``k`` chunk ids by BM25 among chunks of ``doc_ids`` and ``sections``.

        Chunks that share no token with the query (score 0) are not returned.
        """
        terms = self.tokenizer(query)
        with self._lock:
            self.ensure()
            if self._bm25 is None or not terms or k <= 0:
                return []
            mask = np.ones(len(self._ids), dtype=bool)
            if doc_ids is not None:
                mask &= np.isin(self._docs, list(doc_ids))
            if sections is not None:
                mask &= np.isin(self._sections, list(sections))
            rows = np.flatnonzero(mask)
            if rows.size == 0:
                return []
            scores = np.asarray(self._bm25.get_batch_scores(terms, rows.tolist()))
            ids = self._ids
        keep = min(k, rows.size)
        top = np.argpartition(-scores, keep - 1)[:keep]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(ids[rows[i]], float(scores[i])) for i in top if scores[i] > 0]

    def score(self, query: str, chunk_ids: list[str]) -> dict[str, float]:
        """BM25 scores of ``query`` for the given chunks (corpus-wide IDF); unknown ids: 0."""
        terms = self.tokenizer(query)
        with self._lock:
            self.ensure()
            rows = [self._row[c] for c in chunk_ids if c in self._row]
            if self._bm25 is None or not terms or not rows:
                return {c: 0.0 for c in chunk_ids}
            scores = self._bm25.get_batch_scores(terms, rows)
            by_row = dict(zip(rows, scores, strict=True))
        return {c: float(by_row.get(self._row.get(c, -1), 0.0)) for c in chunk_ids}

    def idf(self, terms: list[str]) -> dict[str, float]:
        """Corpus IDF of each (already tokenised) term; 0 for unknown terms."""
        with self._lock:
            self.ensure()
            table = self._bm25.idf if self._bm25 is not None else {}
            return {t: float(table.get(t, 0.0)) for t in terms}

    def __len__(self) -> int:
        self.ensure()
        return len(self._ids)
