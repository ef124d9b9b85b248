"""The search funnel: scope, first-stage rankings, fusion, reranking.

``Retriever.search``:

1. **Scope.** Explicit ``doc_ids`` are checked against the corpus. Without them (and with
   ``scope="auto"``, the default) the companies and periods the query names choose the
   filings (``core.retrieval.scope``); the result's ``scope`` says what was matched.
2. **Rankings** inside the filters (documents, sections), ``max(settings.top_k, k)``
   candidates each, per the strategy's retrievers (``core.foundation.strategies``): vector
   (cosine of the query embedding), keyword (BM25 of the query plus the line items of the
   metrics it names, ``core.retrieval.query``), and, when the query names financial
   statements or metrics printed in them, a ranking of the chunks of those statements.
3. **Fusion** by reciprocal rank fusion when there is more than one ranking (k =
   settings.rrf_k = 60, Cormack et al. 2009).
4. **Rerank** for ``rerank_query`` (the agent's rewritten query; the raw query when
   absent) and keep ``k`` (default settings.top_n).

Every hit carries its rank and score from each stage it went through.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from core.foundation.config import Settings
from core.foundation.errors import RetrievalError
from core.foundation.strategies import STRATEGIES
from core.foundation.types import Hit, ScopeInfo, SearchResult, StageScore
from core.retrieval.filters import resolve_doc_ids, resolve_sections
from core.retrieval.fusion import rrf
from core.retrieval.query import analyse
from core.retrieval.scope import resolve_scope

if TYPE_CHECKING:
    from core.foundation.models import Embedder
    from core.retrieval.rerank import Reranker

SCOPES = ("auto", "all")
_SIDES = ThreadPoolExecutor(max_workers=4, thread_name_prefix="retriever-side")


Rankings = dict[str, list[tuple[str, float]]]  # stage -> [(chunk id, score)] best first


@dataclass(frozen=True)
class Ask:
    """What a first-stage retriever is asked: the query, inside the filters."""

    query: str
    keyword_query: str  # the query plus the line items of the metrics it names
    statements: list[str]  # statements whose chunks get a ranking of their own
    n: int  # candidates per ranking
    doc_ids: list[str] | None
    sections: list[str] | None


def _timed(stage: str, run: Callable[[], list[tuple[str, float]]]
           ) -> tuple[Rankings, dict[str, float]]:
    t0 = time.perf_counter()
    ranked = run()
    return {stage: ranked}, {stage: (time.perf_counter() - t0) * 1000}


def vector_retriever(r: Retriever, ask: Ask) -> tuple[Rankings, dict[str, float]]:
    """Cosine of the query's embedding."""
    return _timed("vector", lambda: r.store.vector_search(
        r.encode_query(ask.query), ask.n, ask.doc_ids, ask.sections))


def keyword_retriever(r: Retriever, ask: Ask) -> tuple[Rankings, dict[str, float]]:
    """BM25 of the query and its metrics' line items; with the statements the query names,
    a ranking of those statements' chunks besides."""
    rankings, timings = _timed("keyword", lambda: r.store.keyword_search(
        ask.keyword_query, ask.n, ask.doc_ids, ask.sections))
    if ask.statements:
        found, ms = _timed("statement", lambda: r.store.statement_search(
            ask.keyword_query, ask.statements, ask.n, ask.doc_ids, ask.sections))
        rankings.update(found)
        timings.update(ms)
    return rankings, timings


# A strategy names the retrievers it fuses (``core.foundation.strategies``); a new one is
# its function here and a name in a strategy's ``retrievers``.
RETRIEVERS: dict[str, Callable[[Retriever, Ask], tuple[Rankings, dict[str, float]]]] = {
    "vector": vector_retriever,
    "keyword": keyword_retriever,
}


class FilingRetriever(Protocol):
    """What the agent needs from a retriever: ``search`` and the models it uses."""

    embedder: Embedder | None
    reranker: Reranker | None

    def search(self, query: str, *, strategy: str = "hybrid", k: int | None = None,
               doc_ids: list[str] | None = None, sections: list[str] | None = None,
               rerank_query: str | None = None, rerank: bool = True) -> SearchResult: ...


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
        scope: str = "auto",
    ) -> SearchResult:
        """Ranked chunks for ``query``; raises RetrievalError on a bad strategy, k or filter."""
        t_start = time.perf_counter()
        k = self.settings.top_n if k is None else k
        self._check(query, strategy, k, scope)
        documents = {d.doc_id: d for d in self.store.documents()}
        if not documents:
            raise RetrievalError("The corpus is empty: ingest a filing before searching it.")
        scope_info = None
        if doc_ids is None and scope == "auto" and self.settings.resolve_scope:
            found = resolve_scope(query, list(documents.values()))
            if found.doc_ids:
                doc_ids = found.doc_ids
                scope_info = ScopeInfo(doc_ids=found.doc_ids, companies=found.companies,
                                       periods=found.periods, reason=found.reason)
        docs = resolve_doc_ids(doc_ids, list(documents.values()))
        secs = resolve_sections(sections, self.store.sections(), docs)
        n_cand = max(self.settings.top_k, k)
        analysis = analyse(query)
        expansions = analysis.line_items if self.settings.expand_line_items else []
        keyword_query = " ".join([query, *expansions])
        wanted = {"off": [], "named": analysis.named_statements,
                  "metrics": analysis.statements}[self.settings.statement_ranking]
        ask = Ask(query=query, keyword_query=keyword_query, statements=wanted, n=n_cand,
                  doc_ids=docs, sections=secs)
        rankings, timings = self._rankings(STRATEGIES[strategy].retrievers, ask)
        warnings = []
        if "vector" in rankings and not rankings["vector"] and self.store.vectors_lost():
            warnings.append("The vector index has no vectors (was its chroma/ folder deleted?): "
                            + ("these results are keyword-only. " if len(rankings) > 1 else "")
                            + "Run `python -m core doctor --repair` to embed the stored chunks "
                            "again.")
        elif "vector" in rankings and (missing := self.store.vectors_missing()):
            warnings.append(f"The vector index has lost the vectors of {missing} of "
                            f"{len(documents)} filing(s) (was a folder under chroma/ deleted?): "
                            "vector results leave their chunks out"
                            + ("; keyword search still covers them. " if len(rankings) > 1
                               else ". ")
                            + "Run `python -m core doctor --repair` to embed the stored chunks "
                            "again.")

        hits = self._candidates(rankings, documents)
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
            timings_ms=timings, filters=filters, scope=scope_info,
            statements=wanted if "statement" in rankings else [],
            expansions=expansions if "keyword" in rankings else [],
            warnings=warnings,
        )

    def _rankings(self, names: tuple[str, ...], ask: Ask) -> tuple[Rankings, dict[str, float]]:
        """Every retriever the strategy fuses, in its order: the first in this thread, the
        others beside it (the encoder releases the GIL, so a hybrid search waits for the
        slower side only)."""
        pending = [_SIDES.submit(RETRIEVERS[name], self, ask) for name in names[1:]]
        results = [RETRIEVERS[names[0]](self, ask), *(f.result() for f in pending)]
        rankings: Rankings = {}
        timings: dict[str, float] = {}
        for found, ms in results:
            rankings.update(found)
            timings.update(ms)
        return rankings, timings

    def _check(self, query: str, strategy: str, k: int, scope: str) -> None:
        if strategy not in STRATEGIES:
            raise RetrievalError(
                f"Unknown strategy {strategy!r}: choose one of {', '.join(STRATEGIES)}."
            )
        if not isinstance(k, int) or k <= 0:
            raise RetrievalError(f"k must be greater than 0 (got {k!r}).")
        if not query or not query.strip():
            raise RetrievalError("The query is empty: type what you are looking for.")
        if scope not in SCOPES:
            raise RetrievalError(f"Unknown scope {scope!r}: choose one of {', '.join(SCOPES)}.")

    def _candidates(self, rankings, documents) -> list[Hit]:
        """Hits with their per-stage scores, in first-stage order (fused when several)."""
        stages: dict[str, dict[str, StageScore]] = {}
        for stage, ranked in rankings.items():
            for rank, (cid, score) in enumerate(ranked, start=1):
                stages.setdefault(cid, {})[stage] = StageScore(rank=rank, score=score)
        if len(rankings) > 1:
            weights = [self.settings.vector_weight if stage == "vector" else 1.0
                       for stage in rankings]
            order = rrf([[c for c, _ in ranked] for ranked in rankings.values()],
                        self.settings.rrf_k, weights)
            for rank, (cid, score) in enumerate(order, start=1):
                stages[cid]["fused"] = StageScore(rank=rank, score=score)
        else:
            order = next(iter(rankings.values()), [])
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
