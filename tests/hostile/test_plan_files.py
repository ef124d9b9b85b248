"""Plan files and plan edits as a user hands them back (issue 32): a step without ``tool``
takes the schema's default (main rejected it as "unknown tool None"), a 10**30
``depends_on`` is named as the number it is (main quoted it as 100000000000), and any JSON
at all is either a plan or a list of problems naming the step: never a traceback."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from core.agent.plan_edit import TOOLS, check_plan, parse_plan, validate_plan
from core.agent.state import PlanStep
from core.cli.agent import ask, read_plan_file
from core.foundation.errors import AppError, PlanValidationError
from testkit.agent_fakes import DOC, make_service

SECTIONS = {DOC.doc_id: list(DOC.sections)}


def test_a_step_without_a_tool_searches_the_filings():
    steps = check_plan([{"sub_question": "What risks does Acme state?"}], SECTIONS)
    assert [s.tool for s in steps] == ["filing_search"]
    assert check_plan([{"sub_question": "Risks?", "tool": None}], SECTIONS)[0].tool == \
        "filing_search"
    assert check_plan([{"sub_question": "Risks?", "tool": ""}], SECTIONS)[0].tool == \
        "filing_search"


def test_an_unknown_tool_is_still_named():
    with pytest.raises(PlanValidationError) as err:
        check_plan([{"sub_question": "Risks?", "tool": "shell"}], SECTIONS)
    assert err.value.problems == [f"step 1: unknown tool 'shell'; use one of {', '.join(TOOLS)}"]


@pytest.mark.parametrize(("depends", "shown"), [
    (10**30, "1000... (a 31-digit number)"), (10**11, "100000000000"), (-1, "-1"),
    (5, "5"), (-(10**40), "-100... (a 41-digit number)")])
def test_a_bad_depends_on_is_named_as_written(depends, shown):
    plan = [{"sub_question": "a", "tool": "filing_search"},
            {"sub_question": "b", "tool": "filing_search", "depends_on": [depends]}]
    problems = validate_plan(plan, SECTIONS)
    assert problems == [f"step 2: depends_on {shown} is not an earlier step (0-based indices "
                        "of the steps above it: 0 to 0)"]


BAD_FILES = {
    b"": "not valid JSON",
    b"{": "not valid JSON",
    b'"just a string"': "must be a list of steps",
    b"42": "must be a list of steps",
    b"[]": "no steps",
    b'[{"tool": "filing_search"}]': "sub_question",
    b'[{"sub_question": ""}]': "the sub-question is empty",
    b'["a step as text"]': "expected an object",
    b'[{"sub_question": "x", "section": "Item 99Z"}]': "section 'Item 99Z' is not in",
    b'[{"sub_question": "x", "doc_ids": ["nope"]}]': "unknown document id(s) nope",
    b'[{"sub_question": "x", "tool": "figure_lookup", "metric": "revenue", '
    b'"periods": ["last year"]}]': "not understood",
    b'[{"sub_question": "x", "tool": "compute", "formula": "revenue[FY2023] +"}]':
        "is not valid",
    b'[{"sub_question": "x", "tool": "figure_lookup", "metric": "revenue", '
    b'"periods": ["FY2023"], "decimals": -3}]': "decimals must be between 0 and 8",
    b'{"steps": [{"sub_question": "x", "keywords": 7}]}': "keywords",
    # main: RecursionError (a traceback) from the formula parser
    b'[{"sub_question": "x", "tool": "compute", "formula": "' + b"(" * 500 +
    b'revenue[FY2023]' + b")" * 500 + b'"}]': "is nested too deeply",
    b'[{"sub_question": "x", "tool": "compute", "formula": "revenue[FY2023]' + b" * 2" * 3000 +
    b'"}]': "is nested too deeply",
}


@pytest.mark.parametrize("text", list(BAD_FILES), ids=[t[:30].decode() for t in BAD_FILES])
def test_a_bad_plan_file_is_refused_before_a_run_exists(tmp_path, settings, text):
    path = tmp_path / "plan.json"
    path.write_bytes(text)
    service = make_service(settings)
    with pytest.raises(AppError) as err:
        ask("What risks does Acme state?", settings=settings, plan_file=str(path),
            service=service, out=io.StringIO())
    assert BAD_FILES[text] in str(err.value), str(err.value)
    assert not settings.runs_dir.exists() or not list(settings.runs_dir.glob("*.json"))


@pytest.mark.parametrize(("data", "what"), [
    (b"\xff\xfe[\x00]\x00", None),  # UTF-16 with its BOM
    (b"\xef\xbb\xbf[]", None),  # UTF-8 with a BOM
    (b"\x80\x81\x82", "UTF-8"),
])
def test_plan_file_encodings(tmp_path, data, what):
    path = tmp_path / "plan.json"
    path.write_bytes(data)
    if what is None:
        assert json.loads(read_plan_file(path)) == []
    else:
        with pytest.raises(AppError, match=what):
            read_plan_file(path)


def test_a_missing_or_folder_plan_file_says_so(tmp_path):
    with pytest.raises(AppError, match="not found"):
        read_plan_file(tmp_path / "nope.json")
    with pytest.raises(AppError, match="is a folder"):
        read_plan_file(tmp_path)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                               max_size=4),
    max_leaves=12)
FIELDS = ("sub_question", "tool", "keywords", "section", "doc_ids", "depends_on", "metric",
          "periods", "formula", "unit", "decimals", "justification")
STEP = st.dictionaries(st.sampled_from(FIELDS), JSON | st.sampled_from(
    [*TOOLS, "Item 1A", "FY2023", "revenue", "doc1", "revenue[FY2023]"]), max_size=8)


def _outcome(value) -> list[PlanStep] | list[str]:
    try:
        return check_plan(value, SECTIONS)
    except PlanValidationError as exc:
        return list(exc.problems)


@given(JSON)
@hsettings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
def test_any_json_is_a_plan_or_a_list_of_problems(value):
    out = _outcome(value)
    assert out and all(isinstance(o, PlanStep) for o in out) or \
        all(isinstance(o, str) and o for o in out)


@given(st.lists(STEP, min_size=1, max_size=5))
@hsettings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
def test_any_list_of_steps_is_checked_step_by_step(steps):
    out = _outcome(steps)
    if out and isinstance(out[0], PlanStep):
        assert len(out) == len(steps)
        for step in out:
            assert step.tool in TOOLS and step.sub_question.strip()
            assert all(0 <= d < out.index(step) for d in step.depends_on) or step.depends_on == []
    else:
        assert all(p.startswith(("step ", "the plan")) for p in out), out
        assert all("Traceback" not in p and len(p) < 2000 for p in out)


@given(st.lists(STEP, min_size=1, max_size=4))
@hsettings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
def test_a_plan_that_passes_passes_again_unchanged(steps):
    """What check_plan returns is a fixed point: checked again, the same steps."""
    out = _outcome(steps)
    if out and isinstance(out[0], PlanStep):
        again = check_plan([s.model_dump() for s in out], SECTIONS)
        assert again == out


@given(st.text(max_size=200))
@hsettings(max_examples=100)
def test_any_text_as_a_plan_file_parses_or_is_refused(text):
    try:
        parse_plan(text)
    except PlanValidationError as exc:
        assert exc.problems
