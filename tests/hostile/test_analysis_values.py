"""An analyze step's settings as a plan file or the plan editor hands them back (issue 38
items 1, 2, 5, 12): a NaN or infinite threshold or factor, a zero or negative factor, a
'stable' verdict without its threshold, ``depends_on`` naming a step twice or thousands of
times, an analysis over another analysis. Each is refused with the step named when the plan
is checked (main ran them: a record saved with ``null`` it could never read back, a
300-second hang on 10,000 dependencies, 'Yes ... 1.0 times' for a smaller figure, raw
``NoneType.__format__`` and ``IndexError``). The plans are built from slots: each
verdict test, each bad value, plans of two to four figure steps."""

from __future__ import annotations

import itertools
import json
import math

import pytest

from core.agent.plan_edit import MAX_PLAN_STEPS, check_plan, validate_plan
from core.foundation.errors import PlanValidationError
from testkit.agent_fakes import DOC

SECTIONS = {DOC.doc_id: list(DOC.sections)}
COMPANIES = ["Adobe", "Alphabet", "Acme", "Northwind"]


def _plan(figures: int, analysis: dict, depends: list[int] | None = None) -> list[dict]:
    steps = [{"sub_question": f"Look up {c}'s operating margin for FY2024",
              "tool": "figure_lookup", "metric": "operating_margin", "periods": ["FY2024"],
              "doc_ids": [DOC.doc_id]} for c in COMPANIES[:figures]]
    steps.append({"sub_question": "Which had the higher operating margin?", "tool": "analyze",
                  "depends_on": list(range(figures)) if depends is None else depends,
                  "analysis": {"kind": "verdict", "name": "operating margin", **analysis}})
    return steps


def _problems(plan: list[dict]) -> list[str]:
    # through JSON, as a plan file arrives (Python's json reads NaN and Infinity)
    return validate_plan(json.loads(json.dumps(plan)), SECTIONS)


BAD_NUMBERS = [math.nan, math.inf, -math.inf]


@pytest.mark.parametrize(("test", "bad", "figures"), itertools.product(
    ["above", "below", "stable"], BAD_NUMBERS, [1, 2, 3]))
def test_a_threshold_that_is_no_number_is_refused(test, bad, figures):
    problems = _problems(_plan(figures, {"test": test, "threshold": bad}))
    step = figures + 1
    assert any(p.startswith(f"step {step}: the threshold") and "is not a number" in p
               for p in problems), problems
    with pytest.raises(PlanValidationError):
        check_plan(_plan(figures, {"test": test, "threshold": bad}), SECTIONS)


@pytest.mark.parametrize(("test", "factor", "figures"), itertools.product(
    ["more", "less"], [*BAD_NUMBERS, 0, -1, -2.5], [2, 3]))
def test_a_factor_that_is_no_positive_number_is_refused(test, factor, figures):
    problems = _problems(_plan(figures, {"test": test, "factor": factor}))
    assert any(f"step {figures + 1}: the factor" in p and "positive number" in p
               for p in problems), problems


@pytest.mark.parametrize("figures", [1, 2, 3])
def test_a_stable_verdict_needs_its_threshold(figures):
    problems = _problems(_plan(figures, {"test": "stable"}))
    assert any("a verdict 'stable' needs its threshold" in p for p in problems), problems
    assert not _problems(_plan(figures, {"test": "stable", "threshold": 2}))


@pytest.mark.parametrize(("figures", "times"), itertools.product([2, 3, 4], [2, 5, 500]))
def test_a_step_named_twice_in_depends_on_is_refused(figures, times):
    depends = list(range(figures)) + [0] * (times - 1)
    if len(depends) > MAX_PLAN_STEPS:
        expected = f"depends_on lists {len(depends)} steps"
    else:
        expected = "depends_on names step(s) 0 more than once"
    problems = _problems(_plan(figures, {"test": "more"}, depends))
    assert any(p.startswith(f"step {figures + 1}: {expected}") for p in problems), problems


def test_ten_thousand_dependencies_are_refused_at_once():
    problems = _problems(_plan(2, {"test": "more"}, [0, 1] * 5000))
    assert problems == [f"step 3: depends_on lists 10000 steps; a plan has at most "
                        f"{MAX_PLAN_STEPS}, each named once"]


@pytest.mark.parametrize("figures", [2, 3])
def test_an_analysis_over_another_analysis_is_refused(figures):
    plan = _plan(figures, {"test": "more"})
    plan.append({"sub_question": "And is that above 10%?", "tool": "analyze",
                 "depends_on": [figures],
                 "analysis": {"kind": "verdict", "name": "operating margin", "test": "above",
                              "threshold": 10}})
    problems = _problems(plan)
    assert any(p.startswith(f"step {figures + 2}: an analyze step combines figure steps, "
                            f"not another analysis (step {figures + 1})") for p in problems), \
        problems


@pytest.mark.parametrize(("test", "extra"), [("more", {"factor": 2}), ("above", {"threshold": 20}),
                                             ("stable", {"threshold": 2}), ("grew", {})])
def test_good_settings_pass(test, extra):
    assert _problems(_plan(2, {"test": test, **extra})) == []


def _pick_plan(metrics: list[str], name: str) -> list[dict]:
    steps = [{"sub_question": f"Look up Acme's {m} for FY2024", "tool": "figure_lookup",
              "metric": m, "periods": ["FY2024"], "doc_ids": [DOC.doc_id]} for m in metrics]
    steps.append({"sub_question": f"What was Acme's {name}?", "tool": "analyze",
                  "depends_on": list(range(len(metrics))),
                  "analysis": {"kind": "pick", "name": name}})
    return steps


@pytest.mark.parametrize(("metrics", "name"), itertools.product(
    [["operating_margin"], ["operating_margin", "operating_margin"], ["revenue"],
     ["total_assets", "total_liabilities"]],
    ["largest liability", "smallest asset", "biggest liability"]))
def test_a_pick_over_anything_but_its_sides_total_is_refused(metrics, name):
    """kind 'pick' over a margin named operating income '91% of total liabilities' (item 12)."""
    problems = _problems(_pick_plan(metrics, name))
    step = len(metrics) + 1
    assert any(p.startswith(f"step {step}: a pick names the largest or smallest") for p in
               problems), problems


@pytest.mark.parametrize(("metric", "name"), [("total_liabilities", "largest liability"),
                                              ("total_liabilities", "smallest liability"),
                                              ("total_assets", "largest asset"),
                                              ("total_assets", "smallest asset")])
def test_a_pick_beside_its_sides_total_is_accepted(metric, name):
    assert not _problems(_pick_plan([metric], name))
    other = "total_assets" if metric == "total_liabilities" else "total_liabilities"
    assert _problems(_pick_plan([other], name))  # the other side's total is not it
