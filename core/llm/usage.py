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


class LLMAccount(BaseModel):
    """What the LLM endpoint did in a run (or a phase of one); ``a + b`` sums the counts."""

    replies: int = Field(default=0, ge=0, description="Requests the endpoint answered.")
    failed: int = Field(default=0, ge=0, description="Requests that got no reply (HTTP "
                        "error, timeout, connection failure).")
    skipped: int = Field(default=0, ge=0, description="Calls not sent: the breaker was open "
                         "or no run time was left.")
    reason: str = Field(default="", description='The last failure in a few words ("HTTP 500").')
    usable: int = Field(default=0, ge=0, description="Role calls a reply of the endpoint "
                        "answered (a value the role used).")
    unusable: int = Field(default=0, ge=0, description="Role calls the endpoint replied to "
                          "with nothing usable (prose, wrong schema) after their retries: "
                          "the offline rule answered them.")
    unusable_reason: str = Field(default="", description="Why the last unusable reply could "
                                 "not be used, in a few words.")

    def __add__(self, other: LLMAccount) -> LLMAccount:
        return LLMAccount(replies=self.replies + other.replies, failed=self.failed + other.failed,
                          skipped=self.skipped + other.skipped,
                          reason=other.reason or self.reason,
                          usable=self.usable + other.usable,
                          unusable=self.unusable + other.unusable,
                          unusable_reason=other.unusable_reason or self.unusable_reason)

    @property
    def never_usable(self) -> bool:
        """The endpoint replied, but no reply was usable: the offline rules answered."""
        return self.replies > 0 and self.usable == 0 and self.unusable > 0

    @property
    def never_answered(self) -> bool:
        """Requests were made or skipped and none got a reply."""
        return self.replies == 0 and (self.failed + self.skipped) > 0
