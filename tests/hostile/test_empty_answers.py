"""A pick over a balance sheet that prints no lines of that side (the sample's liabilities:
only their total) answered with an empty answer: the engine's own "I found no liability
lines on Northwind's balance sheet." cites nothing, the self-check removed it as uncited,
and nothing was left. A statement that something was not found is no claim to check (as
"could not find" already was), and an answer the self-check empties says so instead of
showing a blank."""

from __future__ import annotations

import io
import itertools
import re

import pytest

from core.agent.roles.answer import EMPTIED
from core.agent.roles.selfcheck import apply_checks, check_answer, claims
from core.app.corpus import Corpus
from core.app.research import ResearchService
from core.cli.agent import ask
from tests.hostile.kit import SAMPLE

WAYS = ["largest", "biggest", "smallest"]
ASKED = ["What was the {way} {side} on Northwind's balance sheet in FY2024?",
         "Name Northwind's {way} {side} at the end of FY2024.",
         "which is the {way} {side} northwind reports for fy2024"]


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    from core.foundation.config import Settings
    from testkit.fakes.embedder import HashEmbedder

    settings = Settings(data_dir=tmp_path_factory.mktemp("pick") / "store", cache_enabled=False,
                        _env_file=None)
    corpus = Corpus(settings, embedder=HashEmbedder())
    corpus.ingest_path(SAMPLE)
    yield settings, corpus
    corpus.close()


def _answer(sample, question: str) -> str:
    settings, corpus = sample
    out = io.StringIO()
    ask(question, settings=settings, approve=True,
        service=ResearchService.from_corpus(settings, corpus), out=out)
    return out.getvalue().split("=== Answer (deep, offline engine) ===\n\n", 1)[1]


@pytest.mark.parametrize(("way", "asked"), itertools.product(WAYS, ASKED))
def test_a_side_with_no_lines_is_said_not_left_blank(sample, way, asked):
    answer = _answer(sample, asked.format(way=way, side="liability"))
    assert answer.strip().startswith("I found no liability lines on Northwind"), answer


@pytest.mark.parametrize(("way", "asked"), itertools.product(WAYS, ASKED))
def test_a_side_with_lines_names_one(sample, way, asked):
    answer = _answer(sample, asked.format(way=way, side="asset"))
    first = answer.strip().splitlines()[0]
    assert first.startswith(f"The {way} asset on Northwind"), answer
    assert "[1]" in first


@pytest.mark.parametrize(("lead", "thing", "company"), itertools.product(
    ["I found no", "I cannot name the largest because I found no"],
    ["liability lines", "asset lines", "segment figures"], ["Acme", "Birch Holdings"]))
def test_a_statement_of_absence_is_no_claim_to_check(lead, thing, company):
    assert claims(f"{lead} {thing} on {company}'s balance sheet.") == []


def test_an_answer_the_self_check_empties_says_so():
    text = "Acme's revenue grew strongly in every region last year. Margins rose as well."
    checks, _ = check_answer(text, {})
    kept, checks = apply_checks(text, checks)
    assert kept == "" and not any(c.kept for c in checks)  # what final_answer then replaces
    assert claims(EMPTIED) == []  # the line said instead is no claim of its own


@pytest.mark.parametrize(("way", "asked"), itertools.product(WAYS, ASKED))
def test_every_line_of_a_pick_is_cited_and_kept(sample, way, asked):
    """A pick's lines cite the chunk each is printed in and the total cites its own; the
    self-check keeps them (it removed every line, and the lead, when the run cited only the
    total's chunk: 'only 17% of its terms are in the cited text')."""
    answer = _answer(sample, asked.format(way=way, side="asset"))
    body = answer.split("\nSources:", 1)[0]
    rows = [ln for ln in body.splitlines() if ln.startswith("- ")]
    assert len(rows) >= 2, answer
    assert all(re.search(r"\[\d+\]$", ln) for ln in rows), answer
    lead = body.strip().splitlines()[0]
    assert re.search(r"of total assets of \$[\d,]+ million( \[\d+\])?\.$", lead), lead
    assert "self-check removed" not in answer
