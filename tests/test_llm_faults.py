"""Faults 11, 12 and 13 of issue 10: the real ChatOpenAI against the fake OpenAI server
(a llama.cpp-like server that fails on json_schema, an HTML page, a reply of the wrong
shape), the distiller's uncounted fallback on the NVIDIA + AMD corpus, and figures the
judges must check against the cited text."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field

from core.agent.deps import AgentDeps, CorpusInfo
from core.agent.roles.distill import distill
from core.agent.roles.retrieval import search_filings
from core.evaluation.faithfulness import faithfulness
from core.evaluation.gold import Piece
from core.evaluation.judge import EvalSample, Judge
from core.evaluation.offline import cited_claims
from core.llm.breaker import LLMGuard
from core.llm.factory import make_chat_model
from core.llm.probe import check_connection
from core.llm.structured import StructuredCallError, call_structured
from core.retrieval.rerank import get_reranker
from core.retrieval.retriever import Retriever
from testkit.fakes.fixtures import llm_settings
from testkit.fakes.openai_server import Behaviour, FakeOpenAIServer
from tests.test_llm_breaker import store, two_step_plan  # noqa: F401 (store is a fixture)

pytestmark = pytest.mark.slow


class Finding(BaseModel):
    claim: str = Field(description="One finding.")
    citations: list[str] = Field(description="Evidence ids supporting it.")


GOOD = {"claim": "AMD competes with NVIDIA", "citations": ["E1"]}
MESSAGES = [("system", "You state one finding."), ("human", "What does E1 say?")]


# --- fault 11: a server that fails on json_schema ------------------------------------------

@pytest.mark.parametrize("status", [500, 400])
def test_the_connection_test_finds_a_method_that_works(tmp_path, status):
    with FakeOpenAIServer(json_schema_status=status) as server:
        server.enqueue(Behaviour.text("OK"), Behaviour.json({"word": "OK"}))
        check = check_connection(llm_settings(server, tmp_path))
        formats = [b.get("response_format") for b in server.chat_requests]
    assert check.ok and check.method == "json_mode"
    assert [m for m, _ in check.tried] == ["json_schema", "json_mode"]
    assert f"HTTP {status}" in check.message and "works with json_mode" in check.message
    assert formats[1]["type"] == "json_schema" and formats[2] == {"type": "json_object"}


def test_the_connection_test_says_when_no_method_works(tmp_path):
    with FakeOpenAIServer(default=Behaviour.text("I am a teapot")) as server:
        check = check_connection(llm_settings(server, tmp_path))
    assert not check.ok and check.method is None
    assert [m for m, _ in check.tried] == ["json_schema", "json_mode", "function_calling",
                                           "prompt"]
    assert "no structured-output method worked" in check.message


def test_a_5xx_on_json_schema_switches_to_json_mode_for_the_rest_of_the_run(tmp_path):
    with FakeOpenAIServer(json_schema_status=500) as server:
        settings = llm_settings(server, tmp_path)
        llm, guard = make_chat_model(settings), LLMGuard()
        server.enqueue(Behaviour.json(GOOD), Behaviour.json(GOOD))
        first = call_structured(llm, Finding, MESSAGES, settings, role="distiller", guard=guard)
        second = call_structured(llm, Finding, MESSAGES, settings, role="synthesizer",
                                 guard=guard)
        formats = [b["response_format"]["type"] for b in server.chat_requests]
    assert first.method == second.method == "json_mode" and guard.method == "json_mode"
    assert formats == ["json_schema", "json_object", "json_object"]  # rediscovered once only
    assert not guard.is_open and guard.counts == {}  # the switch is not a failure


# --- fault 12: unusable output -------------------------------------------------------------

def test_a_retry_carries_the_validation_error(tmp_path):
    with FakeOpenAIServer() as server:
        settings = llm_settings(server, tmp_path)
        server.enqueue(Behaviour.json({"claim": 5, "citations": ["E1"]}), Behaviour.json(GOOD))
        result = call_structured(make_chat_model(settings), Finding, MESSAGES, settings,
                                 role="distiller")
        first, retry = server.chat_requests
    assert result.value == Finding.model_validate(GOOD) and result.attempts == 2
    assert retry["messages"] != first["messages"]  # never byte-identical at temperature 0
    said = retry["messages"][-1]["content"]
    assert "claim: Input should be a valid string (got 5)" in said and "Attempt 1" in said
    assert retry["messages"][-2] == {"role": "assistant", "content": '{"claim": 5, '
                                     '"citations": ["E1"]}'}


def test_a_list_for_a_string_and_an_echoed_schema_are_repaired_without_a_retry(tmp_path):
    with FakeOpenAIServer() as server:
        settings = llm_settings(server, tmp_path)
        llm = make_chat_model(settings)
        server.enqueue(Behaviour.json({"claim": ["AMD competes", "with NVIDIA"],
                                       "citations": "E1"}),
                       Behaviour.json({"description": "One finding.", "properties": GOOD}))
        listed = call_structured(llm, Finding, MESSAGES, settings, role="distiller")
        echoed = call_structured(llm, Finding, MESSAGES, settings, role="distiller")
        sent = len(server.chat_requests)
    assert listed.value == Finding(claim="AMD competes with NVIDIA", citations=["E1"])
    assert echoed.value == Finding.model_validate(GOOD) and sent == 2


def test_an_html_page_gives_a_clear_message(tmp_path):
    with FakeOpenAIServer(default=Behaviour.html()) as server:
        settings = llm_settings(server, tmp_path, llm_structured_method="json_mode")
        with pytest.raises(StructuredCallError) as info:
            call_structured(make_chat_model(settings), Finding, MESSAGES, settings,
                            role="planner")
    msg = str(info.value)
    assert info.value.kind == "garbage" and "AttributeError" not in msg
    assert "returns a web page, not an OpenAI-compatible API" in msg and "/v1" in msg
    assert info.value.attempts == 2  # the same failure twice: not a third time


def test_a_distiller_reply_citing_no_evidence_is_counted_as_a_fallback(tmp_path, store,  # noqa: F811
                                                                        hash_embedder):
    from core.agent.state import PlanStep

    with FakeOpenAIServer() as server:
        settings = llm_settings(server, tmp_path)
        retriever = Retriever(store, hash_embedder,
                              get_reranker(settings, hash_embedder, store), settings)
        deps = AgentDeps(settings=settings, retriever=retriever,
                         corpus=CorpusInfo.from_store(store), llm=make_chat_model(settings),
                         embedder=hash_embedder)
        step = PlanStep.model_validate(two_step_plan(store)["steps"][1])  # AMD's risks
        hits, _, _, _ = search_filings(step, "competition", "hybrid", [], deps)
        server.enqueue(Behaviour.json({"context": "- Competition is intense.",
                                       "finding": "AMD faces Intel and Nvidia.",
                                       "coverage": "answered", "missing": ""}))
        d = distill(step, "competition", hits, set(), deps)
    assert d.source == "offline" and d.evidence_ids
    assert d.call.usage.calls == 1 and d.call.usage.fallbacks == 1
    assert "cited no evidence id" in (d.call.warning or "")


# --- fault 13: figures against the cited text ------------------------------------------------

RND = "Research and development expense was $541.2 million in fiscal 2024, up from $480.1 million."
SGA = "Selling, general and administrative expense was $1,892 million in fiscal 2024."
WRONG = "Research and development expense was $1,892 million in fiscal 2024 [1]."


def contexts() -> list[Piece]:
    return [Piece(id="c1", text=RND, label="10-K p. 60"), Piece(id="c2", text=SGA)]


def test_offline_faithfulness_flags_a_figure_absent_from_the_cited_text(settings, hash_embedder):
    judge = Judge(settings, hash_embedder, None)
    wrong = faithfulness(EvalSample("R&D?", WRONG, contexts()), judge)
    assert wrong.value == 0.0
    assert wrong.details["statements"][0]["missing_numbers"] == ["1892"]
    right = faithfulness(EvalSample("R&D?", WRONG.replace("$1,892", "$541.2"), contexts()),
                         judge)
    assert right.value == 1.0
    assert cited_claims("Revenue grew 43% to $2.1 billion. [2] Margins rose.") == [
        ("Revenue grew 43% to $2.1 billion.", [2])]


def test_the_llm_judge_is_told_to_check_figures_and_is_overruled_when_it_does_not(tmp_path,
                                                                                 hash_embedder):
    lenient = {"statements": [{"statement": "R&D expense was $1,892 million in fiscal 2024.",
                               "supported": True, "reason": "R&D is discussed",
                               "figures": ["$1,892 million", "2024"], "cited": [1]}]}
    with FakeOpenAIServer() as server:
        settings = llm_settings(server, tmp_path)
        server.enqueue(Behaviour.json(lenient))
        judge = Judge(settings, hash_embedder, make_chat_model(settings))
        score = faithfulness(EvalSample("What was R&D expense?", WRONG, contexts()), judge)
        body = server.chat_requests[0]
    assert score.judge.startswith("llm:") and score.value == 0.0
    verdict = score.details["statements"][0]
    assert not verdict["supported"] and "1892 not in the cited context" in verdict["reason"]
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    assert "character by character" in system and "same line item, period and unit" in system
    assert "[1]" in user.split("ANSWER (with its [n] citations):")[1]
    assert body["max_completion_tokens"] == settings.llm_max_tokens_judge


def test_the_judge_stops_calling_a_broken_endpoint(tmp_path, hash_embedder):
    with FakeOpenAIServer(default=Behaviour.error(503, "overloaded")) as server:
        settings = llm_settings(server, tmp_path)
        judge = Judge(settings, hash_embedder, make_chat_model(settings))
        sample = EvalSample("What was R&D expense?", WRONG, contexts())
        first = faithfulness(sample, judge)
        sent = len(server.chat_requests)
        second = faithfulness(sample, judge)
        assert len(server.chat_requests) == sent <= 3  # the second metric sends nothing
    assert first.judge == second.judge == "offline" and first.value == 0.0
    assert "HTTP 503" in first.note and "LLM not called" in second.note
    assert judge.guard.is_open and judge.guard.skipped == 1
