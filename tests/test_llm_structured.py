"""call_structured through FakeChatModel: repair, retries, errors, usage, prompts."""

from __future__ import annotations

import httpx
import openai
import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from core.foundation.config import Settings
from core.foundation.errors import LLMOutputError
from core.llm.structured import StructuredCallError, call_structured
from core.llm.usage import Usage
from testkit.fakes.chat_model import FakeChatModel

SECRET = "sk-live-THIS-IS-SECRET-123456"


class Step(BaseModel):
    question: str = Field(description="Sub-question.")
    tool: str = Field(description="filing_search or web_search.")


class Plan(BaseModel):
    steps: list[Step] = Field(description="Ordered steps.")


@pytest.fixture
def cfg(tmp_path) -> Settings:
    return Settings(data_dir=tmp_path, llm_api_key=SECRET, llm_max_retries=2,
                    llm_retry_backoff_s=0.0, _env_file=None)


PLAN = {"steps": [{"question": "NVIDIA competition risks", "tool": "filing_search"}]}
MESSAGES = [("system", "You are the planner."), ("human", "Plan the research.")]


def test_clean_dict_reply_parses_and_schema_goes_in_the_system_prompt(cfg):
    llm = FakeChatModel().enqueue(PLAN)
    result = call_structured(llm, Plan, MESSAGES, cfg, role="planner")
    assert result.value == Plan.model_validate(PLAN)
    assert result.attempts == 1 and result.repaired is False
    sent = llm.history[0]
    assert isinstance(sent[0], SystemMessage)
    assert sent[0].content.startswith("You are the planner.")
    assert '"steps"' in sent[0].content and "JSON schema" in sent[0].content
    assert sent[1] == HumanMessage(content="Plan the research.")


def test_almost_json_is_repaired_without_retry(cfg):
    reply = "<think>ok</think>Here you go:\n```json\n" + (
        '{"steps": [{"question": "q1", "tool": "web_search"},],}\n```\nDone.'
    )
    llm = FakeChatModel().enqueue(reply)
    result = call_structured(llm, Plan, MESSAGES, cfg, role="planner")
    assert result.value.steps[0].tool == "web_search"
    assert result.repaired is True and result.attempts == 1 and result.raw == reply


def test_bad_output_is_retried_with_a_correction_and_usage_adds_up(cfg):
    llm = FakeChatModel().enqueue("no json here", {"steps": "wrong type"}, PLAN)
    result = call_structured(llm, Plan, MESSAGES, cfg, role="planner")
    assert result.attempts == 3
    assert result.usage.calls == 3
    # Tokens of every attempt are counted (the fake counts whitespace words).
    sent = sum(len(str(m.content).split()) for h in llm.history for m in h)
    assert result.usage.prompt_tokens == sent
    assert result.usage.completion_tokens == 3 + 3 + 7  # words of the three replies
    retry_prompt = llm.history[1]
    assert isinstance(retry_prompt[-2], AIMessage) and retry_prompt[-2].content == "no json here"
    assert "could not be used" in retry_prompt[-1].content
    assert "no JSON object" in retry_prompt[-1].content
    # The correction names the schema problem the second time.
    assert "does not match Plan" in llm.history[2][-1].content


def test_unusable_after_all_retries_raises_llm_output_error_with_usage(cfg):
    llm = FakeChatModel().enqueue("nope", "still nope", "never")
    with pytest.raises(LLMOutputError) as info:
        call_structured(llm, Plan, MESSAGES, cfg, role="planner")
    err = info.value
    assert isinstance(err, StructuredCallError)
    assert err.attempts == 3 and err.usage.calls == 3 and err.kind == "output"
    assert str(err).startswith("planner: no usable Plan from the LLM after 3 attempt(s)")
    assert llm.pending == 0


def test_timeouts_are_retried_then_success(cfg):
    llm = FakeChatModel().enqueue(TimeoutError("slow"), PLAN)
    result = call_structured(llm, Plan, MESSAGES, cfg, role="planner")
    assert result.attempts == 2 and result.usage.calls == 2


def test_non_retriable_error_fails_at_once_and_never_shows_the_key(cfg):
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    response = httpx.Response(401, request=request)
    auth = openai.AuthenticationError(f"Incorrect API key provided: {SECRET}", response=response,
                                      body={"error": {"message": f"bad key {SECRET}"}})
    llm = FakeChatModel().enqueue(auth, PLAN)
    with pytest.raises(StructuredCallError) as info:
        call_structured(llm, Plan, MESSAGES, cfg, role="planner")
    assert info.value.kind == "auth" and info.value.attempts == 1
    assert SECRET not in str(info.value) and "HTTP 401" in str(info.value)
    assert llm.pending == 1  # the good reply was never requested


def test_zero_retries_means_one_attempt(tmp_path):
    cfg = Settings(data_dir=tmp_path, llm_max_retries=0, _env_file=None)
    llm = FakeChatModel().enqueue("bad", PLAN)
    with pytest.raises(LLMOutputError, match="after 1 attempt"):
        call_structured(llm, Plan, MESSAGES, cfg, role="policy")


def test_tool_call_reply_from_fake_is_used(cfg):
    msg = AIMessage(content="", tool_calls=[{"name": "Plan", "args": PLAN, "id": "c1"}])
    llm = FakeChatModel().enqueue(msg)
    result = call_structured(llm, Plan, MESSAGES, cfg, role="planner")
    assert result.value.steps[0].question == "NVIDIA competition risks"


def test_fake_reports_usage_and_records_history_and_default():
    llm = FakeChatModel(default="fallback")
    out = llm.invoke([HumanMessage(content="one two three")])
    assert out.content == "fallback"
    assert out.usage_metadata["input_tokens"] == 3 and out.usage_metadata["output_tokens"] == 1
    assert Usage.from_message(out) == Usage(calls=1, prompt_tokens=3, completion_tokens=1)
    assert llm.history == [[HumanMessage(content="one two three")]]


def test_fake_without_reply_or_default_fails_loudly():
    with pytest.raises(RuntimeError, match="no reply queued"):
        FakeChatModel().invoke("hi")


def test_fake_bind_tools_records_tools():
    llm = FakeChatModel().enqueue("ok")
    llm.bind_tools([Plan], tool_choice="Plan").invoke("hi")
    tools = llm.call_kwargs[0]["tools"]
    assert tools[0]["function"]["name"] == "Plan" and llm.call_kwargs[0]["tool_choice"] == "Plan"


def test_backoff_doubles_is_capped_and_honours_retry_after(cfg):
    from core.llm.request import MAX_BACKOFF_S, MAX_RETRY_AFTER_S
    from core.llm.request import backoff as _backoff

    slow = cfg.model_copy(update={"llm_retry_backoff_s": 1.0})
    assert [_backoff(slow, n, None) for n in (1, 2, 3)] == [1.0, 2.0, 4.0]
    assert _backoff(slow, 10, None) == MAX_BACKOFF_S
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    limited = openai.RateLimitError("slow down", body=None, response=httpx.Response(
        429, request=request, headers={"retry-after": "3"}))
    assert _backoff(slow, 1, limited) == 3.0
    greedy = openai.RateLimitError("slow down", body=None, response=httpx.Response(
        429, request=request, headers={"retry-after": "3600"}))
    assert _backoff(slow, 1, greedy) == MAX_RETRY_AFTER_S
