"""Local rerankers used when no cross-encoder's weights are available.

All of them score the query they are given (the agent's rewritten query) and
use what the store already holds: chunk vectors from Chroma (no re-encoding of
chunks) and the corpus-wide BM25 statistics. Rankings are fused by RRF
(k = settings.rrf_k). Methods, measured on real filings (data/bench/RESULTS.md):

* ``lexical`` (default) RRF of BM25(query, chunk), best-sentence BM25 (the chunk's
  best sentence or table row: sum of the IDF of the query terms it contains) and
  the order the candidates arrived in (the first-stage ranking, so reranking
  refines retrieval rather than replacing it). Best measured, ~35 ms.
* ``passage`` as ``lexical`` plus MiniLM cosine(query, stored chunk vector).
* ``rrf``     MiniLM cosine and BM25 only (the design's first suggestion).
* ``rrf3``    ``rrf`` plus the arrival order.
* ``blend``   0.5 * min-max(cosine) + 0.5 * min-max(BM25).
* ``maxsim``  max cosine between the query and each sentence of the chunk, encoded
  at query time, with BM25 and the arrival order: as good as ``lexical`` on
  recall but ~5 s per search on 2 CPUs, so only a reference.
"""

from __future__ import annotations

import re
from typing import Literal

import numpy as np

from core.foundation.types import Hit, RerankerInfo, StageScore
from core.retrieval.fusion import rrf
from core.store.tokenize import tokenize


def apply_rerank_scores(hits: list[Hit], scores: np.ndarray, top_n: int) -> list[Hit]:
    """The ``top_n`` hits by ``scores`` (stable on ties), each with its ``reranked`` stage."""
    order = np.argsort(-scores, kind="stable")[:top_n]
    out = []
    for rank, i in enumerate(order, start=1):
        hit = hits[i].model_copy(deep=True)
        hit.stages["reranked"] = StageScore(rank=rank, score=float(scores[i]))
        hit.rank, hit.score = rank, float(scores[i])
        out.append(hit)
    return out

Method = Literal["lexical", "passage", "rrf", "rrf3", "blend", "maxsim"]
METHODS: tuple[str, ...] = ("lexical", "passage", "rrf", "rrf3", "blend", "maxsim")
DEFAULT_METHOD: Method = "lexical"
_USES_COSINE = {"passage", "rrf", "rrf3", "blend"}

_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")


def _minmax(values: np.ndarray) -> np.ndarray:
    lo, hi = float(values.min()), float(values.max())
    return np.zeros_like(values) if hi - lo < 1e-12 else (values - lo) / (hi - lo)


def _order(ids: list[str], scores: np.ndarray, *, matched_only: bool = False) -> list[str]:
    """Ids best first; with ``matched_only`` items scoring 0 (no query term) are left out,
    so they get no credit from that ranking in RRF."""
    order = np.argsort(-scores, kind="stable")
    return [ids[i] for i in order if not matched_only or scores[i] > 0]


class FallbackReranker:
    """Reranks candidates with the bundled embedder and BM25 (see the module docstring)."""

    def __init__(self, embedder, store, *, rrf_k: int = 60, method: Method = DEFAULT_METHOD,
                 reason: str = ""):
        if method not in METHODS:
            raise ValueError(f"unknown fallback method {method!r}; choose one of {METHODS}")
        self.embedder = embedder
        self.store = store
        self.rrf_k = rrf_k
        self.method = method
        signals = "BM25 + best-sentence BM25 + first-stage order"
        if method in _USES_COSINE:
            signals = f"{embedder.name} cosine + BM25"
        self.info = RerankerInfo(
            name=f"fallback:{method} ({signals})",
            kind="fallback",
            reason=reason or "chosen explicitly",
        )

    def _cosines(self, qvec: np.ndarray, hits: list[Hit]) -> np.ndarray:
        ids = [h.chunk.chunk_id for h in hits]
        stored = self.store.get_vectors(ids)
        missing = [h.chunk for h in hits if h.chunk.chunk_id not in stored]
        if missing:  # e.g. hits built outside the store: encode them once
            for c, v in zip(missing, self.embedder.encode([c.text for c in missing]), strict=True):
                stored[c.chunk_id] = v
        mat = np.stack([stored[i] for i in ids])
        return mat @ qvec

    def _maxsim(self, qvec: np.ndarray, hits: list[Hit]) -> np.ndarray:
        sentences: list[str] = []
        owner: list[int] = []
        for i, h in enumerate(hits):
            parts = [s for s in _SENTENCE.split(h.chunk.text) if len(s.split()) >= 3]
            for s in parts or [h.chunk.text]:
                sentences.append(s[:1000])
                owner.append(i)
        sims = self.embedder.encode(sentences) @ qvec
        best = np.full(len(hits), -1.0, dtype=np.float32)
        np.maximum.at(best, np.asarray(owner), sims)
        return best

    def _best_sentence(self, query: str, hits: list[Hit]) -> np.ndarray:
        terms = set(tokenize(query))
        idf = self.store.keyword_idf(sorted(terms))
        best = np.zeros(len(hits))
        for i, h in enumerate(hits):
            for sentence in _SENTENCE.split(h.chunk.text):
                found = terms.intersection(tokenize(sentence))
                best[i] = max(best[i], sum(idf[t] for t in found))
        return best

    def scores(self, query: str, hits: list[Hit]) -> np.ndarray:
        """One score per hit, higher is better."""
        ids = [h.chunk.chunk_id for h in hits]
        bm = self.store.keyword_scores(query, ids)
        bm25 = np.array([bm.get(i, 0.0) for i in ids], dtype=np.float64)
        qvec = self.embedder.encode([query])[0] if self.method != "lexical" else None
        if self.method == "blend":
            cos = self._cosines(qvec, hits)
            return 0.5 * _minmax(cos.astype(np.float64)) + 0.5 * _minmax(bm25)
        rankings = [_order(ids, bm25, matched_only=True)]
        if self.method in ("lexical", "passage"):
            rankings.append(_order(ids, self._best_sentence(query, hits), matched_only=True))
        if self.method in _USES_COSINE:
            rankings.append(_order(ids, self._cosines(qvec, hits)))
        if self.method == "maxsim":
            rankings.append(_order(ids, self._maxsim(qvec, hits)))
        if self.method != "rrf":
            rankings.append(ids)
        fused = dict(rrf(rankings, self.rrf_k))
        return np.array([fused[i] for i in ids])

    def rerank(self, query: str, hits: list[Hit], top_n: int) -> list[Hit]:
        """The ``top_n`` best hits for ``query``, each with a ``reranked`` stage score."""
        if not hits:
            return []
        return apply_rerank_scores(hits, self.scores(query, hits), top_n)
