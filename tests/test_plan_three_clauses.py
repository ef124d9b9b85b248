"""A question of three text clauses gets a step per clause, and no part is left in silence
(issue 37, items 3 and 13).

"What do A and B say about X, how do they describe Y, and what do they say about Z?": three
steps, each asking its own topic, scoped to both companies, carrying no other clause's topic
as a keyword ("they" stands for the companies, not for X). An LLM plan that drops a clause
(keeping it only as a keyword) gets a step for it; a run whose plan asks no step for a part
never says "all plan steps were researched", and its answer names the part. The wordings are
made from slots (company orders x topic triples x templates) on the two-company corpus."""

from __future__ import annotations

import itertools

import pytest

from core.agent.deps import AgentDeps
from core.agent.roles.planner import make_plan
from core.agent.roles.sentences import terms
from testkit.fakes.chat_model import FakeChatModel
from tests.plan_corpus import AMD, NVDA, WEB, TwoDocRetriever, info, service

TOPICS = ["competition", "supply chain", "climate change", "Data Center revenue"]
PAIRS = [("NVIDIA", "AMD"), ("AMD", "Nvidia")]
TEMPLATES = [
    "What do {a} and {b} say about {x}, how do they describe {y}, and what do they say "
    "about {z}?",
    "How do {a} and {b} discuss {x}, what do they say about {y}, and how do they describe "
    "{z}?",
]


def _questions():
    for k, (x, y, z) in enumerate(itertools.permutations(TOPICS, 3)):
        a, b = PAIRS[k % 2]
        yield TEMPLATES[(k // 2) % 2].format(a=a, b=b, x=x, y=y, z=z), (x, y, z)


QUESTIONS = list(_questions())


def _deps(settings, llm=None):
    from testkit.agent_fakes import FakeWeb

    return AgentDeps(settings=settings, retriever=TwoDocRetriever(), corpus=info(),
                     web=FakeWeb(list(WEB)), llm=llm)


def test_the_wordings_cover_every_slot():
    assert len(QUESTIONS) == 24
    assert {t for _, topics in QUESTIONS for t in topics} == set(TOPICS)
    assert {q.split()[2] for q, _ in QUESTIONS} == {"NVIDIA", "AMD"}


@pytest.mark.parametrize(("question", "topics"), QUESTIONS, ids=[q for q, _ in QUESTIONS])
def test_a_step_per_clause_and_no_keyword_leaks(settings, question, topics):
    steps, source, notes, _ = make_plan(question, _deps(settings), [])
    assert source == "offline" and len(steps) == 3, [s.sub_question for s in steps]
    for k, (step, topic) in enumerate(zip(steps, topics, strict=True)):
        assert terms(topic) <= terms(step.sub_question), (k, step.sub_question)
        others = set().union(*(terms(t) for t in topics if t != topic)) - terms(topic)
        assert not others & terms(" ".join(step.keywords)), (k, step.keywords)
        assert set(step.doc_ids) == {NVDA.doc_id, AMD.doc_id}
        assert step.depends_on == []  # "they" are the companies: no earlier finding needed
    assert not any("no step covers" in n for n in notes)


@pytest.mark.parametrize(("question", "topics"), QUESTIONS[::6], ids=[q for q, _ in
                                                                      QUESTIONS[::6]])
def test_the_answer_mentions_each_clause(settings, question, topics):
    record = service(settings).ask(question)
    text = record.answer.text.lower()
    for topic in topics:
        assert any(w in text for w in topic.lower().split()), (topic, record.answer.text)
    assert record.stop_reason.message == "all plan steps were researched"


def test_an_llm_plan_that_drops_a_clause_gets_a_step_for_it(settings):
    question, (x, y, z) = QUESTIONS[0]
    llm = FakeChatModel()
    llm.enqueue({"steps": [
        {"sub_question": f"What do NVIDIA and AMD say about {x}?", "justification": "j",
         "tool": "filing_search", "keywords": [x, y], "section": None, "doc_ids": []},
        {"sub_question": f"What do NVIDIA and AMD say about {z}?", "justification": "j",
         "tool": "filing_search", "keywords": [z], "section": None, "doc_ids": []}]})
    steps, source, notes, _ = make_plan(question, _deps(settings, llm), [])
    assert source == "llm" and len(steps) == 3
    added = steps[2]
    assert terms(y) <= terms(added.sub_question) and added.tool == "filing_search"
    assert set(added.doc_ids) == {NVDA.doc_id, AMD.doc_id}
    assert any("added a step" in n and y in n for n in notes)


def test_a_part_no_step_asks_is_said_never_all_researched(settings):
    question, (x, y, z) = QUESTIONS[3]
    svc = service(settings)
    thread_id, plan, _ = svc.start(question)
    assert len(plan) == 3
    kept = [s.model_dump() for k, s in enumerate(plan) if k != 1]  # the analyst drops one
    record = svc.resume(thread_id, kept).run()
    assert "all plan steps were researched" not in record.stop_reason.message
    assert y in record.stop_reason.message
    assert "Not researched" in record.answer.text and y in record.answer.text.split(
        "Not researched")[-1]
