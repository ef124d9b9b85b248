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
        "answer correctness"}
    curves = ec.recall_frame(s)
    assert list(curves["k"]) == [1, 5] and list(curves["recall"]) == [0.5, 0.8]
    fig = ec.recall_curves_figure(curves)
    assert [t.name for t in fig.data] == ["keyword"]
    assert len(ec.metric_bars_figure(bars).data) == 2


def test_cost_quality_scatter_escapes_question_markup():
    frame = ec.questions_frame([
        result("baseline", "q1", "<a href='https://evil.test'>click</a> revenue?", 0.3, 0.2),
        result("deep", "q1", "<a href='https://evil.test'>click</a> revenue?", 0.8, 1.5)])
    assert list(frame["correct"]) == [0.3, 0.8] and list(frame["seconds"]) == [0.2, 1.5]
    fig = ec.cost_quality_figure(frame, "answer_correctness")
    hover = [h for t in fig.data for h in t.hovertext]
    assert hover and all("<a " not in h and "&lt;a href=" in h for h in hover)
    assert "answer correctness" in fig.layout.title.text


def test_delta_frame_signs():
    rows = deltas(summary(0.7), summary(0.5))
    frame = ec.delta_frame(rows)
    deep = frame[(frame["group"] == "deep") & (frame["metric"] == "correct")]
    assert deep["delta"].round(3).tolist() == [0.2]
    base = frame[(frame["group"] == "baseline") & (frame["metric"] == "correct")]
    assert base["delta"].tolist() == [0.0]
