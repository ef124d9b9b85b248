"""One structured LLM call with method choice, repair and bounded retries.

``call_structured(llm, Schema, messages, settings, role="planner")`` returns a
validated ``Schema`` instance or raises ``LLMOutputError`` (as its subclass
``StructuredCallError``, which carries the usage spent). The method comes from
``settings.llm_structured_method``:

- ``json_schema``: ``response_format={"type": "json_schema", ...}`` (OpenAI,
  vLLM; llama.cpp's server does not accept it);
- ``function_calling``: one forced tool call whose arguments are the object;
- ``json_mode``: ``response_format={"type": "json_object"}`` with the schema
  described in the system prompt;
- ``prompt``: no response format at all, the schema in the system prompt and the
  reply's text repaired (any chat endpoint).

A method the endpoint rejects (HTTP 400, or HTTP 5xx for ``json_schema``, which is
how llama.cpp's server fails on it) is replaced by the next one (json_schema ->
json_mode -> prompt, function_calling -> prompt) for the rest of the run. Every
request carries the role's output bound (``Settings.llm_max_tokens_for``) and a
timeout cut to the run's remaining wall time (``core.llm.breaker.LLMGuard``).

langchain's ``with_structured_output(..., include_raw=True)`` does the native
parse; when it fails the raw text goes through ``core.llm.repair``. Models
without native support (``FakeChatModel``) get the schema in the prompt and
the raw-text path. Retries cover unusable output, HTTP 429/5xx, timeouts and
connection errors; authentication, unknown model and bad requests fail at once.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.messages.utils import convert_to_messages
from pydantic import BaseModel

from core.foundation.config import Settings
from core.foundation.errors import LLMOutputError
from core.llm.breaker import LLMGuard, active_guard
from core.llm.failures import describe, redact
from core.llm.repair import RepairError, parse_model
from core.llm.request import MIN_CALL_S, backoff, bounded, next_method
from core.llm.usage import Usage

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)


@dataclass
class StructuredResult(Generic[M]):
    """A validated reply: ``value``, the ``usage`` of every attempt, ``attempts`` made,
    the ``raw`` text of the reply that was used and whether it needed ``repaired``."""

    value: M
    usage: Usage
    attempts: int
    raw: str
    repaired: bool = False
    method: str = ""


class StructuredCallError(LLMOutputError):
    """``LLMOutputError`` carrying ``kind``, ``attempts`` and the ``usage`` spent."""

    def __init__(self, message: str, *, kind: str, attempts: int, usage: Usage,
                 detail: str = ""):
        super().__init__(message)
        self.detail = detail or message
        """The last failure alone (no role or attempt count), redacted."""
        self.kind = kind
        self.attempts = attempts
        self.usage = usage


def schema_instruction(schema: type[BaseModel]) -> str:
    """Prompt text asking for one JSON object matching ``schema``."""
    spec = json.dumps(schema.model_json_schema(), ensure_ascii=False)
    return (
        "Reply with exactly one JSON object and nothing else (no prose, no code fences). "
        f"It must validate against this JSON schema:\n{spec}"
    )


def _with_instruction(messages: list[BaseMessage], schema: type[BaseModel]) -> list[BaseMessage]:
    text = schema_instruction(schema)
    if messages and isinstance(messages[0], SystemMessage):
        first = messages[0]
        return [SystemMessage(content=f"{first.text}\n\n{text}"), *messages[1:]]
    return [SystemMessage(content=text), *messages]


def _supports_native(llm: Any) -> bool:
    flag = getattr(llm, "structured_output_native", None)
    if flag is not None:
        return bool(flag)
    try:
        from langchain_openai.chat_models.base import BaseChatOpenAI
    except ImportError:  # pragma: no cover
        return False
    return isinstance(llm, BaseChatOpenAI)


def strict_json_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """``schema`` as a strict-mode JSON schema dict (every property required, no extras).

    Passing a dict (not the pydantic class) to ``with_structured_output`` keeps
    the OpenAI SDK from parsing the reply itself: its parse error would lose
    the raw text we want to repair.
    """
    from openai.lib._pydantic import to_strict_json_schema

    return {"title": schema.__name__, **to_strict_json_schema(schema)}


def _runnable(llm: BaseChatModel, schema: type[BaseModel], method: str, native: bool) -> Any:
    if not native:
        return llm
    if method == "json_schema":
        return llm.with_structured_output(
            strict_json_schema(schema), method=method, strict=True, include_raw=True
        )
    return llm.with_structured_output(schema, method=method, include_raw=True)


def _raw_text(message: AIMessage) -> str:
    """The reply's payload as text: first tool call's arguments, else the content."""
    if message.tool_calls:
        return json.dumps(message.tool_calls[0].get("args") or {}, ensure_ascii=False)
    if message.invalid_tool_calls:
        return str(message.invalid_tool_calls[0].get("args") or "")
    return message.text if hasattr(message, "text") else str(message.content)


def _is_json(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except json.JSONDecodeError:
        return False


def _retry_prompt(exc: Exception, attempt: int) -> HumanMessage:
    return HumanMessage(content=(
        f"Attempt {attempt}: that reply could not be used. Problem: {exc}. Fix exactly this "
        "and reply again with only the JSON object holding the values (not the schema), "
        "every field of the schema present with the right type."))


def call_structured(
    llm: BaseChatModel,
    schema: type[M],
    messages: list[Any],
    settings: Settings,
    *,
    role: str,
    guard: LLMGuard | None = None,
) -> StructuredResult[M]:
    """Ask ``llm`` for a ``schema`` object; repair, retry, and account for usage.

    ``messages`` may be langchain messages or ``(role, text)`` tuples. ``guard`` is the
    run's breaker (``core.llm.breaker``; else the ``guarding`` one, else a fresh one for
    this call): no request is
    sent while it is open or when the run's deadline has passed. Raises
    ``StructuredCallError`` (an ``LLMOutputError``) whose message names the role and the
    last failure, never the API key.
    """
    guard = guard or active_guard() or LLMGuard(threshold=settings.llm_breaker_threshold)
    if guard.is_open:
        guard.skip()
        raise StructuredCallError(f"{role}: LLM not called (the endpoint failed earlier in "
                                  "this run)", kind="skipped", attempts=0, usage=Usage())
    method = guard.method or settings.llm_structured_method
    native = _supports_native(llm) and method != "prompt"
    original = convert_to_messages(messages)
    base = original if native and method != "json_mode" else _with_instruction(original, schema)
    max_attempts = 1 + settings.llm_max_retries
    usage = Usage()
    convo = list(base)
    last, kind, attempt, sent = "no attempt made", "error", 0, 0
    while attempt < max_attempts:
        timeout = guard.timeout(settings.llm_timeout_s)
        if timeout < MIN_CALL_S:
            left = ("no run time left for another LLM call (max_wall_s reached); "
                    "answered without it")
            last, kind = (f"{last}; then {left}" if sent else left), "deadline"
            if sent == 0:
                guard.skip()
            break
        attempt += 1
        runnable = _runnable(bounded(llm, settings, role, timeout), schema, method, native)
        sent += 1
        try:
            out = runnable.invoke(convo)
        except Exception as exc:  # noqa: BLE001 - classified below
            usage = usage + Usage(calls=1)
            failure = describe(exc, settings, timeout)
            guard.failed_request(failure.kind, failure.message)
            last, kind = failure.message.replace("<role>", role.split(":")[0]), failure.kind
            log.warning("%s: attempt %d/%d failed: %s", role, attempt, max_attempts, last)
            nxt = next_method(method, failure, native)
            if nxt is not None:
                # Servers without json_schema support reject it (HTTP 400) or fail on it
                # (llama.cpp: HTTP 500): ask again with the next method, for the whole run.
                log.warning("%s: endpoint failed on %s; switching to %s", role, method, nxt)
                method = guard.method = nxt
                native = nxt != "prompt"
                base = original if nxt == "function_calling" else _with_instruction(
                    original, schema)
                convo = list(base)
                continue
            if guard.record(failure.kind, failure.message) or guard.is_open:
                break
            if not failure.retriable:
                break
            if attempt < max_attempts:
                delay = backoff(settings, attempt, exc)
                left = guard.remaining()
                time.sleep(delay if left is None else max(0.0, min(delay, left - MIN_CALL_S)))
            continue
        raw_msg: AIMessage = out["raw"] if native else out
        guard.answered()
        usage = usage + Usage.from_message(raw_msg)
        raw = _raw_text(raw_msg)
        # langchain's parsers "complete" truncated JSON (parse_partial_json), which would
        # silently drop list items; so the raw text always goes through our stricter repair.
        try:
            value = parse_model(raw, schema)
            guard.used(True)
            return StructuredResult(value, usage, attempt, raw, not _is_json(raw), method)
        except RepairError as exc:
            cut = raw_msg.response_metadata.get("finish_reason") == "length"
            last, kind = f"unusable reply: {exc}" + (" (cut off at the token limit)" if cut
                                                     else ""), "output"
            log.warning("%s: attempt %d/%d gave %s", role, attempt, max_attempts, last)
            convo = [*base, AIMessage(content=raw[:4000]), _retry_prompt(exc, attempt)]
    if kind == "output":
        guard.record("output", last)
        guard.used(False, last.removeprefix("unusable reply: "))
    message = redact(
        f"{role}: no usable {schema.__name__} from the LLM after {attempt} attempt(s): {last}",
        settings,
    )
    raise StructuredCallError(message, kind=kind, attempts=attempt, usage=usage,
                              detail=redact(last, settings))
