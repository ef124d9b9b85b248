"""Repair of almost-JSON replies (pure functions, no model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from core.llm.repair import (
    RepairError,
    extract_json_object,
    find_object_span,
    parse_model,
    remove_trailing_commas,
    strip_code_fences,
    strip_think,
)

CASES = json.loads(
    (Path(__file__).parent / "fixtures" / "llm" / "almost_json_cases.json").read_text()
)


class Plan(BaseModel):
    steps: list[str] = Field(description="Sub-questions.")
    note: str = Field(default="", description="Free text.")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_extract_json_object_cases(case):
    if "expected" in case:
        assert extract_json_object(case["reply"]) == case["expected"]
    else:
        with pytest.raises(RepairError, match=case["error"]):
            extract_json_object(case["reply"])


def test_strip_think_removes_all_blocks_case_insensitively():
    text = "<THINK>a</THINK>x<thinking>b\nc</thinking>y<reasoning>z"
    assert strip_think(text) == "xy"


def test_strip_code_fences_prefers_the_json_block():
    text = "```python\nprint(1)\n```\nthen\n```json\n{\"a\": 1}\n```"
    assert strip_code_fences(text) == '{"a": 1}'
    assert strip_code_fences("no fences") == "no fences"
    assert strip_code_fences("```json\n{\"a\": 1}") == '{"a": 1}'  # unclosed fence


def test_remove_trailing_commas_only_outside_strings():
    assert remove_trailing_commas('{"a": [1, 2, ], "b": ",]",}') == '{"a": [1, 2 ], "b": ",]"}'


def test_find_object_span_handles_escaped_quotes():
    text = 'x {"a": "he said \\"}\\"", "b": {"c": 1}} y }'
    assert json.loads(find_object_span(text)) == {"a": 'he said "}"', "b": {"c": 1}}


def test_parse_model_validates_and_reports_fields():
    assert parse_model('ok: {"steps": ["a"]}', Plan) == Plan(steps=["a"])
    assert parse_model({"steps": [], "note": "n"}, Plan).note == "n"
    with pytest.raises(RepairError, match=r"does not match Plan: steps: Field required"):
        parse_model('{"note": "missing steps"}', Plan)
    with pytest.raises(RepairError, match=r"steps: Input should be a valid list \(got 5\)"):
        parse_model({"steps": 5}, Plan)


class Finding(BaseModel):
    claim: str = Field(description="One finding.")
    citations: list[str] = Field(description="Evidence ids.")
    plan: Plan | None = Field(default=None, description="Nested.")


def test_common_wrong_shapes_are_repaired():
    # A string field sent as a list, a list field sent as one string (nested too).
    got = parse_model({"claim": ["AMD ships", "MI300X."], "citations": "E1",
                       "plan": {"steps": "check 10-K", "note": ["a", "b"]}}, Finding)
    assert got == Finding(claim="AMD ships MI300X.", citations=["E1"],
                          plan=Plan(steps=["check 10-K"], note="a b"))


def test_a_schema_echoed_back_gives_its_values_or_a_clear_error():
    echoed = {"description": "One finding.", "type": "object",
              "properties": {"claim": "AMD ships MI300X", "citations": ["E1"]}}
    assert parse_model(echoed, Finding) == Finding(claim="AMD ships MI300X", citations=["E1"])
    bare = {"description": "x", "properties": {"claim": {"type": "string", "description": "c"},
                                               "citations": {"type": "array"}}}
    with pytest.raises(RepairError, match="claim: Field required"):
        parse_model(bare, Finding)
