"""Retrieval metrics per strategy against the filing gold evidence, with a ranked-list cache.

For each question with filing gold items and each configuration (keyword,
vector, hybrid, hybrid+rerank) the top 10 chunks of an open search (whole
corpus, no filter) are scored: recall@1/3/5/10 over the gold items, MRR@10 and
nDCG@10 with the ideal ordering of every relevant chunk in the corpus
(``core.evaluation.ranking``). Ranked lists are cached on disk; the key is the
question, the configuration, the corpus (its doc ids) and the settings that
change a ranking (embedder, reranker, top_k, rrf_k, chunking, tokenizer).
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from core.evaluation.gold import GoldTarget, Piece, first_ranks, gains
from core.evaluation.ranking import ndcg_at_k, recall_at_k, reciprocal_rank
from core.evaluation.results import RECALL_KS, STRATEGIES, RetrievalResult
from core.foundation.config import Settings
from core.foundation.types import Chunk

DEPTH = 10


class CachedRanking(BaseModel):
    """A ranked list as cached: the chunks (text included, so new gold can be re-scored)."""

    key: str
    chunks: list[Chunk] = Field(default_factory=list)
    reranker: str | None = None
    latency_ms: float = 0.0


def corpus_fingerprint(store: Any) -> list[str]:
    """The corpus's identity for caching: its sorted doc ids."""
    return sorted(d.doc_id for d in store.documents())


def cache_key(question: str, strategy: str, doc_ids: list[str], settings: Settings,
              embedder_name: str, reranker_name: str | None) -> str:
    """Hash of every input that can change the ranked list."""
    from core.store.tokenize import TOKENIZER_VERSION

    strat, rerank = STRATEGIES[strategy]
    parts = {
        "q": question, "strategy": strat, "rerank": rerank, "depth": DEPTH, "docs": doc_ids,
        "embedder": embedder_name, "reranker": reranker_name if rerank else None,
        "top_k": settings.top_k, "rrf_k": settings.rrf_k, "chunk_size": settings.chunk_size,
        "chunk_overlap": settings.chunk_overlap, "tokenizer": TOKENIZER_VERSION,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:24]


def ranked_list(retriever: Any, question: str, strategy: str, key: str,
                cache_dir: Path | None) -> tuple[CachedRanking, bool]:
    """The top chunks for ``question`` (from the cache when present): (ranking, cached)."""
    from core.evaluation.storage import read_model, write_model

    path = cache_dir / f"{key}.json" if cache_dir is not None else None
    if path is not None and (hit := read_model(path, CachedRanking)) is not None:
        return hit, True
    strat, rerank = STRATEGIES[strategy]
    t0 = time.perf_counter()
    result = retriever.search(question, strategy=strat, k=DEPTH, rerank=rerank)
    ranking = CachedRanking(key=key, chunks=[h.chunk for h in result.hits],
                            reranker=result.reranker.name if result.reranker else None,
                            latency_ms=round((time.perf_counter() - t0) * 1000, 1))
    if path is not None:
        write_model(path, ranking)
    return ranking, False


def ideal_gains(store: Any, targets: list[GoldTarget],
                memo: dict[str, list[Piece]] | None = None) -> list[int]:
    """Gains of every relevant chunk of the gold documents (for nDCG's ideal ordering).

    ``memo`` keeps each document's chunks between calls (one evaluation reads them once).
    """
    memo = {} if memo is None else memo
    doc_ids = sorted({t.doc_id for t in targets if t.kind == "filing" and t.doc_id})
    for d in doc_ids:
        if d not in memo:
            memo[d] = [Piece.from_chunk(c) for c in store.chunks(d)]
    pieces = [p for d in doc_ids for p in memo[d]]
    return [g for g in gains(pieces, targets) if g > 0]


def score_ranking(question_id: str, strategy: str, ranking: CachedRanking, cached: bool,
                  targets: list[GoldTarget], ideal: list[int]) -> RetrievalResult:
    """Recall@k, MRR@10 and nDCG@10 of ``ranking`` against the filing ``targets``."""
    pieces = [Piece.from_chunk(c) for c in ranking.chunks]
    g = gains(pieces, targets)
    ranks = first_ranks(pieces, targets)
    return RetrievalResult(
        question_id=question_id, strategy=strategy, cache_key=ranking.key, cached=cached,
        ranked=[{"id": c.chunk_id, "doc_id": c.doc_id, "section": c.section, "page": c.page,
                 "gain": gain} for c, gain in zip(ranking.chunks, g, strict=True)],
        n_gold=len(targets), first_ranks=ranks,
        recall={k: recall_at_k(ranks, k) for k in RECALL_KS},
        mrr_at_10=reciprocal_rank(g, DEPTH) if targets else None,
        ndcg_at_10=ndcg_at_k(g, ideal, DEPTH), latency_ms=ranking.latency_ms,
        reranker=ranking.reranker,
    )


def coverable(store: Any, targets: list[GoldTarget], memo: dict[str, list[Piece]] | None = None
              ) -> tuple[list[GoldTarget], list[GoldTarget]]:
    """Split filing ``targets`` into those some corpus chunk matches and those none does."""
    ok, lost = [], []
    for t in targets:
        if t.kind != "filing":
            continue
        (ok if ideal_gains(store, [t], memo) else lost).append(t)
    return ok, lost


def reranks(info: Any) -> bool:
    """Whether the active reranker (a ``RerankerInfo``) changes an order at all."""
    return info is not None and getattr(info, "kind", "none") != "none"


def offered_strategies(info: Any) -> list[str]:
    """The configurations worth scoring with the active reranker: a reranked one only when a
    reranker is active (with none, "hybrid+rerank" would rank exactly like "hybrid")."""
    return [name for name, (_, rerank) in STRATEGIES.items() if reranks(info) or not rerank]


def strategy_label(name: str, info: Any) -> str:
    """What a configuration really does: "hybrid + re-ranked by cross-encoder ms-marco-...",
    or, with no reranker active, "hybrid+rerank (no re-ranker active: hybrid's order)"."""
    strategy, rerank = STRATEGIES.get(name, (name, False))
    if not rerank:
        return name
    if reranks(info):
        return f"{strategy} + re-ranked by {info.name}"
    return f"{name} (no re-ranker active: {strategy}'s order)"


def follow_reranker(strategies: list[str], info: Any) -> tuple[list[str], list[str]]:
    """(``strategies`` the active reranker can score, a warning per one dropped): a reranked
    configuration asked for while no reranker is active is dropped and said, never scored as
    if it had been reranked."""
    offered = set(offered_strategies(info))
    kept = [s for s in strategies if s in offered]
    reason = getattr(info, "reason", "") if info is not None else ""
    notes = [f"{s} not scored: no re-ranker is active, so it would rank exactly like "
             f"{STRATEGIES[s][0]}" + (f" ({reason})" if reason else "")
             for s in strategies if s not in offered]
    return kept, notes
