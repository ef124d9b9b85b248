"""Classify chat-model exceptions and scrub secrets from their messages.

Every message built here is safe to show a user or store in a run record: the
configured keys and anything that looks like a bearer token are redacted.

``openai`` (1.1 s to import) is imported only when a failure is classified: ``redact`` is on
every run record's path, including runs and commands that never call an LLM.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import httpx

from core.foundation.config import Settings

if TYPE_CHECKING:
    import openai

_KEYLIKE = re.compile(
    r"(sk-[A-Za-z0-9_\-*]{4,}|tvly-[A-Za-z0-9_\-*]{4,}|Bearer\s+[A-Za-z0-9_\-.*]{4,})"
)


def redact(text: str, settings: Settings | None = None) -> str:
    """Remove configured keys and key-looking tokens from ``text``."""
    if settings is not None:
        for secret in (settings.llm_api_key, settings.tavily_api_key):
            if secret and len(secret) >= 4:
                text = text.replace(secret, "***")
    return _KEYLIKE.sub("***", text)


@dataclass(frozen=True)
class Failure:
    """What went wrong with one call: a short kind, whether a retry may help, a message."""

    kind: str
    retriable: bool
    message: str


def _server_detail(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
        if isinstance(err, str):
            return err
    return str(exc.message or "")


def _root_cause(exc: BaseException) -> BaseException:
    """Deepest exception in the ``__cause__``/``__context__`` chain (e.g. ConnectionRefused)."""
    seen = {id(exc)}
    while True:
        nxt = exc.__cause__ or exc.__context__
        if nxt is None or id(nxt) in seen or len(seen) > 8:
            return exc
        seen.add(id(nxt))
        exc = nxt


def classify(exc: BaseException, settings: Settings,
             timeout_s: float | None = None) -> Failure:
    """Map an exception from a chat-model call to a ``Failure`` with an actionable message.

    ``timeout_s``: the timeout the request really had (the run's time left can cut it below
    ``llm_timeout_s``); a timeout message names that one, never a bound that did not apply."""
    import openai

    where = settings.llm_base_url or "the OpenAI API"
    model = settings.llm_model
    if isinstance(exc, openai.APITimeoutError | httpx.TimeoutException | TimeoutError):
        limit = settings.llm_timeout_s if timeout_s is None else timeout_s
        if limit < settings.llm_timeout_s:
            msg = (f"No reply from {where} within {limit:.1f} s, the time left of the run's "
                   f"{settings.max_wall_s:g} s limit (DTR_MAX_WALL_S).")
        else:
            msg = (f"No reply from {where} within {limit:g} s "
                   "(raise DTR_LLM_TIMEOUT_S or use a smaller/faster model).")
        return Failure("timeout", True, msg)
    if isinstance(exc, openai.APIConnectionError | httpx.ConnectError | ConnectionError):
        cause = _root_cause(exc)
        msg = (f"Could not connect to {where}: {type(cause).__name__}: {cause} "
               "(is the server running and the URL right?)")
        return Failure("connection", True, msg)
    page = _html_reply(exc)
    if page is not None and page < 500:  # a web server's page (a 5xx page is a proxy's error)
        return Failure("garbage", True, web_page_message(where))
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        detail = _server_detail(exc)
        if status == 401:
            msg = f"Authentication failed at {where} (HTTP 401): check DTR_LLM_API_KEY. {detail}"
            return Failure("auth", False, msg)
        if status == 403:
            return Failure("forbidden", False, f"Access denied at {where} (HTTP 403): {detail}")
        if status == 404:
            msg = (f"Model '{model}' or the chat endpoint was not found at {where} "
                   f"(HTTP 404): check DTR_LLM_MODEL and that the base URL ends with /v1. {detail}")
            return Failure("not_found", False, msg)
        if status == 429:
            return Failure("rate_limit", True, f"Rate limited by {where} (HTTP 429): {detail}")
        if status >= 500:
            return Failure("server", True, f"Server error from {where} (HTTP {status}): {detail}")
        return Failure("bad_request", False, f"Request rejected by {where} (HTTP {status}): "
                       f"{detail} (try DTR_LLM_STRUCTURED_METHOD=json_mode or function_calling).")
    if isinstance(exc, openai.LengthFinishReasonError):  # the SDK's, on a json_schema reply
        return Failure("cut_off", False, "unusable reply: cut off at the token limit before "
                       "its JSON was complete (raise the role's reply bound, e.g. "
                       "DTR_LLM_MAX_TOKENS='{\"<role>\": 4000}')")
    if isinstance(exc, json.JSONDecodeError):
        msg = (f"{where} replied with a body that is not JSON, so not the OpenAI chat-completion "
               f"format ({exc.msg} at character {exc.pos}): check the base URL (it usually ends "
               "with /v1) and that the server is an OpenAI-compatible endpoint.")
        return Failure("garbage", True, msg)
    if _is_garbage(exc):
        msg = (f"{where} did not answer like an OpenAI-compatible chat API (the reply was not "
               "a chat completion, e.g. an HTML page): check the base URL (it usually ends "
               "with /v1) and that the server is an OpenAI-compatible endpoint.")
        return Failure("garbage", True, msg)
    return Failure("error", False, f"{type(exc).__name__}: {exc}")


_HTML_START = re.compile(r"^\s*(<!doctype\s+html|<html|<head|<body)", re.IGNORECASE)


def web_page_message(where: str) -> str:
    """What to do when ``where`` serves a web page: the base URL is not the API's root."""
    root = where.rstrip("/")
    example = (f"{root}/v1" if not root.endswith("/v1")
               else "http://127.0.0.1:11434/v1 for Ollama, http://127.0.0.1:8000/v1 for vLLM")
    return (f"{where} returns a web page, not an OpenAI-compatible API: point the base URL at "
            f"the API root, e.g. {example}.")


def looks_like_html(text: str, content_type: str = "") -> bool:
    """Whether a reply is a web page: an HTML content type or a body opening like one."""
    return "html" in content_type.lower() or bool(_HTML_START.match(text or ""))


def _html_reply(exc: BaseException) -> int | None:
    """The HTTP status of a reply that was a web page (an HTTP error whose body is HTML: a web
    server's 404 or 405 page; 200: a page langchain-openai could not read, "got str:
    '<html>..."), else None."""
    response = getattr(exc, "response", None)  # httpx's or httpx2's (openai 3) Response
    if response is not None and hasattr(response, "headers"):
        try:
            body = response.text[:200]
        except Exception:  # noqa: BLE001 - a streamed body not read: go by the header
            body = ""
        html = looks_like_html(body, response.headers.get("content-type", ""))
        return int(getattr(response, "status_code", 200)) if html else None
    text = str(exc)
    if isinstance(exc, ValueError) and "Unexpected response type" in text:
        return 200 if looks_like_html(text.split("got str:", 1)[-1].strip(" '\"")) else None
    return None


def _is_garbage(exc: BaseException) -> bool:
    """A 200 reply that is not a chat completion (HTML page, plain text, no ``choices``)."""
    import openai

    if isinstance(exc, openai.APIResponseValidationError):
        return True
    text = str(exc)
    if isinstance(exc, ValueError) and "Unexpected response type" in text:
        return True  # langchain-openai: parse() gave a str (non-JSON body)
    if isinstance(exc, AttributeError | TypeError | KeyError) and "choices" in text:
        return True  # older langchain-openai: "'str' object has no attribute 'choices'"
    if isinstance(exc, AttributeError | TypeError | KeyError | IndexError) and _in_client(exc):
        return True  # e.g. '"choices": null' -> TypeError inside langchain-openai's parsing
    return isinstance(exc, ValueError) and "null value for `choices`" in text


def _in_client(exc: BaseException) -> bool:
    """Whether ``exc`` was raised inside the OpenAI client or langchain-openai (reading a
    reply of the wrong shape), not in our own code."""
    tb = exc.__traceback__
    last = ""
    while tb is not None:
        last = tb.tb_frame.f_code.co_filename
        tb = tb.tb_next
    return "langchain_openai" in last or "/openai/" in last


def describe(exc: BaseException, settings: Settings,
             timeout_s: float | None = None) -> Failure:
    """``classify`` with the message redacted."""
    f = classify(exc, settings, timeout_s)
    return Failure(f.kind, f.retriable, redact(f.message.strip(), settings))
