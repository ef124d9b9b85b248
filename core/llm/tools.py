"""Tool calls: offer tools to a chat model, run the calls it makes, bounded.

``call_with_tools(llm, messages, tools, execute, settings, role=...)`` binds ``tools``
(OpenAI tool dicts) with langchain's ``bind_tools`` and asks the model; each tool call in
its reply is run by ``execute(name, args) -> str`` and the result sent back as a tool
message, until the model replies without a call or ``max_rounds`` replies were read. Every
request carries the role's output bound and a timeout cut to the run's remaining wall time,
and goes through the run's breaker (``core.llm.breaker.LLMGuard``), like a structured call.
A failed request raises ``ToolCallError`` carrying the usage spent and the calls already
run; the caller decides how to degrade.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.messages.utils import convert_to_messages

from core.foundation.config import Settings
from core.foundation.errors import LLMOutputError
from core.llm.breaker import LLMGuard, active_guard
from core.llm.failures import describe, redact
from core.llm.request import MIN_CALL_S, bounded
from core.llm.usage import Usage

log = logging.getLogger(__name__)
MAX_ROUNDS = 3
"""Replies read at most (each may carry several tool calls)."""
MAX_CALLS = 8
"""Tool calls run at most in one ``call_with_tools``."""


@dataclass
class ToolCall:
    """One tool call the model made and what running it returned."""

    name: str
    args: dict[str, Any]
    result: str


@dataclass
class ToolRun:
    """What a ``call_with_tools`` did: the calls run, the final reply's text, the usage."""

    calls: list[ToolCall] = field(default_factory=list)
    text: str = ""
    usage: Usage = field(default_factory=Usage)
    rounds: int = 0


class ToolCallError(LLMOutputError):
    """A tool-calling request failed; ``run`` holds what was done before it."""

    def __init__(self, message: str, *, kind: str, run: ToolRun):
        super().__init__(message)
        self.kind = kind
        self.run = run
        self.usage = run.usage


def call_with_tools(llm: BaseChatModel, messages: list[Any], tools: list[dict[str, Any]],
                    execute: Callable[[str, dict[str, Any]], str], settings: Settings, *,
                    role: str, guard: LLMGuard | None = None,
                    max_rounds: int = MAX_ROUNDS) -> ToolRun:
    """Offer ``tools`` and run the calls the model makes (see the module docstring)."""
    guard = guard or active_guard() or LLMGuard(threshold=settings.llm_breaker_threshold)
    run = ToolRun()
    convo = list(convert_to_messages(messages))
    while run.rounds < max_rounds:
        if guard.is_open:
            guard.skip()
            raise ToolCallError(f"{role}: LLM not called (the endpoint failed earlier in this "
                                "run)", kind="skipped", run=run)
        timeout = guard.timeout(settings.llm_timeout_s)
        if timeout < MIN_CALL_S:
            if run.rounds == 0:
                guard.skip()  # not sent: no run time left
            break
        runnable = bounded(llm, settings, role, timeout).bind_tools(tools)
        run.rounds += 1
        try:
            reply: AIMessage = runnable.invoke(convo)
        except Exception as exc:  # noqa: BLE001 - classified, counted, re-raised
            failure = describe(exc, settings, timeout)
            run.usage = run.usage + Usage(calls=1)
            guard.failed_request(failure.kind, failure.message)
            guard.record(failure.kind, failure.message)
            raise ToolCallError(redact(f"{role}: tool call failed: {failure.message}",
                                       settings), kind=failure.kind, run=run) from None
        guard.answered()
        run.usage = run.usage + Usage.from_message(reply)
        if not reply.tool_calls:
            run.text = reply.text if hasattr(reply, "text") else str(reply.content)
            break
        convo.append(reply)
        for tc in reply.tool_calls:
            if len(run.calls) >= MAX_CALLS:
                result = json.dumps({"error": f"at most {MAX_CALLS} tool calls per answer"})
            else:
                result = _run(execute, tc["name"], tc.get("args") or {})
                run.calls.append(ToolCall(tc["name"], dict(tc.get("args") or {}), result))
            convo.append(ToolMessage(content=result, tool_call_id=tc.get("id") or ""))
    return run


def _run(execute: Callable[[str, dict[str, Any]], str], name: str, args: dict[str, Any]) -> str:
    try:
        return execute(name, args)
    except Exception as exc:  # noqa: BLE001 - a bad call is answered, never fatal
        log.warning("tool %s failed: %s", name, exc)
        return json.dumps({"error": f"{type(exc).__name__}: {exc}"})
