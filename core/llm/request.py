"""Per-request options of a structured call: retry backoff, the role's output bound and
the timeout, and which structured-output method to try after a failure.

``bounded`` copies a ChatOpenAI with the role's ``max_tokens`` and this request's
timeout; ``next_method`` says which method replaces one the endpoint rejects.
"""

from __future__ import annotations

from typing import Any

from core.foundation.config import Settings
from core.llm.failures import Failure

MAX_BACKOFF_S = 8.0
MAX_RETRY_AFTER_S = 10.0


def backoff(settings: Settings, attempt: int, exc: BaseException | None) -> float:
    """Seconds to wait before retry ``attempt + 1``: doubling, capped, at least Retry-After."""
    delay = min(settings.llm_retry_backoff_s * 2 ** (attempt - 1), MAX_BACKOFF_S)
    response = getattr(exc, "response", None)
    retry_after = getattr(response, "headers", {}).get("retry-after") if response else None
    if retry_after:
        try:
            delay = max(delay, min(float(retry_after), MAX_RETRY_AFTER_S))
        except ValueError:
            pass
    return delay


def bounded(llm: Any, settings: Settings, role: str, timeout_s: float) -> Any:
    """``llm`` with the role's output bound and this request's timeout (ChatOpenAI only).

    ChatOpenAI sends the bound as ``max_completion_tokens``; local servers (a base URL
    is set) also get ``max_tokens``, which older llama.cpp/Ollama/vLLM builds read.
    The timeout travels with the request (``timeout`` of the OpenAI SDK call).
    """
    fields = getattr(type(llm), "model_fields", {})
    if "max_tokens" not in fields or "model_kwargs" not in fields:
        return llm
    bound = settings.llm_max_tokens_for(role)
    extra = dict(getattr(llm, "extra_body", None) or {})
    if settings.llm_base_url:
        extra["max_tokens"] = bound
    update: dict[str, Any] = {
        "max_tokens": bound,
        "model_kwargs": {**(llm.model_kwargs or {}), "timeout": timeout_s},
    }
    if extra and "extra_body" in fields:
        update["extra_body"] = extra
    return llm.model_copy(update=update)


# On a rejected request, try the next method; on HTTP 5xx only json_schema switches
# (llama.cpp's server answers an unsupported json_schema with 500).
NEXT_METHOD = {"json_schema": "json_mode", "json_mode": "prompt", "function_calling": "prompt"}
MIN_CALL_S = 0.5
"""A request is not sent with less run time left than this."""


_FEATURE_WORDS = ("response_format", "json_object", "json mode", "tool", "function")


def next_method(method: str, failure: Failure, native: bool) -> str | None:
    """The method to try after ``failure`` (None: keep this one).

    json_schema switches on any HTTP 400 or 5xx; json_mode and function_calling only on
    an HTTP 400 that names the feature (so "context length exceeded" is not retried).
    """
    if not native or method not in NEXT_METHOD:
        return None
    if method == "json_schema" and failure.kind in ("bad_request", "server"):
        return NEXT_METHOD[method]
    text = failure.message.split("(try DTR_LLM")[0].lower()
    if failure.kind == "bad_request" and any(w in text for w in _FEATURE_WORDS):
        return NEXT_METHOD[method]
    return None
