"""Token and call accounting for LLM calls.

``Usage`` is a small immutable record that adds up with ``+`` so a role, a step
or a whole run can sum the cost of every call (including failed attempts).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Usage(BaseModel):
    """Calls and tokens spent; ``a + b`` sums field by field."""

    model_config = ConfigDict(frozen=True)

    calls: int = Field(default=0, ge=0, description="Number of chat-model calls made.")
    prompt_tokens: int = Field(default=0, ge=0, description="Input tokens reported.")
    completion_tokens: int = Field(default=0, ge=0, description="Output tokens reported.")

    @property
    def total(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            calls=self.calls + other.calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
        )

    def __radd__(self, other: Any) -> Usage:
        # Lets ``sum(usages)`` work (sum starts from 0).
        if other == 0:
            return self
        return NotImplemented

    @classmethod
    def from_message(cls, message: Any) -> Usage:
        """One call's usage from a langchain ``AIMessage`` (``usage_metadata``).

        Falls back to OpenAI's ``token_usage`` in ``response_metadata``; a message
        with no usage at all still counts as one call with zero tokens.
        """
        meta = getattr(message, "usage_metadata", None) or {}
        prompt = meta.get("input_tokens")
        completion = meta.get("output_tokens")
        if prompt is None and completion is None:
            token_usage = (getattr(message, "response_metadata", None) or {}).get(
                "token_usage"
            ) or {}
            prompt = token_usage.get("prompt_tokens")
            completion = token_usage.get("completion_tokens")
        return cls(calls=1, prompt_tokens=int(prompt or 0), completion_tokens=int(completion or 0))
