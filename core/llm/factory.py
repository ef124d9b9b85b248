"""Build the chat model from Settings: any OpenAI-compatible endpoint, or none.

``make_chat_model`` returns ``None`` when neither a base URL nor a key is set:
the agent then runs its offline engine (deterministic rules per role).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.foundation.config import Settings
from core.llm.failures import redact

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
