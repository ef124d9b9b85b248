"""The one registry of retrieval strategies, read by the retriever, the agent, the CLI,
evaluation, measurement and the UI: adding a strategy is one entry here (and its
retriever in ``core.retrieval.retriever``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StrategySpec:
    """A first-stage retrieval strategy."""

    name: str
    label: str
    help: str
    retrievers: tuple[str, ...]

    @property
    def fused(self) -> bool:
        """Whether several rankings are fused (reciprocal rank fusion)."""
        return len(self.retrievers) > 1


STRATEGIES: dict[str, StrategySpec] = {s.name: s for s in (
    StrategySpec("vector", "Vector", "semantic search: embedding cosine similarity",
                 ("vector",)),
    StrategySpec("keyword", "Keyword (BM25)",
                 "exact terms, names and figures: BM25 over the filing's words", ("keyword",)),
    StrategySpec("hybrid", "Hybrid", "both rankings fused by reciprocal rank fusion (k = 60)",
                 ("vector", "keyword")),
)}
STRATEGY_NAMES: tuple[str, ...] = tuple(STRATEGIES)
DEFAULT_STRATEGY = "hybrid"
PLAIN = "plain"


def measured_configs() -> list[tuple[str, str, bool]]:
    """(name, strategy, rerank) rows that evaluation and measurement report: every
    strategy without reranking, the default strategy reranked, and the plain recipe."""
    rows = [(name, name, False) for name in STRATEGIES]
    rows.append((f"{DEFAULT_STRATEGY}+rerank", DEFAULT_STRATEGY, True))
    rows.append((PLAIN, PLAIN, False))
    return rows
