"""Question-set loading: the shipped set, and error messages naming line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.evaluation.questions import (
    QuestionSetError,
    load_question_set,
    parse_question_set,
    shipped_sets,
)

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_SET = ROOT / "data" / "questions" / "sample.jsonl"


def errors(text: str) -> list[str]:
    with pytest.raises(QuestionSetError) as info:
        parse_question_set(text, name="t", source="t.jsonl")
    assert str(info.value).startswith("t.jsonl is not a valid question set")
    return info.value.problems


def line(**fields) -> str:
    return json.dumps(fields)


def test_shipped_sample_set_loads():
    qset = load_question_set(SAMPLE_SET)
    assert SAMPLE_SET in shipped_sets(SAMPLE_SET.parent)
    assert 8 <= len(qset.questions) <= 10
    assert len({q.id for q in qset.questions}) == len(qset.questions)
    assert all(q.ground_truth and q.gold for q in qset.questions)
    tags = {t for q in qset.questions for t in q.tags}
    assert {"financial-table", "risk-factors", "filing+web"} <= tags
    web = [q for q in qset.questions if any(g.document.endswith(".md") for g in q.gold)]
    assert web and all(any(g.document.endswith(".htm") for g in q.gold) for q in web)
    assert len(qset.sha) == 16


def test_every_error_names_its_line_and_field():
    text = "\n".join([
        line(question="fine", gold=[{"document": "a.htm", "text": "x"}]),
        "",
        line(question="bad page", gold=[{"document": "a.htm", "page": "three"}]),
        "{not json",
        line(ground_truth="no question"),
        line(question="q", gold=[{"document": "a.htm"}]),
        line(question="q", colour="red"),
        "[1, 2]",
        line(id="has space", question="q"),
        line(question="q", gold=[{"document": "a.htm", "text": "x"}, {"page": 2}]),
    ])
    problems = errors(text)
    assert problems[0].startswith("line 3: field 'gold[0].page': Input should be a valid integer")
    assert problems[1].startswith("line 4: not valid JSON")
    assert problems[2] == "line 5: field 'question': Field required"
    assert problems[3] == "line 6: field 'gold[0]': give at least one of page, section or text"
    assert problems[4].startswith("line 7: field 'colour': unknown field")
    assert problems[5] == "line 8: expected a JSON object, got list"
    assert problems[6].startswith("line 9: field 'id': use 1-64 letters")
    assert problems[7] == "line 10: field 'gold[1].document': Field required"
    assert len(problems) == 8


def test_ids_default_to_the_line_and_must_be_unique():
    qset = parse_question_set("# comment\n" + line(question="first") + "\n"
                              + line(id="x", question="second"), name="t")
    assert [q.id for q in qset.questions] == ["q2", "x"]
    problems = errors(line(id="x", question="a") + "\n" + line(id="x", question="b"))
    assert problems == ["line 2: field 'id': 'x' is already used on line 1"]


def test_empty_set_blank_question_and_missing_file(tmp_path):
    assert errors("\n\n") == ["line 1: the set holds no question (one JSON object per line)"]
    assert errors(line(question="   ")) == ["line 1: field 'question': the question is empty"]
    with pytest.raises(QuestionSetError, match="file not found"):
        load_question_set(tmp_path / "nope.jsonl")
