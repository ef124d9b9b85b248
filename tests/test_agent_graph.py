"""The research graph through ResearchService with small fakes: review, loops, bounds, resume."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.agent.roles.planner import PLANNER_PROMPT
from core.agent.state import PlanStep
from core.app.runs import load_run
from core.foundation.config import Settings
from core.foundation.errors import PlanValidationError
from testkit.agent_fakes import QUESTION, FakeRetriever, FakeWeb, make_service
from testkit.fakes.chat_model import FakeChatModel

ROOT = Path(__file__).resolve().parent.parent


def _types(events):
    return [e.type for e in events]


def _steps(record):
    return [(e.step, e.attempt) for e in record.events if e.type == "step_started"]


def test_offline_run_pauses_for_review_then_answers_with_citations(settings):
    svc = make_service(settings)
    thread_id, plan, events = svc.start(QUESTION)
    assert _types(events) == ["route_chosen", "plan_proposed"] and len(plan) == 3
    assert [r.id for r in svc.paused_runs()] == [thread_id]
    stream = svc.resume(thread_id)
    live = list(stream)
    record = stream.record
    assert record.status == "done" and record.stop_reason.code == "completed"
    assert live[-1].type == "answer_ready"
    assert {"step_started", "query_rewritten", "strategy_chosen", "hits_retrieved",
            "hits_reranked", "context_distilled", "step_reflected", "policy_decided"} \
        <= set(_types(live))
    # continuing never re-runs the planner nor resets progress
    assert _types(record.events).count("plan_proposed") == 1
    assert sorted(s for s, _ in _steps(record)) == [0, 1, 2]  # independent steps: any order
    assert [h.step for h in record.history] == [0, 1, 2]
    # every [n] maps to evidence of the run; the filing and the web both cited
    kinds = {c.kind for c in record.answer.citations}
    assert kinds == {"chunk", "web"}
    for c in record.answer.citations:
        assert record.evidence[c.n - 1].id == c.evidence_id
    assert svc.paused_runs() == []
    assert load_run(settings, thread_id).answer.text == record.answer.text


def test_events_carry_per_stage_scores_and_reranker(settings):
    svc = make_service(settings)
    record = svc.ask(QUESTION)
    # the filing step's events (steps side by side interleave theirs)
    reranked = [e for e in record.events if e.type == "hits_reranked" and e.step == 0]
    assert record.plan[0].tool == "filing_search"
    assert reranked[0].reranker.name == "fake-overlap"
    assert "reranked" in reranked[0].hits[0].stages
    # the reranker scores the rewritten query, not the raw sub-question
    rewritten = [e.query for e in record.events if e.type == "query_rewritten" and e.step == 0]
    assert svc.deps.retriever.reranker.queries[0] == rewritten[0]
    assert rewritten[0] != record.plan[0].sub_question


def test_review_with_an_edited_plan(settings):
    web = FakeWeb()
    svc = make_service(settings, web=web)
    thread_id, plan, _ = svc.start(QUESTION)
    edited = [
        {"sub_question": "What did Rival announce?", "tool": "web_search",
         "keywords": "Rival, accelerator"},
        plan[0].model_copy(update={"section": "Item 7", "keywords": ["revenue", "grew"]}),
    ]
    record = svc.resume(thread_id, edited).run()
    approved = next(e for e in record.events if e.type == "plan_approved")
    assert approved.edited and [s.tool for s in approved.plan] == ["web_search", "filing_search"]
    assert sorted(e.sub_question for e in record.events if e.type == "step_started") == \
        sorted(["What did Rival announce?", plan[0].sub_question])  # side by side: any order
    assert web.queries and svc.deps.retriever.calls[-1]["sections"] == \
        ["Item 7. Management's Discussion and Analysis"]
    assert len(record.history) == 2


def test_invalid_edit_is_rejected_and_the_paused_run_stays_intact(settings):
    svc = make_service(settings)
    thread_id, plan, _ = svc.start(QUESTION)
    bad = [{"sub_question": "", "tool": "filing_search"},
           {"sub_question": "x", "tool": "filing_search", "section": "Item 99. Nope"}]
    with pytest.raises(PlanValidationError) as info:
        svc.resume(thread_id, bad)
    assert any("step 1" in p and "empty" in p for p in info.value.problems)
    assert any("Item 99" in p and "Item 1A. Risk Factors" in p for p in info.value.problems)
    with pytest.raises(PlanValidationError, match="unknown tool"):
        svc.resume(thread_id, [{"sub_question": "x", "tool": "google"}])
    assert svc.pending_plan(thread_id) == plan
    assert svc.resume(thread_id).run().status == "done"


def test_revise_after_an_empty_step(settings):
    retriever = FakeRetriever(empty_sections=("Item 7",))
    svc = make_service(settings, retriever=retriever)
    thread_id, _, _ = svc.start("What drove revenue in Acme's results of operations?")
    plan = svc.pending_plan(thread_id)
    assert plan[0].section.startswith("Item 7")
    record = svc.resume(thread_id).run()
    revised = [e for e in record.events if e.type == "plan_revised"]
    assert revised and revised[0].change.startswith("drop section")
    decisions = [e.decision for e in record.events if e.type == "policy_decided"]
    assert decisions[0] == "REVISE"
    assert _steps(record) == [(0, 0), (0, 1)]
    assert record.history[0].coverage == "none" and record.history[1].evidence_ids
    assert "[1]" in record.answer.text and record.stop_reason.code == "completed"


def test_bound_max_steps(settings):
    svc = make_service(settings.model_copy(update={"max_steps": 2}))
    thread_id, _, _ = svc.start(
        "What are Acme's risks? What drove revenue in the results of operations?"
    )
    three = [PlanStep(sub_question="Competition?", keywords=["competition"]),
             PlanStep(sub_question="Revenue?", keywords=["revenue", "grew"]),
             PlanStep(sub_question="What does Acme sell?", keywords=["products"])]
    record = svc.resume(thread_id, three).run()
    assert record.stop_reason.code == "max_steps"
    assert [h.step for h in record.history] == [0, 1]
    assert "1 plan step(s) not run" in record.stop_reason.message
    assert "max_steps" in record.answer.text and "[1]" in record.answer.text


def test_bound_max_revisions(settings):
    s = settings.model_copy(update={"max_revisions": 1})
    svc = make_service(s, retriever=FakeRetriever(always_empty=True), web=FakeWeb([]))
    record = svc.ask("What drove revenue in Acme's results of operations?")
    assert len(record.revisions) == 1
    assert record.stop_reason.code == "max_revisions"
    assert "could not find" in record.answer.text.lower()
    assert record.answer.citations == []


def test_bound_wall_time(settings):
    ticks = itertools.count(0, 1000)  # every look at the clock: +1000 s
    svc = make_service(settings, clock=lambda: float(next(ticks)))
    record = svc.ask(QUESTION)
    assert record.stop_reason.code == "max_wall_s"
    assert record.history == [] and "wall-time" in record.answer.text


def _two_step_llm(synthesis: bool) -> FakeChatModel:
    llm = FakeChatModel()
    llm.enqueue({"steps": [{"sub_question": "Competition risks?", "justification": "j",
                            "tool": "filing_search", "keywords": ["competition"],
                            "section": "Item 1A", "doc_ids": []},
                           {"sub_question": "Revenue?", "justification": "j",
                            "tool": "filing_search", "keywords": ["revenue"],
                            "section": None, "doc_ids": []}]})
    llm.enqueue({"query": "competition larger chip vendors", "strategy": "keyword",
                 "justification": "names"})
    llm.enqueue({"context": "- Intense competition from larger vendors [doc1-00001]",
                 "finding": "Competition is intense.", "coverage": "answered", "missing": ""})
    if synthesis:
        llm.enqueue({"query": "revenue grew", "strategy": "keyword", "justification": "j"},
                    {"context": "- Revenue grew 35% [doc1-00003]", "finding": "Grew 35%.",
                     "coverage": "answered", "missing": ""},
                    {"answer": "Competition [1]; revenue grew 35% [2].", "not_found": []},
                    {"verdicts": [{"index": 1, "supported": True, "reason": ""}]})
    return llm


def test_bound_tokens_ends_with_the_best_answer_so_far(settings):
    settings = settings.model_copy(update={"parallel_steps": 1})  # scripted replies in order
    full = make_service(settings, llm=_two_step_llm(True)).ask("q")  # measure each call
    assert full.stop_reason.code == "completed" and full.total_usage.calls == 7  # + self-check
    calls = [e.usage.total for e in full.events if e.usage is not None]  # one per LLM call
    first_step = sum(calls[:3])  # planner + step 1's rewriter and distiller
    s = settings.model_copy(update={"max_tokens": first_step - 5})
    llm = _two_step_llm(False)
    record = make_service(s, llm=llm).ask("q")
    assert record.stop_reason.code == "max_tokens"
    assert set(record.usage) == {"planner", "rewriter", "distiller"}  # no more LLM calls
    assert record.total_usage.calls == 3 and llm.pending == 0
    assert "Acme Chips: Intense competition from larger vendors [1]." in record.answer.text
    assert "token budget" in record.answer.text and record.answer.source == "offline"


def test_resume_with_a_new_graph_and_checkpointer(settings):
    first = make_service(settings)
    thread_id, plan, _ = first.start(QUESTION)
    first.close()
    second = make_service(settings)  # new SqliteSaver on the same file, new compiled graph
    assert [r.id for r in second.paused_runs()] == [thread_id]
    assert second.pending_plan(thread_id) == plan
    record = second.resume(thread_id).run()
    assert record.status == "done" and record.question == QUESTION
    assert _types(record.events)[:2] == ["route_chosen", "plan_proposed"]  # kept over restart


@pytest.mark.slow
def test_resume_in_a_new_process(settings):
    svc = make_service(settings)
    thread_id, _, _ = svc.start(QUESTION)
    svc.close()
    script = (
        "import json, sys\n"
        "from core.foundation.config import Settings\n"
        "from testkit.agent_fakes import make_service\n"
        "s = Settings(data_dir=sys.argv[1], _env_file=None)\n"
        "rec = make_service(s).resume(sys.argv[2]).run()\n"
        "print(json.dumps({'status': rec.status, 'n': len(rec.answer.citations)}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", script, str(settings.data_dir), thread_id],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["status"] == "done" and result["n"] > 0
    assert load_run(Settings(data_dir=settings.data_dir, _env_file=None), thread_id).status \
        == "done"


def test_llm_run_counts_calls_per_role(settings):
    settings = settings.model_copy(update={"parallel_steps": 1})  # scripted replies in order
    llm = FakeChatModel()
    llm.enqueue(
        {"steps": [{"sub_question": "Competition risks?", "justification": "j",
                    "tool": "filing_search", "keywords": ["competition"], "section": "Item 1A",
                    "doc_ids": ["doc1"]},
                   {"sub_question": "Rival news?", "justification": "j", "tool": "web_search",
                    "keywords": ["Rival"], "section": None, "doc_ids": []}]},
        {"query": "competition larger chip vendors", "strategy": "keyword", "justification": "j"},
        {"context": "- Intense competition [doc1-00001]", "finding": "Intense competition.",
         "coverage": "answered", "missing": ""},
        {"query": "Rival AI accelerator roadmap", "strategy": "hybrid", "justification": "j"},
        {"context": "- Annual launches [https://news.example/rival-ai-roadmap]",
         "finding": "Rival launches yearly.", "coverage": "answered", "missing": ""},
        {"answer": "Acme faces competition [1]. Rival launches yearly [2]. Invented [5].",
         "not_found": []},
        {"verdicts": [{"index": 1, "supported": True}, {"index": 2, "supported": True}]},
    )
    svc = make_service(settings, llm=llm)
    record = svc.ask(QUESTION)
    assert {r: u.calls for r, u in record.usage.items()} == \
        {"planner": 1, "rewriter": 2, "distiller": 2, "synthesizer": 1, "selfcheck": 1}
    assert llm.pending == 0 and record.total_usage.calls == 7 and record.total_usage.total > 0
    assert sum(PLANNER_PROMPT.splitlines()[0] in h[0].content for h in llm.history) == 1
    assert record.answer.invalid_markers == ["[5]"] and "[5]" not in record.answer.text
    assert [c.kind for c in record.answer.citations] == ["chunk", "web"]
    assert any("removed 1 citation" in w for w in record.warnings)


class _Crashing(FakeRetriever):
    def search(self, *args, **kwargs):
        raise RuntimeError("index corrupted (token sk-live-ABCDEF123456)")


def test_a_crashing_component_fails_the_run_with_an_error_event(settings):
    svc = make_service(settings, retriever=_Crashing())
    thread_id, _, _ = svc.start("What drove revenue in Acme's results of operations?")
    stream = svc.resume(thread_id)
    events = list(stream)
    assert events[-1].type == "error" and "index corrupted" in events[-1].message
    assert "sk-live-ABCDEF123456" not in events[-1].message
    record = load_run(settings, thread_id)
    assert record.status == "failed" and record.answer is None
    assert record.error == events[-1].message
