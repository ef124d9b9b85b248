"""Retrieval measurement on benchmark sets written by others (``python -m
core.bench.measure``): loaders (``sets``), the hit rule (``judge``) and the runner
(``run``). Every retrieval decision in this project is taken on its figures."""

from core.bench.measure.judge import first_hit_rank, is_hit
from core.bench.measure.sets import BenchQuestion, BenchSet, load_set

__all__ = ["BenchQuestion", "BenchSet", "first_hit_rank", "is_hit", "load_set"]
