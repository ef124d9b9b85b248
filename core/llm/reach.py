"""Is the configured endpoint there at all? One quick ``GET {base}/models`` (no chat request,
nothing spent), run when the Settings page saves a new endpoint, so a base URL that cannot
be reached or serves a web page is saved WITH a warning instead of silently.

The outcome is remembered per endpoint (``last_reach``) for this server process, so the
sidebar can say the endpoint's real state ("could not connect when saved") before any run.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import httpx

from core.foundation.config import Settings
from core.llm.factory import llm_configured
from core.llm.failures import looks_like_html, redact, web_page_message

OPENAI_ROOT = "https://api.openai.com/v1"
REACH_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class Reach:
    """The outcome of ``reach``: ``ok`` when the endpoint answered like an OpenAI-compatible
    API (its model list, or an API-style error); ``checked`` False when nothing was sent."""

    ok: bool
    message: str
    checked: bool = True
    at: float = 0.0
    """Epoch seconds of the check."""


_LOCK = threading.Lock()
_LAST: dict[tuple[str, str], Reach] = {}


def endpoint_key(settings: Settings) -> tuple[str, str]:
    """Which endpoint and model a remembered outcome belongs to."""
    return (settings.llm_base_url or OPENAI_ROOT, settings.llm_model)


def last_reach(settings: Settings) -> Reach | None:
    """The latest outcome for the configured endpoint in this process (None: never checked)."""
    with _LOCK:
        return _LAST.get(endpoint_key(settings))


def remember(settings: Settings, outcome: Reach) -> Reach:
    """Keep ``outcome`` as the endpoint's latest state (the connection test calls it too)."""
    with _LOCK:
        _LAST[endpoint_key(settings)] = outcome
    return outcome


def _models(body: object) -> list[str] | None:
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        return None
    return [str(m.get("id")) for m in data if isinstance(m, dict) and m.get("id")]


def _judge(response: httpx.Response, settings: Settings, where: str) -> tuple[bool, str]:
    text = response.text[:2000]
    if looks_like_html(text[:200], response.headers.get("content-type", "")):
        return False, web_page_message(where)
    status = response.status_code
    if status in (401, 403):
        return False, (f"{where} answered, but refused the key (HTTP {status}): check the API "
                       "key.")
    try:
        models = _models(response.json())
    except ValueError:
        models = None
    if status == 200 and models is not None:
        if models and settings.llm_model not in models:
            shown = ", ".join(models[:5]) + (" ..." if len(models) > 5 else "")
            return True, (f"{where} answered, but does not list the model "
                          f"'{settings.llm_model}' (it lists {shown}).")
        return True, f"{where} answered and lists the model '{settings.llm_model}'."
    return True, f"{where} answered (HTTP {status} to GET /models)."


def reach(settings: Settings, timeout_s: float = REACH_TIMEOUT_S) -> Reach:
    """``GET {base}/models`` within ``timeout_s``; remembered (``last_reach``). No LLM
    configured: not checked. The key never appears in the message."""
    if not llm_configured(settings):
        return Reach(True, "No LLM configured: the offline engine answers.", checked=False)
    where = settings.llm_base_url or OPENAI_ROOT
    headers = {"Authorization": f"Bearer {settings.llm_api_key}"} if settings.llm_api_key \
        else {}
    try:
        response = httpx.get(f"{where.rstrip('/')}/models", headers=headers,
                             timeout=timeout_s, follow_redirects=True)
        ok, message = _judge(response, settings, where)
    except httpx.TimeoutException:
        ok, message = False, (f"{where} did not answer within {timeout_s:g} s: runs will fall "
                              "back to the offline engine while it does not answer.")
    except httpx.HTTPError as exc:
        ok, message = False, (f"{where} could not be reached ({type(exc).__name__}: {exc}): is "
                              "the server running and the URL right? Runs will be answered by "
                              "the offline engine until it answers.")
    return remember(settings, Reach(ok, redact(message, settings), at=time.time()))
