"""The one registry of retrieval strategies and rerankers, read by the retriever, the agent,
the CLI, evaluation, measurement and the UI: adding a strategy is one entry here (and its
retriever in ``core.retrieval.retriever``); adding a reranker is one entry here and its
construction in ``core.retrieval.rerank``."""

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


@dataclass(frozen=True)
class RerankerSpec:
    """A reranker the settings may name (``Settings.reranker``)."""

    name: str
    label: str
    help: str


RERANKERS: dict[str, RerankerSpec] = {r.name: r for r in (
    RerankerSpec("auto", "Automatic",
                 "the cross-encoder when its weights are on this machine, else the best "
                 "measured offline choice"),
    RerankerSpec("cross-encoder", "Cross-encoder", "a sentence-transformers cross-encoder"),
    RerankerSpec("llm", "LLM", "the configured LLM grades the top candidates in one call "
                 "per search (counted in the run's budget)"),
    RerankerSpec("none", "None", "keep the first-stage (fused) order"),
    RerankerSpec("lexical", "Lexical fallback",
                 "BM25 + best-sentence BM25 + first-stage order, fused by RRF"),
    RerankerSpec("passage", "Passage fallback", "lexical plus embedding cosine"),
    RerankerSpec("rrf", "RRF fallback", "embedding cosine and BM25, fused by RRF"),
    RerankerSpec("rrf3", "RRF3 fallback", "rrf plus the first-stage order"),
    RerankerSpec("blend", "Blend fallback", "min-max blend of cosine and BM25"),
    RerankerSpec("maxsim", "MaxSim fallback", "best sentence cosine, encoded at query time"),
)}


def measured_configs() -> list[tuple[str, str, bool]]:
    """(name, strategy, rerank) rows that evaluation and measurement report: every
    strategy without reranking, the default strategy reranked, and the plain recipe."""
    rows = [(name, name, False) for name in STRATEGIES]
    rows.append((f"{DEFAULT_STRATEGY}+rerank", DEFAULT_STRATEGY, True))
    rows.append((PLAIN, PLAIN, False))
    return rows
