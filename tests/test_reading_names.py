"""Companies named in the analyst's own words, beyond the forms tests/test_reading.py
walks: each company's CIK in the reading however it is named, and two-word names written
with one slip."""

from __future__ import annotations

import itertools

import pytest

from core.foundation.types import DocumentMeta
from core.reading import read_question
from core.reading.companies import resolve_companies
from tests.test_analysis import ACME, BIRCH
from tests.test_reading import DOCS, NAMES, STORE, forms

CIKS = {ACME: "0000123456", BIRCH: "0000654321"}


@pytest.mark.parametrize(("company", "asked"), itertools.product(list(NAMES), [
    "What was {w}'s revenue in FY2024?", "Which had the higher operating margin, {w} or "
    "Cobalt?", "{w} net margin"]))
def test_the_reading_gives_each_company_s_cik_however_it_is_named(company, asked):
    """The CIK was given only where two filers share a name (MCP read_question said
    "cik": "" for a ticker)."""
    docs = [d.model_copy(update={"cik": CIKS.get(d.doc_id, "")}) for d in DOCS]
    short, ticker = NAMES[company]
    for how, words in forms(short, ticker).items():
        reading, _, _ = read_question(asked.format(w=words), docs, STORE)
        refs = [r for r in reading.companies if r.name == company]
        assert refs and refs[0].cik == CIKS[refs[0].doc_ids[0]], (how, words, reading)
        assert all(r.cik == "" for r in reading.companies if r.name == "COBALT LTD")


TWO_WORDS = [DocumentMeta(doc_id=f"d{k}", file_name=f"f{k}.htm", company=name, form_type="10-K",
                          period="FY2024", period_end="2024-12-31")
             for k, name in enumerate(["HOME DEPOT, INC.", "COCA COLA CO", "BEST BUY CO INC",
                                       "LOCKHEED MARTIN CORP", "GENERAL MILLS INC"])]


def _slips(word: str) -> list[str]:
    """Every one-letter slip of ``word`` (never its first letter): a deletion or a swap."""
    out = [word[:p] + word[p + 1:] for p in range(1, len(word))]
    out += [word[:p] + word[p + 1] + word[p] + word[p + 2:] for p in range(1, len(word) - 1)
            if word[p] != word[p + 1]]
    return [s for s in dict.fromkeys(out) if s.lower() != word.lower()]


@pytest.mark.parametrize("name", ["Home Depot", "Coca Cola", "Best Buy", "Lockheed Martin",
                                  "General Mills"])
def test_a_two_word_name_with_one_slip_is_its_filer(name):
    """'rank Home Dept, Nvidia and Adobe': 'Home' was read as Home Depot and 'Dept' as a
    company not loaded (a slip was read only from nine letters squashed)."""
    first, second = name.split(" ")
    for typed in [f"{first} {s}" for s in _slips(second)] + [f"{s} {second}"
                                                              for s in _slips(first)]:
        if len(typed.replace(" ", "")) < 7:
            continue
        text, matches = resolve_companies(f"What was {typed}'s revenue in FY2024?", TWO_WORDS)
        assert [m.how for m in matches] == ["a typo"], (typed, text)
        assert matches[0].read_as.upper().startswith(name.upper()), (typed, matches)
