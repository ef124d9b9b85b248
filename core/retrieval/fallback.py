"""Local rerankers used when no cross-encoder's weights are available.

All of them score the query they are given (the agent's rewritten query), use
the chunk vectors already stored in Chroma (no re-encoding of chunks) and the
corpus-wide BM25 statistics. Methods (figures: data/bench/RESULTS.md):

* ``rrf``      RRF (k = settings.rrf_k) of two rankings of the candidates: MiniLM
  cosine(query, chunk vector) and BM25(query, chunk).
* ``rrf3``     as ``rrf`` plus the order the candidates arrived in (the first-stage
  ranking), so reranking refines rather than replaces retrieval.
* ``blend``    0.5 * min-max(cosine) + 0.5 * min-max(BM25).
* ``maxsim``   max cosine between the query and the chunk's sentences (encoded at
  query time), fused by RRF with BM25 and the arrival order.
"""

from __future__ import annotations

import re
from typing import Literal

import numpy as np

from core.retrieval.fusion import rrf
from core.types import Hit, RerankerInfo, StageScore

Method = Literal["rrf", "rrf3", "blend", "maxsim"]
METHODS: tuple[str, ...] = ("rrf", "rrf3", "blend", "maxsim")
DEFAULT_METHOD: Method = "rrf3"

_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")


def _minmax(values: np.ndarray) -> np.ndarray:
    lo, hi = float(values.min()), float(values.max())
    return np.zeros_like(values) if hi - lo < 1e-12 else (values - lo) / (hi - lo)


def _order(ids: list[str], scores: np.ndarray) -> list[str]:
    return [ids[i] for i in np.argsort(-scores, kind="stable")]


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
        self.info = RerankerInfo(
            name=f"fallback:{method} ({embedder.name} cosine + BM25)",
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

    def scores(self, query: str, hits: list[Hit]) -> np.ndarray:
        """One score per hit, higher is better."""
        ids = [h.chunk.chunk_id for h in hits]
        qvec = self.embedder.encode([query])[0]
        bm = self.store.keyword_scores(query, ids)
        bm25 = np.array([bm.get(i, 0.0) for i in ids], dtype=np.float64)
        if self.method == "blend":
            cos = self._cosines(qvec, hits)
            return 0.5 * _minmax(cos.astype(np.float64)) + 0.5 * _minmax(bm25)
        rankings = [_order(ids, bm25)]
        if self.method == "maxsim":
            rankings.append(_order(ids, self._maxsim(qvec, hits)))
        else:
            rankings.append(_order(ids, self._cosines(qvec, hits)))
        if self.method in ("rrf3", "maxsim"):
            rankings.append(ids)
        fused = dict(rrf(rankings, self.rrf_k))
        return np.array([fused[i] for i in ids])

    def rerank(self, query: str, hits: list[Hit], top_n: int) -> list[Hit]:
        """The ``top_n`` best hits for ``query``, each with a ``reranked`` stage score."""
        if not hits:
            return []
        scores = self.scores(query, hits)
        order = np.argsort(-scores, kind="stable")[:top_n]
        out = []
        for rank, i in enumerate(order, start=1):
            hit = hits[i].model_copy(deep=True)
            hit.stages["reranked"] = StageScore(rank=rank, score=float(scores[i]))
            hit.rank, hit.score = rank, float(scores[i])
            out.append(hit)
        return out
