"""A scripted chat model for tests: a real langchain ``BaseChatModel``.

    llm = FakeChatModel()
    llm.enqueue({"steps": [...]})          # returned as JSON text
    llm.enqueue("```json\\n{...}\\n```")   # returned verbatim
    llm.enqueue(TimeoutError("slow"))      # raised by the call
    result = call_structured(llm, Plan, messages, settings, role="planner")
    llm.history[-1]                        # the messages the model received

Replies are consumed in order; when the queue is empty ``default`` is used,
or the call fails loudly if there is no default. Usage is reported as a crude
token count (whitespace words) so accounting code has numbers to add up.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr

Reply = str | dict | list | AIMessage | BaseException


def _count_tokens(text: str) -> int:
    return len(text.split())


class FakeChatModel(BaseChatModel):
    """Chat model that returns queued replies and records what it was sent."""

    replies: list[Any] = Field(default_factory=list, description="Queued replies, first out first.")
    default: Any = Field(default=None, description="Reply used when the queue is empty.")
    history: list[list[BaseMessage]] = Field(
        default_factory=list, description="Message lists received, one per call."
    )
    call_kwargs: list[dict[str, Any]] = Field(
        default_factory=list, description="Extra kwargs of each call (tools, response_format...)."
    )
    model_name: str = Field(default="fake-chat", description="Name shown in labels.")
    structured_output_native: bool = Field(
        default=False,
        description="False: call_structured uses the raw-text path (schema in the prompt).",
    )
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def enqueue(self, *replies: Reply) -> FakeChatModel:
        """Queue one or more replies: str, dict/list (sent as JSON), AIMessage or an exception."""
        with self._lock:
            self.replies.extend(replies)
        return self

    @property
    def pending(self) -> int:
        """Replies still queued."""
        return len(self.replies)

    @property
    def _llm_type(self) -> str:
        return "fake-chat"

    def _next_reply(self) -> Any:
        with self._lock:
            if self.replies:
                return self.replies.pop(0)
        if self.default is not None:
            return self.default
        raise RuntimeError("FakeChatModel: no reply queued (enqueue() one or set default=)")

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self._lock:
            self.history.append(list(messages))
            self.call_kwargs.append(dict(kwargs))
        reply = self._next_reply()
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, AIMessage):
            message = reply.model_copy()
        else:
            text = reply if isinstance(reply, str) else json.dumps(reply)
            message = AIMessage(content=text)
        prompt_tokens = sum(_count_tokens(str(m.content)) for m in messages)
        completion_tokens = _count_tokens(str(message.content)) + sum(
            _count_tokens(json.dumps(tc.get("args", {}))) for tc in message.tool_calls
        )
        message.usage_metadata = {
            "input_tokens": prompt_tokens,
            "output_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
        message.response_metadata = {"model_name": self.model_name, "finish_reason": "stop"}
        return ChatResult(generations=[ChatGeneration(message=message)])

    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Record the tools (as OpenAI tool dicts) in ``call_kwargs``; replies stay scripted."""
        formatted = [convert_to_openai_tool(t) for t in tools]
        extra = {"tool_choice": tool_choice} if tool_choice else {}
        return self.bind(tools=formatted, **extra, **kwargs)
