"""Evaluation records: metric scores, per-question results, retrieval results, manifest, summary.

All are pydantic models saved as JSON under ``settings.data_dir/evals/<id>/``
(see ``core.evaluation.storage``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from core.foundation.strategies import PLAIN, measured_configs

SYSTEMS: tuple[str, ...] = ("baseline", "deep")
STRATEGIES: dict[str, tuple[str, bool]] = {
    name: (strategy, rerank) for name, strategy, rerank in measured_configs()
    if strategy != PLAIN
}
"""Retrieval configurations (from ``core.foundation.strategies``, as ``python -m
core.bench.measure`` reports them): name -> (retriever strategy, rerank)."""
RECALL_KS: tuple[int, ...] = (1, 3, 5, 10)
ANSWER_METRICS: tuple[str, ...] = (
    "faithfulness", "answer_correctness", "numeric_correctness", "numeric_anywhere",
    "verdict_correct", "figures_correct", "context_precision", "context_recall",
    "gold_evidence_recall", "citation_validity", "cited_sentences", "self_check",
)


class MetricScore(BaseModel):
    """One metric's value for one answer, with the judge that computed it."""

    key: str = Field(description="Stable metric key, e.g. 'faithfulness'.")
    name: str = Field(description="Display name saying how it was computed (LLM or offline).")
    judge: str = Field(description="'llm:<model>', 'offline' or 'rule' (no judgement needed).")
    value: float | None = Field(default=None, description="0..1; None when not applicable.")
    details: dict[str, Any] = Field(default_factory=dict, description="Verdicts behind the value.")
    judge_calls: int = Field(default=0, description="LLM calls the judge spent.")
    judge_tokens: int = Field(default=0, description="Tokens the judge spent.")
    note: str | None = Field(default=None, description="Why not applicable, or a fallback.")


class Cost(BaseModel):
    """What one run cost (from its RunRecord)."""

    wall_s: float = Field(default=0.0, description="Wall time of the run in seconds.")
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class QuestionResult(BaseModel):
    """One system's run on one question and its scores."""

    question_id: str
    system: str = Field(description="'baseline' or 'deep'.")
    fingerprint: str = Field(description="Hash of the inputs; a match lets a resumed eval skip.")
    question: str
    run_id: str | None = Field(default=None, description="Saved RunRecord (see core.app.runs).")
    status: str = Field(default="done", description="'done' or 'failed'.")
    answer: str = ""
    n_evidence: int = 0
    metrics: dict[str, MetricScore] = Field(default_factory=dict)
    cost: Cost = Field(default_factory=Cost)
    eval_s: float = Field(default=0.0, description="Seconds spent scoring (judge included).")
    error: str | None = None
    finished: str = ""


class RetrievalResult(BaseModel):
    """One retrieval configuration on one question, scored against the filing gold items."""

    question_id: str
    strategy: str = Field(description="keyword, vector, hybrid or hybrid+rerank.")
    cache_key: str = Field(description="Key of the cached ranked list used.")
    cached: bool = Field(default=False, description="Whether the ranking came from the cache.")
    ranked: list[dict[str, Any]] = Field(
        default_factory=list, description="Top chunks: id, doc_id, section, page, gain.")
    n_gold: int = Field(default=0, description="Filing gold items that exist in the corpus.")
    first_ranks: list[int | None] = Field(default_factory=list, description="Per gold item.")
    recall: dict[int, float | None] = Field(default_factory=dict, description="k -> recall@k.")
    mrr_at_10: float | None = None
    ndcg_at_10: float | None = None
    latency_ms: float = 0.0
    reranker: str | None = None


class EvalManifest(BaseModel):
    """What an evaluation ran: set, systems, strategies, judge, corpus and settings."""

    id: str
    set_name: str
    set_source: str = ""
    set_sha: str
    created: str
    updated: str = ""
    systems: list[str]
    strategies: list[str]
    judge: str
    backend: str = Field(description="The systems' LLM or 'offline engine'.")
    embedder: str
    reranker: str = ""
    corpus: list[str] = Field(default_factory=list, description="Doc ids of the corpus.")
    n_questions: int
    status: str = Field(default="running", description="'running', 'done' or 'failed'.")
    warnings: list[str] = Field(default_factory=list)


class EvalSummary(BaseModel):
    """Aggregates: mean of each metric per system and per retrieval configuration."""

    id: str
    systems: dict[str, dict[str, float | None]] = Field(
        default_factory=dict, description="system -> metric key (and cost keys) -> mean.")
    retrieval: dict[str, dict[str, float | None]] = Field(
        default_factory=dict, description="strategy -> recall@k, mrr@10, ndcg@10 -> mean.")
    metric_names: dict[str, list[str]] = Field(
        default_factory=dict, description="metric key -> the names (judges) that computed it.")
    counts: dict[str, int] = Field(default_factory=dict, description="Results per system.")
    failures: dict[str, int] = Field(default_factory=dict, description="Failed runs per system.")
