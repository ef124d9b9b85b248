"""The search funnel: vector, keyword (BM25) or hybrid (RRF) retrieval, then reranking.

``Retriever.search`` fetches ``max(settings.top_k, k)`` candidates per retriever
inside the filters (documents, sections), fuses them for ``hybrid`` with
reciprocal rank fusion (k = settings.rrf_k = 60, Cormack et al. 2009), reranks
them with the reranker for ``rerank_query`` (the agent's rewritten query; the
raw query when absent) and keeps ``k`` (default settings.top_n). Every hit
carries its rank and score from each stage it went through.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import get_args

import numpy as np

from core.config import Settings
from core.errors import RetrievalError
from core.retrieval.filters import resolve_doc_ids, resolve_sections
from core.retrieval.fusion import rrf
from core.types import Hit, SearchResult, StageScore

Strategy = SearchResult.model_fields["strategy"].annotation
STRATEGIES: tuple[str, ...] = tuple(get_args(Strategy))


class Retriever:
    """Searches one CorpusStore; see the module docstring."""

    def __init__(self, store, embedder, reranker, settings: Settings):
        self.store = store
        self.embedder = embedder
        self.reranker = reranker
        self.settings = settings
        self._qcache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._qlock = threading.Lock()

    def encode_query(self, text: str) -> np.ndarray:
        """The query's vector (a small per-process cache avoids re-encoding)."""
        with self._qlock:
            vec = self._qcache.get(text)
        if vec is None:
            vec = np.asarray(self.embedder.encode([text])[0], dtype=np.float32)
            with self._qlock:
                self._qcache[text] = vec
                if len(self._qcache) > 256:
                    self._qcache.popitem(last=False)
        return vec

    def search(
        self,
        query: str,
        *,
        strategy: str = "hybrid",
        k: int | None = None,
        doc_ids: list[str] | None = None,
        sections: list[str] | None = None,
        rerank_query: str | None = None,
        rerank: bool = True,
    ) -> SearchResult:
        """Ranked chunks for ``query``; raises RetrievalError on a bad strategy, k or filter."""
        t_start = time.perf_counter()
        k = self.settings.top_n if k is None else k
        self._check(query, strategy, k)
        documents = {d.doc_id: d for d in self.store.documents()}
        if not documents:
            raise RetrievalError("The corpus is empty: ingest a filing before searching it.")
        docs = resolve_doc_ids(doc_ids, list(documents.values()))
        secs = resolve_sections(sections, self.store.sections(), docs)
        n_cand = max(self.settings.top_k, k)
        timings: dict[str, float] = {}

        rankings: dict[str, list[tuple[str, float]]] = {}
        if strategy in ("vector", "hybrid"):
            t0 = time.perf_counter()
            qvec = self.encode_query(query)
            rankings["vector"] = self.store.vector_search(qvec, n_cand, docs, secs)
            timings["vector"] = (time.perf_counter() - t0) * 1000
        if strategy in ("keyword", "hybrid"):
            t0 = time.perf_counter()
            rankings["keyword"] = self.store.keyword_search(query, n_cand, docs, secs)
            timings["keyword"] = (time.perf_counter() - t0) * 1000

        hits = self._candidates(rankings, strategy, documents)
        rq = (rerank_query or "").strip() or query
        info = None
        if rerank and self.reranker is not None and hits:
            t0 = time.perf_counter()
            hits = self.reranker.rerank(rq, hits, k)
            timings["rerank"] = (time.perf_counter() - t0) * 1000
            info = self.reranker.info
        else:
            hits = hits[:k]
        timings["total"] = (time.perf_counter() - t_start) * 1000
        filters = {}
        if docs is not None:
            filters["doc_ids"] = docs
        if secs is not None:
            filters["sections"] = secs
        return SearchResult(
            query=query, rerank_query=rq, strategy=strategy, hits=hits, reranker=info,
            timings_ms=timings, filters=filters,
        )

    def _check(self, query: str, strategy: str, k: int) -> None:
        if strategy not in STRATEGIES:
            raise RetrievalError(
                f"Unknown strategy {strategy!r}: choose one of {', '.join(STRATEGIES)}."
            )
        if not isinstance(k, int) or k <= 0:
            raise RetrievalError(f"k must be greater than 0 (got {k!r}).")
        if not query or not query.strip():
            raise RetrievalError("The query is empty: type what you are looking for.")

    def _candidates(self, rankings, strategy: str, documents) -> list[Hit]:
        """Hits with their per-stage scores, in first-stage order (fused for hybrid)."""
        stages: dict[str, dict[str, StageScore]] = {}
        for stage, ranked in rankings.items():
            for rank, (cid, score) in enumerate(ranked, start=1):
                stages.setdefault(cid, {})[stage] = StageScore(rank=rank, score=score)
        if strategy == "hybrid":
            order = rrf(
                [[c for c, _ in rankings["vector"]], [c for c, _ in rankings["keyword"]]],
                self.settings.rrf_k,
            )
            for rank, (cid, score) in enumerate(order, start=1):
                stages[cid]["fused"] = StageScore(rank=rank, score=score)
        else:
            order = rankings[strategy]
        chunks = {c.chunk_id: c for c in self.store.get_chunks([cid for cid, _ in order])}
        hits = []
        for cid, score in order:
            if cid not in chunks:  # deleted between the index lookup and now
                continue
            chunk = chunks[cid]
            hits.append(Hit(
                chunk=chunk, document=documents.get(chunk.doc_id), stages=stages[cid],
                rank=len(hits) + 1, score=float(score),
            ))
        return hits
