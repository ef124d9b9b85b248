"""Evaluation chart and table builders on hand-made records."""

from __future__ import annotations

from components import eval_charts as ec
from core.evaluation.report import deltas
from core.evaluation.results import Cost, EvalSummary, MetricScore, QuestionResult


def result(system: str, qid: str, question: str, correct: float, seconds: float):
    metric = MetricScore(key="answer_correctness", name="answer correctness (offline: …)",
                         judge="offline", value=correct)
    return QuestionResult(question_id=qid, system=system, fingerprint="f", question=question,
                          metrics={"answer_correctness": metric}, cost=Cost(wall_s=seconds))


def summary(deep_correct: float) -> EvalSummary:
    return EvalSummary(id="x", systems={"baseline": {"answer_correctness": 0.4, "wall_s": 0.1},
                                        "deep": {"answer_correctness": deep_correct}},
                       retrieval={"keyword": {"recall@1": 0.5, "recall@5": 0.8, "mrr@10": 0.6}})


def test_frames_and_figures():
    s = summary(0.6)
    bars = ec.metrics_frame(s)
    assert list(bars["system"]) == ["baseline", "deep"] and set(bars["metric"]) == {
        "Correctness"}
    curves = ec.recall_frame(s)
    assert list(curves["k"]) == [1, 5] and list(curves["recall"]) == [0.5, 0.8]
    fig = ec.recall_curves_figure(curves)
    assert [t.name for t in fig.data] == ["keyword"]
    assert len(ec.metric_bars_figure(bars).data) == 2


def test_cost_quality_scatter_escapes_question_markup():
    frame = ec.questions_frame([
        result("baseline", "q1", "<a href='https://evil.test'>click</a> revenue?", 0.3, 0.2),
        result("deep", "q1", "<a href='https://evil.test'>click</a> revenue?", 0.8, 1.5)])
    assert list(frame["Correctness"]) == [0.3, 0.8] and list(frame["seconds"]) == [0.2, 1.5]
    fig = ec.cost_quality_figure(frame, "answer_correctness")
    hover = [h for t in fig.data for h in t.hovertext]
    assert hover and all("<a " not in h and "&lt;a href=" in h for h in hover)
    assert "Correctness" in fig.layout.title.text


def test_delta_frame_signs():
    rows = deltas(summary(0.7), summary(0.5))
    frame = ec.delta_frame(rows)
    deep = frame[(frame["group"] == "deep") & (frame["metric"] == "Correctness")]
    assert deep["delta"].round(3).tolist() == [0.2]
    base = frame[(frame["group"] == "baseline") & (frame["metric"] == "Correctness")]
    assert base["delta"].tolist() == [0.0]


def test_tables_have_plain_headings_rounded_figures_and_a_tooltip_per_metric():
    frame = ec.questions_frame([result("deep", "q1", "Revenue?", 0.8333333, 1.23456)])
    assert frame.loc[0, "Correctness"] == 0.83 and frame.loc[0, "seconds"] == 1.2
    table = ec.system_table(summary(0.7123456))
    assert "Context precision" in ec.LABELS.values() and "ctx prec" not in table.columns
    assert not any(c in table.columns for c in ("judge tok", "ctx prec", "fig first"))
    assert all(abs(v * 100 - round(v * 100)) < 1e-9 for v in table["Correctness"].dropna())
    help_of = ec.column_help(table)
    metric_columns = [c for c in table.columns if c not in ("system",)]
    assert metric_columns and all(c in help_of for c in metric_columns), metric_columns
