"""Reciprocal rank fusion.

RRF scores an item by summing ``1 / (k + rank)`` over every ranked list it
appears in (rank is 1-based). The constant ``k = 60`` comes from Cormack,
Clarke & Buettcher, "Reciprocal Rank Fusion outperforms Condorcet and
individual Rank Learning Methods", SIGIR 2009; it damps the weight of the very
first ranks so one list cannot dominate. It is ``Settings.rrf_k``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence


def rrf(rankings: Sequence[Sequence[Hashable]], k: int = 60) -> list[tuple[Hashable, float]]:
    """Fuse ranked lists of ids; returns ``(id, score)`` best first.

    Ties keep the order in which ids were first seen (earlier lists first), so
    the result is deterministic.
    """
    if k <= 0:
        raise ValueError("RRF constant k must be greater than 0")
    scores: dict[Hashable, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    order = {item: i for i, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))
