"""Ranking metrics over one ranked list: recall@k, reciprocal rank, nDCG@k.

Pure functions on ranks and gains, shared by the evaluation runner and
``core.bench.measure``:

- ``recall_at_k(first_ranks, k)``: share of gold items whose first matching
  chunk is ranked ``<= k`` (each gold item is a needed piece of evidence);
- ``reciprocal_rank(gains, k)``: 1 / rank of the first relevant chunk within
  the top ``k`` (0 when none), averaged over questions it gives MRR@k;
- ``ndcg_at_k(gains, ideal_gains, k)``: DCG with graded gains (a chunk's gain
  is the number of gold items it matches) and the log2(rank + 1) discount of
  Järvelin & Kekäläinen (2002), divided by the DCG of the ideal ordering of all
  relevant chunks in the corpus (``ideal_gains``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def _check_k(k: int) -> None:
    if not isinstance(k, int) or k <= 0:
        raise ValueError(f"k must be greater than 0 (got {k!r})")


def recall_at_k(first_ranks: Sequence[int | None], k: int) -> float | None:
    """Share of items found at rank ``<= k``; None when there is no item."""
    _check_k(k)
    if not first_ranks:
        return None
    return sum(1 for r in first_ranks if r is not None and r <= k) / len(first_ranks)


def reciprocal_rank(gains: Sequence[float], k: int = 10) -> float:
    """1 / rank of the first item with a positive gain among the top ``k``; 0 if none."""
    _check_k(k)
    for rank, gain in enumerate(gains[:k], start=1):
        if gain > 0:
            return 1.0 / rank
    return 0.0


def dcg_at_k(gains: Sequence[float], k: int) -> float:
    """Discounted cumulative gain: sum of gain_i / log2(i + 1) over ranks i = 1..k."""
    _check_k(k)
    return sum(g / math.log2(i + 1) for i, g in enumerate(gains[:k], start=1))


def ndcg_at_k(gains: Sequence[float], ideal_gains: Sequence[float], k: int = 10) -> float | None:
    """DCG@k of ``gains`` over DCG@k of ``ideal_gains`` sorted best first.

    None when nothing in the ideal list is relevant (the metric is undefined).
    """
    ideal = dcg_at_k(sorted(ideal_gains, reverse=True), k)
    if ideal <= 0:
        return None
    return min(1.0, dcg_at_k(gains, k) / ideal)


def mean(values: Sequence[float | None]) -> float | None:
    """Mean of the values that are not None (None when there are none)."""
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None
