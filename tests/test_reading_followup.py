"""Follow-up questions (core.reading.followup) on the fictional filers of tests/test_reading:
the follow-up words generated from slots (cue x company form x measure x period), each
made standalone, read again to the merged slots, and answered with the same figures as the
standalone question an analyst would have typed in full."""

from __future__ import annotations

import itertools

import pytest

from core.analysis.combine import answer_analysis
from core.figures.compute import answer_figure
from core.reading import read_question
from core.reading.followup import follow_up
from tests.test_reading import DOCS, STORE

COMPANIES = {"ACME CORP": ("Acme", "ACM"), "Birch Inc.": ("Birch", "BRCH")}
MEASURES = {"revenue": "revenue", "operating margin": "op margin", "net income": "net income",
            "net margin": "net margin"}
SWITCH = ["and {c}?", "what about {c}?", "same for {c}", "And {c}'s?", "how about {c}",
          "{c}?"]
WHEN = ["what about {y}?", "{y} instead", "and in fiscal {y}?", "FY{yy}?"]
BACK = ["the year before?", "and the prior year?", "what about last year?"]


def _follow(text: str, previous: str):
    got = follow_up(text, previous, DOCS, STORE)
    reading, plan, request = read_question(got.question, DOCS, STORE)
    return got, reading, plan, request


def _value(question: str) -> tuple:
    reading, plan, request = read_question(question, DOCS, STORE)
    if plan is not None:
        return tuple(str(v) for v in answer_analysis(plan, STORE).table)
    assert request is not None, question
    return (answer_figure(request, STORE).display,)


@pytest.mark.parametrize("measure", list(MEASURES))
def test_another_company_replaces_the_company_and_keeps_the_measure_and_period(measure):
    for (a, b), cue in itertools.product(itertools.permutations(COMPANIES, 2), SWITCH):
        for words in (COMPANIES[b][0], COMPANIES[b][0].lower(), COMPANIES[b][1]):
            first = f"What was {COMPANIES[a][0]}'s {MEASURES[measure]} in FY2024?"
            got, reading, _, request = _follow(cue.format(c=words), first)
            assert got.is_follow_up and got.checked, (cue, words, got.question)
            assert [c.name for c in reading.companies] == [b], got.question
            assert request is not None and request.periods == ["FY2024"], got.question
            assert measure in got.summary() and "FY2024" in got.summary()
            assert _value(got.question) == _value(
                f"What was {COMPANIES[b][0]}'s {measure} in FY2024?")


@pytest.mark.parametrize("measure", list(MEASURES))
def test_another_year_replaces_the_period_and_keeps_the_company_and_measure(measure):
    first = f"What was Acme's {MEASURES[measure]} in fiscal 2024?"
    for cue in WHEN + BACK:
        got, reading, _, request = _follow(cue.format(y=2023, yy=23), first)
        assert got.is_follow_up and got.checked, (cue, got.question)
        assert request is not None and request.periods == ["FY2023"], (cue, got.question)
        assert [c.name for c in reading.companies] == ["ACME CORP"]
        assert "ACME CORP" in got.summary() and "FY2023" not in got.summary()
        assert _value(got.question) == _value(f"What was Acme's {measure} in FY2023?")


@pytest.mark.parametrize("first_measure,then", [("operating margin", "net margin"),
                                                ("revenue", "net income"),
                                                ("net margin", "operating margin")])
def test_rank_them_by_another_measure_keeps_the_companies_and_says_what_was_carried(
        first_measure, then):
    first = f"Which had the higher {first_measure} in FY2024, Acme or Birch?"
    for cue, direction in itertools.product(
            ["rank them by {m} instead", "now rank them by {m}", "rank those by {m}"],
            [None, "lowest first", "weakest first"]):
        text = cue.format(m=MEASURES[then]) + (f", {direction}" if direction else "")
        got, reading, plan, _ = _follow(text, first)
        assert got.is_follow_up and got.checked, (text, got.question)
        assert reading.kind == "rank" and plan is not None, got.question
        assert {c.name for c in reading.companies} == set(COMPANIES)
        assert [m.metric for m in reading.measures] == [then.replace(" ", "_")]
        assert reading.direction == ("lower" if direction else "higher"), got.question
        assert "ACME CORP" in got.summary() and then not in got.summary()


def test_the_year_before_an_unnamed_period_is_the_year_before_the_latest_fiscal_year():
    for measure, cue in itertools.product(MEASURES, BACK):
        got, _, _, request = _follow(cue, f"What was Acme's {MEASURES[measure]}?")
        assert request is not None and request.periods == ["FY2023"], (cue, got.question)


def test_one_company_named_after_several_joins_them_or_asks_its_own_figure():
    first = "Which had the higher revenue in FY2024, Acme or Birch?"
    for cue in ["what about {c}?", "how about {c}"]:
        got, reading, _, _ = _follow(cue.format(c="Cobalt"), first)
        assert {c.name for c in reading.companies} == {*COMPANIES, "COBALT LTD"}, got.question
        got, reading, _, request = _follow(cue.format(c="Birch"), first)
        assert [c.name for c in reading.companies] == ["Birch Inc."] and request is not None
    for measure in MEASURES:  # a ranking asked after one company's figure: every company
        got, reading, plan, _ = _follow(f"rank them by {MEASURES[measure]} instead",
                                        "What was Acme's revenue in FY2024?")
        assert plan is not None and reading.kind == "rank", got.question
        assert {c.name for c in reading.companies} >= set(COMPANIES)
        assert "every company loaded" in got.summary()


def test_a_company_added_to_a_comparison_joins_it_and_the_measure_stays():
    for measure, words in itertools.product(MEASURES, ["and Cobalt?", "also cobalt",
                                                       "plus CBLT?"]):
        first = f"Which had the higher {MEASURES[measure]} in FY2024, Acme or Birch?"
        got, reading, plan, _ = _follow(words, first)
        assert got.is_follow_up and got.checked, (words, got.question)
        assert {c.name for c in reading.companies} == {*COMPANIES, "COBALT LTD"}
        assert plan is not None and reading.measures[0].name.startswith(measure.split()[0])


def test_a_change_of_direction_is_kept_and_a_whole_question_is_not_a_follow_up():
    first = "Rank Acme and Birch by revenue in FY2024, highest first."
    got, reading, _, _ = _follow("lowest first instead", first)
    assert got.is_follow_up and reading.direction == "lower" and reading.kind == "rank"
    for (a, b), measure in itertools.product(itertools.permutations(COMPANIES, 2), MEASURES):
        whole = f"What was {COMPANIES[b][0]}'s {measure} in FY2025?"
        got = follow_up(whole, f"What was {COMPANIES[a][0]}'s revenue in FY2024?", DOCS,
                        STORE)
        assert not got.is_follow_up and got.question == whole and got.summary() == ""
    assert follow_up("and Birch?", "", DOCS, STORE).question == "and Birch?"


def test_a_text_question_keeps_its_words_with_the_other_company():
    for topic, (a, b) in itertools.product(["competition", "supply chain risks"],
                                           itertools.permutations(COMPANIES, 2)):
        first = f"What does {COMPANIES[a][0]} say about {topic}?"
        got = follow_up(f"and {COMPANIES[b][0]}?", first, DOCS, STORE)
        assert got.is_follow_up and topic in got.question
        assert COMPANIES[b][0] in got.question and COMPANIES[a][0] not in got.question
