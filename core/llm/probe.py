"""The connection test: can the endpoint answer, and which structured-output method works?

``check_connection(settings)`` sends one plain chat request (to name connection,
authentication or model problems exactly), then one tiny structured request per
method, the configured one first and then json_schema -> json_mode ->
function_calling -> prompt, until one returns a valid object. The caller (the Settings
page) saves the working method; a method that fails is named with its error.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from langchain_core.messages import HumanMessage
from pydantic import BaseModel, Field

from core.foundation.config import Settings
from core.llm.breaker import LLMGuard
from core.llm.factory import describe_llm, llm_configured, make_chat_model
from core.llm.failures import describe, redact

ORDER = ("json_schema", "json_mode", "function_calling", "prompt")
METHOD_SPECIFIC = ("bad_request", "server", "output", "error")
"""Failures that may depend on the method; any other ends the test (no point going on)."""


class ProbeReply(BaseModel):
    """What the structured probe asks for."""

    word: str = Field(description="The word OK.")


@dataclass
class ConnectionCheck:
    """The outcome: ``ok`` when a structured method works, which one, and what was tried."""

    ok: bool
    message: str
    method: str | None = None
    tried: list[tuple[str, str]] = field(default_factory=list)
    """(method, "ok" or the failure message) in the order tried."""


def _order(configured: str) -> list[str]:
    return [configured, *(m for m in ORDER if m != configured)]


def check_connection(settings: Settings) -> ConnectionCheck:
    """Plain request, then the structured methods in turn (see the module docstring); the
    outcome is remembered as the endpoint's latest state (``core.llm.reach.last_reach``)."""
    import time

    from core.llm.reach import Reach, remember

    check = _check(settings)
    if llm_configured(settings):
        remember(settings, Reach(check.ok, check.message, at=time.time()))
    return check


def _check(settings: Settings) -> ConnectionCheck:
    from core.llm.structured import StructuredCallError, call_structured

    llm = make_chat_model(settings)
    if llm is None:
        return ConnectionCheck(False, "No LLM configured (set DTR_LLM_BASE_URL and/or "
                               "DTR_LLM_API_KEY).")
    try:
        bounded = llm.model_copy(update={"max_tokens": 5})
        bounded.invoke([HumanMessage(content="Reply with the word OK.")])
    except Exception as exc:  # noqa: BLE001 - every failure becomes a message
        return ConnectionCheck(False, describe(exc, settings).message)
    where = describe_llm(settings)
    tried: list[tuple[str, str]] = []
    messages = [("system", "You answer with JSON."), ("human", 'Set "word" to "OK".')]
    for method in _order(settings.llm_structured_method):
        one = settings.model_copy(update={"llm_structured_method": method, "llm_max_retries": 0})
        try:
            call_structured(llm, ProbeReply, messages, one, role="connection test",
                            guard=LLMGuard(threshold=99))
        except StructuredCallError as exc:
            tried.append((method, exc.detail))
            if exc.kind not in METHOD_SPECIFIC:
                return ConnectionCheck(False, redact(f"{exc}", settings), None, tried)
            continue
        tried.append((method, "ok"))
        failed = "; ".join(f"{m} failed: {why}" for m, why in tried if why != "ok")
        note = f" ({failed})" if failed else ""
        msg = (f"Connected to {where}; structured output works with {method}{note}.")
        return ConnectionCheck(True, redact(msg, settings), method, tried)
    failed = "; ".join(f"{m}: {why}" for m, why in tried)
    return ConnectionCheck(False, redact(f"Connected to {where}, but no structured-output "
                                         f"method worked ({failed}); the agent will use the "
                                         "offline engine's rules.", settings), None, tried)


def test_connection(settings: Settings) -> tuple[bool, str]:
    """``(ok, message)`` of ``check_connection``: a plain request, then a
    structured one with each method until one works (the message names it). The key
    never appears in the message."""
    check = check_connection(settings)
    return check.ok, check.message


test_connection.__test__ = False  # type: ignore[attr-defined]  # not a pytest test
