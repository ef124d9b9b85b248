"""A rank of tickers typed in lower case, some not loaded ("rank adbe, googl, msft, aapl and
ibm by net margin"): the loaded ones were ranked and the others vanished without a word (a
name written in capitals was said missing). A lower-case word is taken for a name only
where a name stands: in a list of the companies the question names, after the first of
them, ending where a name ends (the next item, a preposition, the end); the question's
own words around a list ("op margin, A or b", "and tell me why", "and others") never are."""

from __future__ import annotations

import itertools

import pytest

from core.analysis.subjects import Subject, unloaded

LOADED = [Subject("ADBE", "ADOBE INC.", ["a"]), Subject("GOOGL", "Alphabet Inc.", ["b"])]
ABSENT = [["msft"], ["msft", "aapl"], ["tsla", "ibm", "intc"]]
JOINS = [", ", " and ", " or ", " vs "]
ENDS = [" by net margin in fy2024", "?", " in fy2024", " on revenue", ""]


def _listed(names: list[str], join: str) -> str:
    return join.join(names[:-1]) + (" and " if join == ", " else join) + names[-1]


@pytest.mark.parametrize(("absent", "join", "end"), itertools.product(ABSENT, JOINS, ENDS))
def test_every_lower_case_name_listed_beside_loaded_ones_is_said_missing(absent, join, end):
    body = f"rank {_listed(['ADBE', 'GOOGL', *absent], join)}{end}"
    assert unloaded(body, LOADED) == absent, body


@pytest.mark.parametrize("body", [
    "Which had the higher op margin, ADBE or GOOGL?",
    "Compare ADBE and GOOGL, and tell me why margins differ",
    "ADBE and GOOGL and how do they describe competition?",
    "Rank ADBE, GOOGL and others by revenue",
    "ADBE or GOOGL: which had the higher revenue and net income in fy2024?",
    "ADBE, GOOGL and their peers by revenue",
])
def test_the_questions_own_words_around_a_list_are_no_names(body):
    assert unloaded(body, LOADED) == []
