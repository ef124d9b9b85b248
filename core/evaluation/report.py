"""Aggregates and text reports of an evaluation; deltas between two evaluations."""

from __future__ import annotations

from typing import Any

from core.evaluation.ranking import mean
from core.evaluation.results import (
    ANSWER_METRICS,
    RECALL_KS,
    EvalManifest,
    EvalSummary,
    QuestionResult,
    RetrievalResult,
)

COST_KEYS: tuple[str, ...] = ("wall_s", "llm_calls", "tokens", "judge_tokens")
RETRIEVAL_KEYS: tuple[str, ...] = tuple(f"recall@{k}" for k in RECALL_KS) + ("mrr@10", "ndcg@10")
LABELS = {
    "faithfulness": "faithful", "answer_correctness": "correct",
    "numeric_correctness": "fig first", "numeric_anywhere": "fig any",
    "verdict_correct": "verdict", "figures_correct": "figs right",
    "context_precision": "ctx prec", "context_recall": "ctx rec",
    "gold_evidence_recall": "gold ev", "citation_validity": "cite valid",
    "cited_sentences": "cited", "self_check": "self-check", "wall_s": "sec",
    "llm_calls": "calls", "tokens": "tokens", "judge_tokens": "judge tok",
}


def summarise(manifest: EvalManifest, results: list[QuestionResult],
              retrieval: list[RetrievalResult]) -> EvalSummary:
    """Mean of every metric per system (done runs only) and per retrieval strategy."""
    summary = EvalSummary(id=manifest.id)
    for system in manifest.systems:
        mine = [r for r in results if r.system == system]
        done = [r for r in mine if r.status == "done"]
        row: dict[str, float | None] = {
            key: mean([r.metrics[key].value for r in done if key in r.metrics])
            for key in ANSWER_METRICS}
        row["wall_s"] = mean([r.cost.wall_s for r in done])
        row["llm_calls"] = mean([float(r.cost.llm_calls) for r in done])
        row["tokens"] = mean([float(r.cost.tokens) for r in done])
        row["judge_tokens"] = mean([float(sum(m.judge_tokens for m in r.metrics.values()))
                                    for r in done])
        summary.systems[system] = row
        summary.counts[system] = len(mine)
        summary.failures[system] = len(mine) - len(done)
        for r in done:
            for key, m in r.metrics.items():
                names = summary.metric_names.setdefault(key, [])
                if m.name not in names:
                    names.append(m.name)
    for strategy in manifest.strategies:
        mine = [r for r in retrieval if r.strategy == strategy]
        row = {f"recall@{k}": mean([r.recall.get(k) for r in mine]) for k in RECALL_KS}
        row["mrr@10"] = mean([r.mrr_at_10 for r in mine])
        row["ndcg@10"] = mean([r.ndcg_at_10 for r in mine])
        summary.retrieval[strategy] = row
        summary.counts[strategy] = len(mine)
    return summary


def _fmt(value: float | None, key: str) -> str:
    if value is None:
        return "–"
    if key == "wall_s":
        return f"{value:.2f}"
    if key in ("llm_calls", "tokens", "judge_tokens"):
        return f"{value:.0f}" if value >= 10 or value == int(value) else f"{value:.1f}"
    return f"{value:.3f}"


def _table(head: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if i else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True)))

    return "\n".join([line(head), line(["-" * w for w in widths]), *map(line, rows)])


def format_summary(manifest: EvalManifest, summary: EvalSummary) -> str:
    """Plain-text tables: answer metrics and cost per system, retrieval per strategy."""
    out = [f"evaluation {manifest.id}: set {manifest.set_name} ({manifest.n_questions} "
           f"questions), systems on {manifest.backend}, judge {manifest.judge}, "
           f"embedder {manifest.embedder}"]
    if summary.systems:
        keys = [*ANSWER_METRICS, *COST_KEYS]
        rows = [[system, *(_fmt(vals.get(k), k) for k in keys),
                 f"{summary.counts.get(system, 0) - summary.failures.get(system, 0)}/"
                 f"{summary.counts.get(system, 0)}"]
                for system, vals in summary.systems.items()]
        out += ["", _table(["system", *(LABELS[k] for k in keys), "ok"], rows)]
        out += ["", "metrics (as computed):"]
        out += [f"  {LABELS.get(k, k)}: {'; '.join(names)}"
                for k, names in summary.metric_names.items()]
    if summary.retrieval:
        rows = [[strategy, *(_fmt(vals.get(k), k) for k in RETRIEVAL_KEYS),
                 str(summary.counts.get(strategy, 0))]
                for strategy, vals in summary.retrieval.items()]
        out += ["", f"retrieval (open search over the corpus, top 10; reranker "
                    f"{manifest.reranker or '-'}):",
                _table(["strategy", *RETRIEVAL_KEYS, "questions"], rows)]
    if manifest.warnings:
        out += ["", "warnings:"] + [f"  - {w}" for w in manifest.warnings]
    return "\n".join(out)


def deltas(current: EvalSummary, previous: EvalSummary) -> list[dict[str, Any]]:
    """Rows ``{group, metric, current, previous, delta}`` for metrics both evaluations have."""
    rows: list[dict[str, Any]] = []
    for kind, cur, prev in (("system", current.systems, previous.systems),
                            ("retrieval", current.retrieval, previous.retrieval)):
        for group, values in cur.items():
            for metric, value in values.items():
                before = prev.get(group, {}).get(metric)
                if value is None and before is None:
                    continue
                delta = value - before if value is not None and before is not None else None
                rows.append({"kind": kind, "group": group, "metric": metric, "current": value,
                             "previous": before, "delta": delta})
    return rows
