"""What an LLM endpoint replies, hostile or broken, through the real ChatOpenAI against the
fake OpenAI server on 127.0.0.1 (issue 32): well-formed prose to every call (main said
"llm:fake-model" and no failure line), HTTP 200 with a body that is not JSON (main ended in
a bare "JSONDecodeError: Expecting value ..."), truncated JSON, the wrong schema, tool calls
to unknown tools, and answers citing evidence that does not exist."""

from __future__ import annotations

import io
import json
import re

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from core.agent.roles.citations import validate_citations
from core.agent.state import Evidence
from core.cli.agent import print_record
from core.llm.breaker import LLMGuard
from core.llm.factory import make_chat_model
from core.llm.structured import StructuredCallError, call_structured
from core.llm.tools import call_with_tools
from testkit.agent_fakes import make_service
from testkit.fakes.fixtures import llm_settings
from testkit.fakes.openai_server import Behaviour, FakeOpenAIServer

QUESTION = "What drove Acme's revenue in fiscal 2023?"
PROSE = Behaviour.text("Certainly! Acme's revenue grew because demand was strong. I hope this "
                       "helps with your research.")


def _run(tmp_path, default: Behaviour, *first: Behaviour, **kw):
    with FakeOpenAIServer(default=default) as server:
        server.enqueue(*first)
        settings = llm_settings(server, tmp_path, llm_max_retries=0, **kw)
        record = make_service(settings, llm=make_chat_model(settings)).ask(QUESTION)
    return record, settings, server


def test_prose_to_every_call_is_accounted_like_a_failing_server(tmp_path):
    record, _, server = _run(tmp_path, PROSE)
    assert record.status == "done" and record.answer is not None
    assert record.backend == "offline engine (LLM replies unusable: no JSON object found in " \
                             "the reply)"
    assert record.llm.replies == len(server.chat_requests) > 0 and record.llm.usable == 0
    note = record.llm_note
    assert note.startswith(f"The LLM replied to {record.llm.replies} request(s) but no reply "
                           "could be used (no JSON object found in the reply); the offline "
                           "engine wrote this answer. Offline rule: planner"), note
    assert "Answered by the LLM" not in note
    out = io.StringIO()
    print_record(record, out)
    assert "offline engine (LLM replies unusable" in out.getvalue()
    assert note in out.getvalue() or "no reply could be used" in out.getvalue()


def test_a_failing_server_names_the_roles_that_fell_back_too(tmp_path):
    record, _, _ = _run(tmp_path, Behaviour.error(500))
    assert record.backend == "offline engine (LLM failed: HTTP 500)"
    assert "the offline engine wrote this answer. Offline rule: planner" in record.llm_note


def test_a_plan_from_the_llm_then_prose_names_who_answered_what(tmp_path):
    plan = {"steps": [{"sub_question": "What drove Acme's revenue in fiscal 2023?",
                       "justification": "the question", "tool": "filing_search",
                       "keywords": ["revenue"], "section": None, "doc_ids": [],
                       "depends_on": [], "metric": None, "periods": [], "formula": None,
                       "unit": None, "decimals": None}]}
    record, _, _ = _run(tmp_path, PROSE, Behaviour.json(plan), llm_breaker_threshold=5)
    assert record.backend == "llm:fake-model"  # the LLM did answer the planner
    assert record.usage["planner"].answered == 1
    note = record.llm_note
    assert "Answered by the LLM: planner." in note and "Offline rule: " in note
    assert re.search(r"\d+ call\(s\) got no usable reply: no JSON object found", note), note


def test_a_200_reply_that_is_not_json_is_a_sentence_with_the_url(tmp_path):
    record, settings, _ = _run(tmp_path, Behaviour.raw("this is not json"))
    assert record.backend == "offline engine (LLM failed: not an OpenAI-compatible reply)"
    first = record.warnings[0]
    assert f"{settings.llm_base_url} replied with a body that is not JSON, so not the OpenAI " \
           "chat-completion format" in first
    assert not re.search(r"(^|: )JSONDecodeError: Expecting value", first), first
    assert "SECRET" not in " ".join(record.warnings)


@pytest.mark.parametrize(("reply", "why"), [
    (Behaviour.text('{"claim": "Acme competes", "citations": ["E1"'), "unusable reply"),
    (Behaviour.json({"verdict": "yes", "score": 3}), "unusable reply"),
    (Behaviour.json([{"claim": "x"}]), "unusable reply"),
    (Behaviour.text(""), "unusable reply"),
    (Behaviour.raw('{"id": "x", "object": "chat.completion", "choices": null}'),
     "did not answer like an OpenAI-compatible chat API"),
    (Behaviour.raw("<html>login</html>", content_type="text/html"),
     "returns a web page, not an OpenAI-compatible API: point the base URL at the API root"),
    (Behaviour.error(401), "Authentication failed"),
    (Behaviour.error(404), "not found"),
    (Behaviour.error(429), "Rate limited"),
])
def test_one_structured_call_fails_with_one_line_naming_why(tmp_path, reply, why):
    class Finding(BaseModel):
        claim: str = Field(description="One finding.")
        citations: list[str] = Field(description="Evidence ids.")

    with FakeOpenAIServer(default=reply) as server:
        settings = llm_settings(server, tmp_path, llm_max_retries=1)
        with pytest.raises(StructuredCallError) as err:
            call_structured(make_chat_model(settings), Finding,
                            [("system", "One finding."), ("human", "What does E1 say?")],
                            settings, role="distiller", guard=LLMGuard())
    message = str(err.value)
    assert why in message and "\n" not in message and "sk-test-SECRET" not in message


def test_tool_calls_to_unknown_tools_are_answered_never_run(tmp_path):
    ran = []

    def execute(name, args):
        if name != "figure_lookup":
            raise KeyError(f"no tool {name}")
        ran.append(args)
        return json.dumps({"value": 1})

    tools = [{"type": "function", "function": {
        "name": "figure_lookup", "description": "look up a figure",
        "parameters": {"type": "object", "properties": {"metric": {"type": "string"}}}}}]
    with FakeOpenAIServer() as server:
        server.enqueue(Behaviour.tool_call({"path": "/etc/passwd"}, name="read_file"),
                       Behaviour.tool_call({"metric": "revenue"}, name="figure_lookup"),
                       Behaviour.text("Revenue was 1."))
        settings = llm_settings(server, tmp_path)
        run = call_with_tools(make_chat_model(settings), [("human", "revenue?")], tools,
                              execute, settings, role="figure_tools", guard=LLMGuard())
        sent = server.chat_requests
    assert ran == [{"metric": "revenue"}] and run.text == "Revenue was 1."
    assert "no tool read_file" in run.calls[0].result
    tool_messages = [m for m in sent[1]["messages"] if m.get("role") == "tool"]
    assert "error" in tool_messages[0]["content"]


EVIDENCE = {1: Evidence(id="doc1-00001", kind="chunk", text="t", label="Acme — Item 1A"),
            2: Evidence(id="doc1-00007", kind="chunk", text="t", label="Acme — Item 7"),
            3: Evidence(id="https://news.example/a", kind="web", text="t", label="News")}
MARKER = st.sampled_from(["[1]", "[2]", "[3]", "[4]", "[99]", "[E7]", "[doc1-00001]",
                          "[deadbeefdeadbeef-00001]", "[1, 99]", "[2-5]", "[sic]",
                          "[Item 1A]", "[0]"])


@given(st.lists(st.tuples(st.text(alphabet="abc .", max_size=12), MARKER), max_size=8))
def test_citations_to_evidence_that_does_not_exist_are_dropped_and_named(parts):
    text = " ".join(words + marker for words, marker in parts)
    check = validate_citations(text, EVIDENCE)
    kept = [int(n) for n in re.findall(r"\[(\d+)\]", check.text)]
    assert all(n in EVIDENCE for n in kept)
    assert {c.n for c in check.citations} == set(kept)
    assert all(c.evidence_id == EVIDENCE[c.n].id for c in check.citations)
    for bad in ("[99]", "[deadbeefdeadbeef-00001]", "[0]"):
        if bad in text:
            assert bad in check.invalid


PLAN_JSON = json.dumps({"steps": [
    {"sub_question": "What competition risks does Acme state?", "justification": "asked",
     "tool": "filing_search", "keywords": ["competition"], "section": "Item 1A"},
    {"sub_question": "What did Rival announce in 2024?", "justification": "asked",
     "tool": "web_search", "keywords": ["Rival", "2024"], "section": None}]})


@pytest.fixture(scope="module")
def planner_server():
    with FakeOpenAIServer() as server:
        yield server


def _plan_call(server, tmp_path, reply: Behaviour):
    from core.agent.roles.planner import PlannerOutput

    server.default = reply
    settings = llm_settings(server, tmp_path, llm_max_retries=0)
    return call_structured(make_chat_model(settings), PlannerOutput,
                           [("system", "Plan."), ("human", QUESTION)], settings,
                           role="planner", guard=LLMGuard())


@hsettings(max_examples=40, deadline=None,
           suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(min_value=1, max_value=len(PLAN_JSON) - 1), st.booleans())
def test_a_plan_cut_anywhere_is_never_taken_for_a_shorter_plan(planner_server, tmp_path, cut,
                                                               at_limit):
    """A reply cut short (at the token limit or not) is refused in one line, never read as
    the steps it got through (langchain's partial-JSON parser would keep them)."""
    text = PLAN_JSON[:cut]
    reply = Behaviour.text(text)
    if at_limit:
        reply = Behaviour.raw(json.dumps({
            "id": "x", "object": "chat.completion", "created": 0, "model": "fake-model",
            "choices": [{"index": 0, "finish_reason": "length",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}))
    with pytest.raises(StructuredCallError) as err:
        _plan_call(planner_server, tmp_path, reply)
    message = str(err.value)
    assert message.startswith("planner: no usable PlannerOutput from the LLM after 1 "
                              "attempt(s): unusable reply") and "\n" not in message
    assert ("cut off at the token limit" in message) == at_limit
    assert "Error:" not in message and "CompletionUsage" not in message


WRONG = st.one_of(
    st.fixed_dictionaries({"steps": st.one_of(st.text(max_size=20), st.integers(),
                                              st.lists(st.integers(), min_size=1, max_size=3),
                                              st.lists(st.text(max_size=10), min_size=1,
                                                       max_size=3))}),
    st.fixed_dictionaries({"plan": st.just([{"question": "x"}])}),
    st.fixed_dictionaries({"steps": st.just([{"justification": "no question", "tool":
                                              "filing_search"}])}),
    st.fixed_dictionaries({"steps": st.just([{"sub_question": "x", "tool": "shell"}])}))


@hsettings(max_examples=40, deadline=None,
           suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(WRONG)
def test_a_plan_of_the_wrong_shape_is_refused_in_one_line(planner_server, tmp_path, body):
    with pytest.raises(StructuredCallError) as err:
        _plan_call(planner_server, tmp_path, Behaviour.json(body))
    message = str(err.value)
    assert "unusable reply" in message and "\n" not in message
    assert "sk-test-SECRET" not in message


def _cut_off(text: str) -> Behaviour:
    """A chat completion stopped at the token limit (``finish_reason: length``)."""
    return Behaviour.raw(json.dumps({
        "id": "x", "object": "chat.completion", "created": 0, "model": "fake-model",
        "choices": [{"index": 0, "finish_reason": "length",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}))


def test_a_run_whose_replies_are_all_cut_off_says_so(tmp_path):
    """The SDK's bare "LengthFinishReasonError: ... CompletionUsage(...)" was the warning."""
    record, _, _ = _run(tmp_path, _cut_off('{"steps": [{"sub_question": "What dr'))
    assert record.status == "done" and record.answer is not None
    assert record.backend == "offline engine (LLM failed: replies cut off at the token limit)"
    first = record.warnings[0]
    assert first.startswith("planner: no usable LLM reply (planner: no usable PlannerOutput "
                            "from the LLM after 1 attempt(s): unusable reply: cut off at the "
                            "token limit before its JSON was complete (raise the role's reply "
                            "bound, e.g. DTR_LLM_MAX_TOKENS='{\"planner\": 4000}'))"), first
    assert "DTR_LLM_MAX_TOKENS='{\"rewriter\": 4000}'" in record.warnings[1]
    assert not any("LengthFinishReasonError" in w or "CompletionUsage" in w
                   for w in record.warnings)
