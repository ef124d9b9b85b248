"""Reciprocal rank fusion.

RRF scores an item by summing ``1 / (k + rank)`` over every ranked list it
appears in (rank is 1-based). The constant ``k = 60`` comes from Cormack,
Clarke & Buettcher, "Reciprocal Rank Fusion outperforms Condorcet and
individual Rank Learning Methods", SIGIR 2009; it damps the weight of the very
first ranks so one list cannot dominate. It is ``Settings.rrf_k``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence


def rrf(rankings: Sequence[Sequence[Hashable]], k: int = 60,
        weights: Sequence[float] | None = None) -> list[tuple[Hashable, float]]:
    """Fuse ranked lists of ids; returns ``(id, score)`` best first.

    ``weights`` (one per list, default 1) scale each list's ``1 / (k + rank)`` terms
    (weighted RRF). Ties keep the order in which ids were first seen (earlier lists
    first), so the result is deterministic.
    """
    if k <= 0:
        raise ValueError("RRF constant k must be greater than 0")
    weights = list(weights) if weights is not None else [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError("give one weight per ranking")
    scores: dict[Hashable, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    order = {item: i for i, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))
