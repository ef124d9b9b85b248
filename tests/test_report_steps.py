"""Exports name each researched step for what it is (a figure look-up, a computation, an
analysis: never "web"), and record plan edits of measure, periods, formula, segment and
companies as old -> new, generated over several metrics, periods and companies."""

from __future__ import annotations

import itertools

import pytest

from core.agent.events import PlanApproved, PlanProposed
from core.agent.state import Answer, PlanStep, StepRecord
from core.analysis.model import AnalysisSpec
from core.app.report import plan_edits, render_markdown, step_method
from core.app.report_html import render_html
from core.app.runs import RunRecord

TOOLS = {"figure_lookup": "figure look-up", "compute": "computation", "analyze": "analysis"}


def _history(tools) -> list[StepRecord]:
    return [StepRecord(step=i, sub_question=f"part {i + 1}", tool=t,
                       query=f"q{i}", strategy="hybrid" if t == "filing_search" else None)
            for i, t in enumerate(tools)]


@pytest.mark.parametrize("order", list(itertools.permutations(
    ["figure_lookup", "compute", "analyze", "web_search", "filing_search"], 5))[::17])
def test_each_step_is_labelled_by_its_tool_in_every_export(order):
    plan = [PlanStep(sub_question=f"part {i + 1}", tool=t) for i, t in enumerate(order)]
    record = RunRecord(question="q", plan=plan, history=_history(order),
                       answer=Answer(text="Done."))
    md = render_markdown(record)
    page = render_html(record)
    for i, tool in enumerate(order):
        words = step_method(record.history[i])
        line = next(ln for ln in md.splitlines() if ln.startswith(f"- step {i + 1}:"))
        assert f"[{words}]" in line
        if tool in TOOLS:
            assert words == TOOLS[tool] and "web" not in line
        assert f"<span>{words}</span>" in page
    assert md.count("[web search]") == page.count("<span>web search</span>") == 1
    assert "[filing search, hybrid]" in md


METRICS = ["revenue", "net_income", "operating_income", "capex", "free_cash_flow"]
PERIODS = [["FY2022", "FY2023"], ["FY2023", "FY2024"], ["FY2024"]]
NAMES = {"a": "Acme Tool Co 10-K FY2024", "b": "Birch Inc. 10-K FY2024",
         "c": "Zenith Ltd 10-K FY2023"}


def _edits(before: PlanStep, after: PlanStep) -> list[str]:
    events = [PlanProposed(node="planner", plan=[before], source="offline"),
              PlanApproved(node="review", plan=[after], edited=True)]
    return plan_edits(events, NAMES)


@pytest.mark.parametrize(("old", "new", "periods", "docs"), [
    (o, n, p, d) for (o, n), p, d in itertools.product(
        itertools.permutations(METRICS, 2), range(3), ["a", "b", "c"])][::5])
def test_plan_edits_say_what_changed_old_to_new(old, new, periods, docs):
    before = PlanStep(sub_question="Look up the figure", tool="figure_lookup", metric=old,
                      periods=PERIODS[periods], doc_ids=[docs])
    other = sorted(set(NAMES) - {docs})[0]
    after = before.model_copy(update={"metric": new, "periods": PERIODS[(periods + 1) % 3],
                                      "doc_ids": [docs, other]})
    (line,) = _edits(before, after)
    assert f"measure {old} → {new}" in line
    assert (f"periods {', '.join(PERIODS[periods])} → "
            f"{', '.join(PERIODS[(periods + 1) % 3])}") in line
    assert f"companies {NAMES[docs]} → {NAMES[docs]}, {NAMES[other]}" in line
    assert "reason changed" not in line


@pytest.mark.parametrize(("metric", "member"), itertools.product(METRICS[:3],
                                                                 ["Cloud", "Data Center"]))
def test_formula_segment_and_analysis_edits_are_recorded(metric, member):
    compute = PlanStep(sub_question="Compute", tool="compute",
                       formula=f"{metric}[FY2024] / {metric}[FY2023] - 1")
    edited = compute.model_copy(update={"formula": f"{metric}[FY2024] - {metric}[FY2023]"})
    assert f"formula {compute.formula} → {edited.formula}" in _edits(compute, edited)[0]
    look = PlanStep(sub_question="Look up", tool="figure_lookup", metric=metric)
    assert f"segment none → {member}" in _edits(
        look, look.model_copy(update={"member": member}))[0]
    spec = AnalysisSpec(kind="compare", name=metric.replace("_", " "))
    step = PlanStep(sub_question="Which is higher?", tool="analyze", analysis=spec)
    flipped = step.model_copy(update={"analysis": spec.model_copy(
        update={"kind": "rank", "direction": "lower"})})
    line = _edits(step, flipped)[0]
    assert "analysis compare → rank" in line and "direction higher → lower" in line
    why = step.model_copy(update={"justification": "because"})
    assert _edits(step, why) == ["step 1: edited: reason changed"]
