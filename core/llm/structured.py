"""One structured LLM call with method choice, repair and bounded retries.

``call_structured(llm, Schema, messages, settings, role="planner")`` returns a
validated ``Schema`` instance or raises ``LLMOutputError`` (as its subclass
``StructuredCallError``, which carries the usage spent). The method comes from
``settings.llm_structured_method``:

- ``json_schema``: ``response_format={"type": "json_schema", ...}`` (OpenAI,
  vLLM; llama.cpp's server does not accept it);
- ``function_calling``: one forced tool call whose arguments are the object;
- ``json_mode``: ``response_format={"type": "json_object"}`` with the schema
  described in the system prompt.

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

from core.config import Settings
from core.errors import LLMOutputError
from core.llm.failures import describe, redact
from core.llm.repair import RepairError, parse_model
from core.llm.usage import Usage

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)
MAX_BACKOFF_S = 8.0
MAX_RETRY_AFTER_S = 10.0


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

    def __init__(self, message: str, *, kind: str, attempts: int, usage: Usage):
        super().__init__(message)
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


def _backoff(settings: Settings, attempt: int, exc: BaseException | None) -> float:
    delay = min(settings.llm_retry_backoff_s * 2 ** (attempt - 1), MAX_BACKOFF_S)
    response = getattr(exc, "response", None)
    retry_after = getattr(response, "headers", {}).get("retry-after") if response else None
    if retry_after:
        try:
            delay = max(delay, min(float(retry_after), MAX_RETRY_AFTER_S))
        except ValueError:
            pass
    return delay


def call_structured(
    llm: BaseChatModel,
    schema: type[M],
    messages: list[Any],
    settings: Settings,
    *,
    role: str,
) -> StructuredResult[M]:
    """Ask ``llm`` for a ``schema`` object; repair, retry, and account for usage.

    ``messages`` may be langchain messages or ``(role, text)`` tuples. Raises
    ``StructuredCallError`` (an ``LLMOutputError``) whose message names the role
    and the last failure, never the API key.
    """
    method = settings.llm_structured_method
    native = _supports_native(llm)
    original = convert_to_messages(messages)
    base = original
    if method == "json_mode" or not native:
        base = _with_instruction(original, schema)
    runnable = _runnable(llm, schema, method, native)
    max_attempts = 1 + settings.llm_max_retries
    usage = Usage()
    convo = list(base)
    last = "no attempt made"
    kind = "error"
    for attempt in range(1, max_attempts + 1):
        try:
            out = runnable.invoke(convo)
        except Exception as exc:  # noqa: BLE001 - classified below
            usage = usage + Usage(calls=1)
            failure = describe(exc, settings)
            last, kind = failure.message, failure.kind
            log.warning("%s: attempt %d/%d failed: %s", role, attempt, max_attempts, last)
            if failure.kind == "bad_request" and native and method == "json_schema":
                # Servers without json_schema support (llama.cpp, older vLLM, some proxies)
                # reject the request: fall back to json_object with the schema in the prompt.
                log.warning("%s: endpoint rejected json_schema; switching to json_mode", role)
                method = "json_mode"
                base = _with_instruction(original, schema)
                convo = list(base)
                runnable = _runnable(llm, schema, method, native)
                continue
            if not failure.retriable:
                break
            if attempt < max_attempts:
                time.sleep(_backoff(settings, attempt, exc))
            continue
        raw_msg: AIMessage = out["raw"] if native else out
        usage = usage + Usage.from_message(raw_msg)
        raw = _raw_text(raw_msg)
        # langchain's parsers "complete" truncated JSON (parse_partial_json), which would
        # silently drop list items; so the raw text always goes through our stricter repair.
        try:
            value = parse_model(raw, schema)
            return StructuredResult(value, usage, attempt, raw, not _is_json(raw), method)
        except RepairError as exc:
            cut = raw_msg.response_metadata.get("finish_reason") == "length"
            last, kind = f"unusable reply: {exc}" + (" (cut off at the token limit)" if cut
                                                     else ""), "output"
            log.warning("%s: attempt %d/%d gave %s", role, attempt, max_attempts, last)
            convo = [
                *base,
                AIMessage(content=raw[:4000]),
                HumanMessage(content=f"That reply could not be used ({exc}). Reply again with "
                             "only the JSON object, matching the schema exactly."),
            ]
    attempts = min(attempt, max_attempts)
    message = redact(
        f"{role}: no usable {schema.__name__} from the LLM after {attempts} attempt(s): {last}",
        settings,
    )
    raise StructuredCallError(message, kind=kind, attempts=attempts, usage=usage)
