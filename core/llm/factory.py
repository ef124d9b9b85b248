"""Build the chat model from Settings: any OpenAI-compatible endpoint, or none.

``make_chat_model`` returns ``None`` when neither a base URL nor a key is set:
the agent then runs its offline engine (deterministic rules per role).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from langchain_core.messages import HumanMessage

from core.config import Settings
from core.llm.failures import describe, redact

if TYPE_CHECKING:  # pragma: no cover
    from langchain_openai import ChatOpenAI

DUMMY_KEY = "not-needed"


def llm_configured(settings: Settings) -> bool:
    """True when an LLM endpoint or key is configured."""
    return bool(settings.llm_base_url or settings.llm_api_key)


def make_chat_model(settings: Settings) -> ChatOpenAI | None:
    """A ``ChatOpenAI`` for the configured endpoint, or ``None`` for the offline engine.

    ``max_retries=0``: ``call_structured`` retries itself (bounded by
    ``settings.llm_max_retries``). A base URL without a key (Ollama, llama.cpp,
    vLLM) gets a dummy key because the OpenAI SDK insists on one.
    """
    if not llm_configured(settings):
        return None
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(
        model=settings.llm_model,
        base_url=settings.llm_base_url or None,
        api_key=settings.llm_api_key or DUMMY_KEY,
        timeout=settings.llm_timeout_s,
        max_retries=0,
        temperature=settings.llm_temperature,
    )


def describe_llm(settings: Settings) -> str:
    """Human label such as ``"gpt-4o-mini @ https://api.openai.com/v1"`` or ``"offline engine"``."""
    if not llm_configured(settings):
        return "offline engine"
    where = settings.llm_base_url or "https://api.openai.com/v1"
    return redact(f"{settings.llm_model} @ {where}", settings)


def test_connection(settings: Settings) -> tuple[bool, str]:
    """Send one tiny chat request and say exactly what happened.

    Returns ``(True, "...")`` on success, else ``(False, reason)`` where the
    reason names the failure (authentication, unknown model, connection
    refused, timeout...). The key never appears in the message.
    """
    llm = make_chat_model(settings)
    if llm is None:
        return False, "No LLM configured (set DTR_LLM_BASE_URL and/or DTR_LLM_API_KEY)."
    try:
        reply = llm.invoke([HumanMessage(content="Reply with the word OK.")], max_tokens=5)
    except Exception as exc:  # noqa: BLE001 - every failure becomes a message
        return False, describe(exc, settings).message
    text = reply.content if isinstance(reply.content, str) else str(reply.content)
    return True, redact(f"Connected to {describe_llm(settings)}; reply: {text.strip()[:40]!r}",
                        settings)


test_connection.__test__ = False  # type: ignore[attr-defined]  # not a pytest test
