"""The reading through the agent, offline, on two real iXBRL 10-Ks (NVIDIA FY2023, AMD
FY2025): the question read once in the analyst's words (tickers in lower case, "op margin"),
the answer's second line says how it was read, the plan under review carries the reading,
and a reading corrected at review (another measure, another kind) makes the figure steps
again: the answer follows the correction and says it was corrected."""

from __future__ import annotations

import pytest

from core.app import jobs, run_session
from core.app.plan_draft import drafts_from_plan
from core.app.research import ResearchService
from core.reading.edit import LATEST, company_choices, edited_reading
from tests.test_agent_analysis import _ask, two  # noqa: F401 (two is a fixture)


def test_an_analysts_words_are_read_and_the_reading_is_said_under_the_verdict(two):  # noqa: F811
    record, text, answer = _ask(two, "whose op margin was higher, nvda or amd?")
    lines = answer.splitlines()
    assert lines[0].startswith("NVDA had the higher operating margin: 15.7% in fiscal 2023")
    assert lines[1].startswith("Read as: which is higher · operating margin · NVIDIA CORP "
                               "(FY2023), ADVANCED MICRO DEVICES, INC. (FY2025)")
    assert "'nvda' as NVIDIA CORP (its ticker)" in lines[1]
    assert "'op margin' as operating margin" in lines[1]
    assert record.answer.reading is not None and record.answer.reading.kind == "compare"
    assert "Read as:" in text.split("=== Answer", 1)[0]  # the plan's line in the trace too


def test_a_text_answer_says_its_reading_last(two):  # noqa: F811
    _, _, answer = _ask(two, "What does NVIDIA say about competition in its risk factors?")
    body = answer.split("\nSources:", 1)[0].strip()
    assert not body.splitlines()[0].startswith("Read as")
    assert body.splitlines()[-1].startswith("Read as: a text question (passages of the "
                                            "filings) · NVIDIA CORP")


def test_a_reading_corrected_at_review_makes_the_plan_again_and_the_answer_follows(two):  # noqa: F811
    settings, corpus, ids = two
    service = ResearchService.from_corpus(settings, corpus)
    thread, plan, events = service.start("Which had the higher operating margin, NVIDIA or "
                                         "AMD?", review="always")
    proposal = next(e for e in events if e.type == "plan_proposed")
    reading = proposal.reading
    assert reading is not None and reading.kind == "compare"
    choices = company_choices(corpus.documents())
    edited = edited_reading(reading, kind="difference", metric="net_margin",
                            companies=[choices["NVIDIA CORP"],
                                       choices["ADVANCED MICRO DEVICES, INC."]],
                            period=LATEST, direction="higher", test=None, threshold=None)
    drafts = run_session.corrected_plan(service, drafts_from_plan(plan), edited)
    assert [d.tool for d in drafts] == ["compute", "compute", "analyze"]
    assert drafts[-1].analysis.difference and drafts[-1].analysis.name == "net profit margin"
    session = run_session.open_run(service, settings, thread)
    job = run_session.approve_edits(service, settings, session, drafts, reading=edited)
    assert jobs.wait(job), "the run did not end"
    record = job.result
    lines = record.answer.text.splitlines()
    # NVIDIA FY2023 net income 4,368 / 26,974 = 16.2%; AMD FY2025 net margin below it
    assert lines[0].startswith("NVIDIA's net profit margin was 3.7 points higher than AMD's: "
                               "16.2% in fiscal 2023"), lines[0]
    assert lines[1].startswith("Read as (corrected at review): the difference · net profit "
                               "margin · NVIDIA CORP"), lines[1]


def test_a_reading_that_makes_no_plan_is_refused_and_the_drafts_stay(two):  # noqa: F811
    from core.foundation.errors import AppError

    settings, corpus, _ = two
    service = ResearchService.from_corpus(settings, corpus)
    _, plan, events = service.start("Which had the higher operating margin, NVIDIA or AMD?",
                                    review="always")
    reading = next(e for e in events if e.type == "plan_proposed").reading
    drafts = drafts_from_plan(plan)
    before = [d.model_dump() for d in drafts]
    bad = edited_reading(reading, kind="compare", metric="net_margin", companies=[],
                         period=LATEST, direction="higher", test=None, threshold=None)
    with pytest.raises(AppError, match="choose at least one company"):
        run_session.corrected_plan(service, drafts, bad)
    assert [d.model_dump() for d in drafts] == before
