"""Evaluation renderers: tables and plotly charts of saved evaluations (no business logic).

Frame builders (``*_frame``) turn records from ``core.evaluation`` into pandas
DataFrames; figure builders (``*_figure``) turn frames into plotly figures;
``render_*`` draw them. The Evaluate page's session keys live here too
(prefixed ``eval_``), as ``components/keys.py`` does for the other pages.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st

from components.text import preview
from core.evaluation.report import RETRIEVAL_KEYS
from core.evaluation.results import ANSWER_METRICS, RECALL_KS, EvalSummary, QuestionResult

# --- session keys of the Evaluate page ------------------------------------------------
EVAL_SET = "eval_set"  # chosen set: a shipped file name or UPLOAD
EVAL_UPLOAD_NONCE = "eval_upload_nonce"  # bumped to clear the uploader
EVAL_SYSTEMS = "eval_systems"
EVAL_STRATEGIES = "eval_strategies"
EVAL_LIMIT = "eval_limit"  # only the first N questions (0: all)
EVAL_NAME = "eval_name"  # evaluation name to resume (empty: a new one)
EVAL_SHOWN = "eval_shown_id"  # evaluation on screen
EVAL_FOLLOWED = "eval_followed"  # (id, job start) of the evaluation last put on screen
EVAL_PREVIOUS = "eval_previous_id"  # evaluation to compare with
EVAL_DRILL = "eval_drill_question"  # question id opened in the drill-down
EVAL_DRILL_SYSTEM = "eval_drill_system"
EVAL_QUALITY = "eval_quality_metric"  # y axis of the cost vs quality scatter
EVAL_CORPUS = "eval_corpus"  # "yours" or "sample" (the sample corpus, kept apart)
EVAL_LOAD_SAMPLE = "eval_load_sample"  # load the sample filing into the sample corpus now

SYSTEM_COLOURS = {"baseline": "#8c8c8c", "deep": "#1f4e79"}
STRATEGY_COLOURS = {"keyword": "#b35900", "vector": "#2e7d32", "hybrid": "#6a1b9a",
                    "hybrid+rerank": "#1f4e79"}


def reranker_note(info: Any) -> str:
    """What re-ranking does in an evaluation run now, in words (from ``RerankerInfo``)."""
    if info is None or getattr(info, "kind", "none") == "none":
        return ("No re-ranker is active (Settings → Ranking), so results keep the search's own "
                "order and hybrid+rerank is not offered (it would rank exactly like hybrid).")
    return f"hybrid+rerank re-orders hybrid's results with {info.name} ({info.kind})."


def rerank_was_none(manifest: Any) -> bool:
    """Whether a saved evaluation scored strategies while no reranker was active."""
    name = (getattr(manifest, "reranker", "") or "").strip().lower()
    return bool(getattr(manifest, "strategies", None)) and name.startswith("none")


LAYOUT = dict(margin=dict(l=10, r=10, t=40, b=10), legend=dict(orientation="h", y=-0.2))


# Plain column headings (the CLI keeps its short ones) and what each metric means
LABELS = {
    "faithfulness": "Faithfulness", "answer_correctness": "Correctness",
    "numeric_correctness": "First figure right", "numeric_anywhere": "Figure stated",
    "verdict_correct": "Verdict right", "figures_correct": "Figures right",
    "context_precision": "Context precision", "context_recall": "Context recall",
    "gold_evidence_recall": "Gold evidence found", "citation_validity": "Valid citations",
    "cited_sentences": "Cited sentences", "self_check": "Self-check passed",
    "wall_s": "Seconds", "llm_calls": "LLM calls", "tokens": "Tokens",
    "judge_tokens": "Judge tokens",
}
HELP = {
    "faithfulness": "Share of the answer's claims that its own evidence supports (0–1).",
    "answer_correctness": "Agreement with the reference answer: facts in common, weighted "
                          "with semantic similarity (0–1).",
    "numeric_correctness": "1 when the first figure the answer states is the reference's "
                           "(scale, sign and rounding tolerated).",
    "numeric_anywhere": "1 when the reference's figure is stated anywhere in the answer.",
    "verdict_correct": "Compare, rank, yes/no: 1 when the answer's opening lines give the "
                       "reference verdict first (the winner named first, the ranking in "
                       "order, 'Yes' or 'No' first).",
    "figures_correct": "Share of the reference figures (per company, measure or segment) "
                       "the answer states, within 1% or their rounding.",
    "context_precision": "How much of the retrieved evidence is relevant, earlier ranks "
                         "weighing more (0–1).",
    "context_recall": "Share of the reference answer's statements the evidence backs (0–1).",
    "gold_evidence_recall": "Share of the question's gold pages or sections among the "
                            "evidence the answer used.",
    "citation_validity": "Share of [n] markers that point to evidence of the run.",
    "cited_sentences": "Share of the answer's sentences that carry a citation.",
    "self_check": "Share of checked sentences the self-check found supported.",
    "wall_s": "Mean seconds per question (plan review excluded).",
    "llm_calls": "Mean LLM calls per question (0 with the offline engine).",
    "tokens": "Mean LLM tokens per question, prompt and answer.",
    "judge_tokens": "Mean tokens the judge spent scoring one answer.",
    "runs": "Questions run by this system.", "failed": "Runs that stopped with an error.",
}
DIGITS = {"wall_s": 1, "llm_calls": 1, "tokens": 0, "judge_tokens": 0}  # scores: 2


def metric_label(key: str) -> str:
    """Plain metric name for charts and tables ('context_precision' -> 'Context precision')."""
    return LABELS.get(key, key.replace("_", " "))


def rounded(key: str, value: float | None) -> float | None:
    """A figure as shown: scores to 2 decimals, seconds and calls to 1, tokens whole."""
    if value is None:
        return None
    digits = DIGITS.get(key, 2)
    return round(float(value), digits) if digits else float(round(float(value)))


def column_help(frame: pd.DataFrame) -> dict[str, Any]:
    """A tooltip on every metric column of ``frame`` (by its plain heading)."""
    by_label = {LABELS.get(k, k): (k, text) for k, text in HELP.items()}
    config: dict[str, Any] = {}
    for column in frame.columns:
        if column in by_label:
            key, text = by_label[column]
            fmt = "%.0f" if DIGITS.get(key) == 0 else "%.1f" if DIGITS.get(key) else "%.2f"
            config[column] = st.column_config.NumberColumn(help=text, format=fmt)
    return config


def render_table(frame: pd.DataFrame) -> None:
    """A metrics table with plain headings, rounded figures and a tooltip per metric."""
    st.dataframe(frame, hide_index=True, width="stretch", column_config=column_help(frame))


# --- frames ---------------------------------------------------------------------------

def metrics_frame(summary: EvalSummary) -> pd.DataFrame:
    """Long frame ``system, metric, value`` of the answer metrics' means."""
    rows = [{"system": system, "metric": metric_label(key), "value": values.get(key)}
            for system, values in summary.systems.items() for key in ANSWER_METRICS
            if values.get(key) is not None]
    return pd.DataFrame(rows, columns=["system", "metric", "value"])


def recall_frame(summary: EvalSummary) -> pd.DataFrame:
    """Long frame ``strategy, k, recall`` for recall@k curves."""
    rows = [{"strategy": strategy, "k": k, "recall": values.get(f"recall@{k}")}
            for strategy, values in summary.retrieval.items() for k in RECALL_KS
            if values.get(f"recall@{k}") is not None]
    return pd.DataFrame(rows, columns=["strategy", "k", "recall"])


def retrieval_table(summary: EvalSummary) -> pd.DataFrame:
    """One row per strategy: recall@k, MRR@10, nDCG@10."""
    return pd.DataFrame([{"strategy": s, **{k: v.get(k) for k in RETRIEVAL_KEYS}}
                         for s, v in summary.retrieval.items()])


ONLY_WHEN_ASKED = ("verdict_correct", "figures_correct")
"""Metrics of the analysis kinds: their columns are left out for a set that asks none."""


def _asked_only(frame: pd.DataFrame) -> pd.DataFrame:
    gone = [LABELS[k] for k in ONLY_WHEN_ASKED if LABELS[k] in frame.columns
            and frame[LABELS[k]].isna().all()]
    return frame.drop(columns=gone)


def system_table(summary: EvalSummary) -> pd.DataFrame:
    """One row per system: answer metric means and mean cost."""
    keys = [*ANSWER_METRICS, "wall_s", "llm_calls", "tokens", "judge_tokens"]
    return _asked_only(pd.DataFrame([
        {"system": s, **{metric_label(k): rounded(k, v.get(k)) for k in keys},
         "runs": summary.counts.get(s, 0), "failed": summary.failures.get(s, 0)}
        for s, v in summary.systems.items()]))


def questions_frame(results: Sequence[QuestionResult],
                    questions: dict[str, str] | None = None) -> pd.DataFrame:
    """One row per question and system: metrics, cost, status."""
    rows = []
    for r in results:
        row: dict[str, Any] = {"question": preview((questions or {}).get(r.question_id)
                                                   or r.question, 90),
                               "id": r.question_id, "system": r.system, "status": r.status}
        for key in ANSWER_METRICS:
            m = r.metrics.get(key)
            row[LABELS[key]] = None if m is None or m.value is None else rounded(key, m.value)
        row.update({"seconds": round(r.cost.wall_s, 1), "LLM calls": r.cost.llm_calls,
                    "tokens": r.cost.tokens, "run": r.run_id or ""})
        rows.append(row)
    return _asked_only(pd.DataFrame(rows)) if rows else pd.DataFrame(rows)


def delta_frame(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """Frame of ``core.evaluation.report.deltas`` rows, readable metric names."""
    frame = pd.DataFrame(rows, columns=["kind", "group", "metric", "current", "previous",
                                        "delta"])
    frame["metric"] = frame["metric"].map(metric_label)
    return frame


# --- figures --------------------------------------------------------------------------

def metric_bars_figure(frame: pd.DataFrame):
    """Grouped bars: each answer metric's mean, one bar per system."""
    import plotly.express as px

    fig = px.bar(frame, x="metric", y="value", color="system", barmode="group",
                 color_discrete_map=SYSTEM_COLOURS, range_y=[0, 1], text_auto=".2f",
                 title="Answer metrics (mean over questions)")
    fig.update_layout(**LAYOUT, xaxis_title=None, yaxis_title="score (0–1)")
    return fig


def recall_curves_figure(frame: pd.DataFrame):
    """Recall@k against k, one line per retrieval strategy."""
    import plotly.express as px

    fig = px.line(frame, x="k", y="recall", color="strategy", markers=True, range_y=[0, 1.02],
                  color_discrete_map=STRATEGY_COLOURS, title="Recall@k per strategy")
    fig.update_layout(**LAYOUT, xaxis=dict(tickvals=list(RECALL_KS), title="k"),
                      yaxis_title="recall of gold evidence")
    return fig


def cost_quality_figure(frame: pd.DataFrame, metric: str, cost: str = "seconds"):
    """Scatter of cost (x) against an answer metric (y), one point per question and system."""
    import plotly.express as px

    column = LABELS[metric]
    data = frame.dropna(subset=[column]) if column in frame else frame.iloc[0:0]
    # plotly renders a subset of HTML (links included) in hover labels: escape question text
    data = data.assign(question=data["question"].map(html.escape))
    fig = px.scatter(data, x=cost, y=column, color="system", hover_name="question",
                     hover_data={"id": True}, color_discrete_map=SYSTEM_COLOURS,
                     title=f"Cost vs quality: {metric_label(metric)} against {cost} "
                           "(one point per question and system)")
    fig.update_traces(marker=dict(size=11, opacity=0.8))
    fig.update_layout(**LAYOUT, yaxis=dict(range=[-0.02, 1.02], title=metric_label(metric)))
    return fig


# --- renderers ------------------------------------------------------------------------

def _chart(fig, key: str) -> None:
    st.plotly_chart(fig, key=key, config={"displayModeBar": False})


def render_metric_bars(summary: EvalSummary, *, key: str) -> None:
    """Answer metrics per system (a note when there are none)."""
    frame = metrics_frame(summary)
    if frame.empty:
        st.caption("No answer metrics: no system was evaluated.")
        return
    _chart(metric_bars_figure(frame), key)


def render_recall_curves(summary: EvalSummary, *, key: str) -> None:
    """Recall@k curves and the retrieval table (a note when no strategy was scored)."""
    frame = recall_frame(summary)
    if frame.empty:
        st.caption("No retrieval metrics: no strategy was scored, or no question has filing "
                   "gold evidence.")
        return
    _chart(recall_curves_figure(frame), key)
    st.dataframe(retrieval_table(summary), hide_index=True, width="stretch",
                 column_config={k: st.column_config.NumberColumn(format="%.3f")
                                for k in RETRIEVAL_KEYS})


def render_cost_quality(frame: pd.DataFrame, metric: str, *, key: str) -> None:
    """The cost vs quality scatter for answer ``metric`` (tokens as cost when any were spent)."""
    if frame.empty:
        return
    cost = "tokens" if frame["tokens"].sum() > 0 else "seconds"
    _chart(cost_quality_figure(frame, metric, cost), key)


def render_deltas(frame: pd.DataFrame) -> None:
    """The delta table, signed, per system or strategy and metric."""
    st.dataframe(frame, hide_index=True, width="stretch", column_config={
        "current": st.column_config.NumberColumn(format="%.2f"),
        "previous": st.column_config.NumberColumn(format="%.2f"),
        "delta": st.column_config.NumberColumn(format="%+.2f"),
    })


def render_metric_details(result: QuestionResult) -> None:
    """Each metric of one result: value, how it was computed, and the note if any."""
    rows = [{"metric": metric_label(m.key), "value": rounded(m.key, m.value),
             "computed by": m.name,
             "judge": m.judge, "note": m.note or ""} for m in result.metrics.values()]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", column_config={
        "value": st.column_config.NumberColumn(format="%.2f")})
