"""Web date filters, revisions carried to later steps, and the sample walk-through's answer.

The fakes record what the agent asked for; the walk-through runs the real pieces (ingest,
store, retriever, fallback reranker, snapshot web search) on data/sample + data/web_snapshot.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.agent.connect import LINK_NOTE
from core.agent.deps import AgentDeps
from core.agent.doc_facts import DocFacts
from core.agent.policy import carry_forward
from core.agent.retrieval import search_web
from core.agent.state import PlanStep
from core.agent.text import near_duplicate
from core.agent.web_dates import web_after
from core.retrieval.web import SnapshotWebSearch, WebHit
from testkit.agent_fakes import DOC, QUESTION, FakeRetriever, FakeWeb, corpus_info, make_service

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample" / "northwind-10k-fy2024.htm"
SNAPSHOT = ROOT / "data" / "web_snapshot"


def _info(period_end: str | None = "2023-12-30"):
    info = corpus_info()
    info.facts = {DOC.doc_id: DocFacts(period_end=period_end)} if period_end else {}
    return info


# --- 5. web steps about recent / post-filing / dated news pass a date filter -----------

@pytest.mark.parametrize("sub_question,after", [
    ("Find recent news (post-filing, from 2024) about Rival.", "2024-01-01"),
    ("What did Rival announce in 2025?", "2025-01-01"),
    ("Find news after 2023 about Rival.", "2024-01-01"),
    ("Find post-filing news about Rival.", "2023-12-31"),  # day after the period end
    ("Find the latest news about Rival.", "2023-12-31"),
    ("Compare Rival's news in 2022 and in 2024.", None),  # no single bound
    ("Find news about Rival.", None),
])
def test_web_after_from_the_sub_question(sub_question, after):
    step = PlanStep(sub_question=sub_question, tool="web_search")
    plan = [PlanStep(sub_question="risks", doc_ids=["doc1"]), step]
    assert web_after(step, "q", plan, [], _info())[0] == after


def test_web_after_explicit_year_wins_and_the_question_is_the_fallback():
    info = _info("2024-12-28")  # a FY2024 report: "post-filing" alone would mean 2024-12-29
    step = PlanStep(sub_question="Find post-filing news (from 2024) about Rival.",
                    tool="web_search")
    after, why = web_after(step, "q", [step], [], info)
    assert after == "2024-01-01" and "from 2024" in why
    post = PlanStep(sub_question="Find post-filing news about Rival.", tool="web_search")
    assert web_after(post, "q", [post], [], info)[0] == "2024-12-29"
    assert web_after(post, "Rival news (post-filing, from 2024)?", [post], [], info)[0] == \
        "2024-01-01"
    bare = PlanStep(sub_question="Rival AI accelerator news", tool="web_search")
    assert web_after(bare, QUESTION, [bare], [], info)[0] == "2024-01-01"
    assert web_after(bare, "What is new at Rival?", [bare], [], _info(None))[0] is None


def test_graph_passes_the_date_filter_to_the_web_provider(settings):
    web = FakeWeb()
    record = make_service(settings, web=web).ask(QUESTION)
    assert web.afters == ["2024-01-01"]
    retrieved = [e for e in record.events if e.type == "hits_retrieved" and e.tool == "web_search"]
    assert retrieved[0].filters["after"] == ["2024-01-01"] and retrieved[0].hits


def test_empty_dated_search_is_repeated_without_the_filter_and_said(settings):
    old = WebHit(url="https://news.example/old", title="Rival roadmap", date="2023-03-01",
                 source="snapshot", text="Rival launches accelerators.")
    deps = AgentDeps(settings=settings, retriever=FakeRetriever(), corpus=_info(),
                     web=FakeWeb([old]))
    hits, warning = search_web("Rival accelerators", deps, after="2024-01-01")
    assert [h.chunk.chunk_id for h in hits] == [old.url]
    assert "2024-01-01" in warning and "without the date filter" in warning


def test_graph_reports_no_date_filter_when_it_had_to_search_without_it(settings):
    old = WebHit(url="https://news.example/old", title="Rival AI accelerator strategy",
                 date="2023-03-01", source="snapshot", text="Rival's AI accelerator strategy.")
    web = FakeWeb([old])
    record = make_service(settings, web=web).ask(QUESTION)
    assert web.afters[:2] == ["2024-01-01", None]
    retrieved = [e for e in record.events if e.type == "hits_retrieved" and e.tool == "web_search"]
    assert retrieved[0].filters == {} and retrieved[0].hits
    assert any("without the date filter" in w for w in record.warnings)


def test_snapshot_provider_honours_the_filter(settings):
    deps = AgentDeps(settings=settings, retriever=FakeRetriever(), corpus=_info(),
                     web=SnapshotWebSearch(SNAPSHOT))
    hits, warning = search_web("AMD AI accelerator", deps, after="2024-08-01")
    assert hits and warning is None
    assert all(h.document.period >= "2024-08-01" for h in hits)


# --- 6. a section filter that returned nothing is dropped from later steps too ---------

def test_carry_forward_only_for_an_empty_section_on_the_same_documents():
    sec = "Item 7. Management's Discussion and Analysis"
    plan = [PlanStep(sub_question="a", section=sec, doc_ids=["doc1"]),
            PlanStep(sub_question="b", section=sec, doc_ids=["doc1"]),
            PlanStep(sub_question="c", section=sec, doc_ids=[]),
            PlanStep(sub_question="d", section="Item 1A. Risk Factors", doc_ids=["doc1"])]
    carried = carry_forward(plan, 0, plan[0], "drop section: ...", found_nothing=True)
    assert [(j, s.section) for j, s, _ in carried] == [(1, None)]
    assert carry_forward(plan, 0, plan[0], "drop section: ...", found_nothing=False) == []
    assert carry_forward(plan, 0, plan[0], "broaden query: ...", found_nothing=True) == []


def test_graph_drops_a_broken_section_from_later_steps_once(settings):
    # one step at a time: a later step learns from an earlier one only if it starts after it
    settings = settings.model_copy(update={"parallel_steps": 1})
    svc = make_service(settings, retriever=FakeRetriever(empty_sections=("Item 7",)))
    thread_id, _, _ = svc.start("What drove revenue in Acme's results of operations?")
    sec = "Item 7. Management's Discussion and Analysis"
    plan = [PlanStep(sub_question="What drove revenue in Acme's results of operations?",
                     keywords=["revenue"], section=sec, doc_ids=["doc1"]),
            PlanStep(sub_question="What drove Acme's accelerator sales?",
                     keywords=["accelerator", "sales"], section=sec, doc_ids=["doc1"])]
    record = svc.resume(thread_id, plan).run()
    revised = [e for e in record.events if e.type == "plan_revised"]
    assert [(e.step, e.revisions_used) for e in revised] == [(0, 1), (1, 1)]
    assert "also dropped from step(s) 2" in revised[0].change
    assert revised[1].change.startswith("drop section (carried over from step 1)")
    started = [(e.step, e.attempt, e.section) for e in record.events if e.type == "step_started"]
    assert started == [(0, 0, sec), (0, 1, None), (1, 0, None)]
    assert len(record.revisions) == 1 and record.plan[1].section is None
    assert record.history[-1].evidence_ids and record.stop_reason.code == "completed"


# --- the sample walk-through, end to end -----------------------------------------------

def test_sample_walkthrough_answer_quality(settings, hash_embedder):
    from core.app.corpus import Corpus
    from core.app.research import ResearchService

    corpus = Corpus(settings, embedder=hash_embedder)
    corpus.ingest_path(SAMPLE)
    svc = ResearchService.from_corpus(settings, corpus, web=SnapshotWebSearch(SNAPSHOT))
    assert list(svc.deps.corpus.facts.values()) == [DocFacts(ticker="NWSC",
                                                             period_end="2024-12-28")]
    question = ("Based on Northwind's 2024 10-K filing, identify their key risks related to "
                "competition. Then, find recent news (post-filing, from 2024) about AMD's AI chip "
                "strategy and explain how this new strategy directly addresses or exacerbates "
                "one of Northwind's stated risks.")
    record = svc.ask(question)
    queries = [e.query for e in sorted((e for e in record.events if e.type == "query_rewritten"),
                                       key=lambda e: e.step)]
    assert not re.search(r"Northwind|2024|10-K|risks", queries[0]) and "AMD" in queries[1]
    web = [e for e in record.events if e.type == "hits_retrieved" and e.tool == "web_search"]
    assert web[0].filters["after"] == ["2024-01-01"]  # "from 2024" beats the Dec-2024 period end
    findings = [e.finding for e in sorted((e for e in record.events
                                           if e.type == "step_reflected"),
                                          key=lambda e: e.step)]  # steps 1 and 2 run side by side
    assert findings[0].startswith("We face intense competition from larger GPU")
    assert findings[2].startswith("Juxtaposed (offline): AMD's 2024 moves")
    text = record.answer.text
    assert LINK_NOTE in text and record.answer.invalid_markers == []
    bodies = [p.split("\n", 1)[1] for p in text.split("\n\n") if "\n" in p and LINK_NOTE not in p]
    said = [s.strip() for body in bodies for s in re.findall(r"(.+?)(?:\s*\[\d+\])+", body)]
    assert len(said) >= 5
    for i, a in enumerate(said):
        assert not any(near_duplicate(a, b) for b in said[i + 1:]), a
