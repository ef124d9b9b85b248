"""A local OpenAI-compatible server for tests (POST /v1/chat/completions, GET /v1/models).

    with FakeOpenAIServer() as server:
        server.enqueue(Behaviour.json({"steps": []}), Behaviour.error(429))
        settings = Settings(llm_base_url=server.base_url, ...)
        ...
        server.chat_requests[0]["response_format"]   # what the client sent

Behaviours are consumed in order, one per chat request; when the queue is
empty ``default`` answers (or HTTP 500 "no behaviour queued"). Every reply
carries ``usage`` (prompt tokens ~ words sent, completion tokens ~ words
returned) so accounting can be checked.
"""

from __future__ import annotations

import itertools
import json
import threading
from dataclasses import dataclass, field
from typing import Any

from testkit.fakes.http_base import Response, ScriptedServer


@dataclass
class Behaviour:
    """One scripted reply. Build with the class methods."""

    kind: str
    content: str | None = None
    tool_args: str | None = None
    tool_name: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0

    @classmethod
    def text(cls, content: str) -> Behaviour:
        """Assistant message whose content is ``content`` verbatim (almost-JSON, prose...)."""
        return cls("content", content=content)

    @classmethod
    def json(cls, obj: Any) -> Behaviour:
        """Assistant message whose content is ``obj`` as JSON (a json_schema/json_object reply)."""
        return cls("content", content=json.dumps(obj))

    @classmethod
    def tool_call(cls, args: Any, name: str | None = None) -> Behaviour:
        """A function-calling reply; ``args`` is a dict (sent as JSON) or raw argument text.
        ``name`` defaults to the first tool in the request."""
        raw = args if isinstance(args, str) else json.dumps(args)
        return cls("tool", tool_args=raw, tool_name=name)

    @classmethod
    def error(cls, status: int, message: str = "", headers: dict[str, str] | None = None):
        """An HTTP error with OpenAI's error body (429, 500, 401, 404...)."""
        return cls("error", content=message or f"scripted HTTP {status}", status=status,
                   headers=headers or {})

    @classmethod
    def html(cls, status: int = 200, page: str = "") -> Behaviour:
        """An HTML page instead of JSON (a proxy's login or error page, a wrong base URL)."""
        return cls("html", content=page or "<html><body><h1>Welcome to nginx!</h1></body></html>",
                   status=status)

    @classmethod
    def raw(cls, body: str, content_type: str = "application/json",
            status: int = 200) -> Behaviour:
        """``body`` sent verbatim under ``content_type`` (a JSON content type with a body that
        is not JSON, a chat completion of another shape...)."""
        return cls("raw", content=body, status=status, headers={"content-type": content_type})

    @classmethod
    def hang(cls) -> Behaviour:
        """Never answer (until the server closes): the client's timeout must end the call."""
        return cls.slow(3600)

    @classmethod
    def slow(cls, delay_s: float, then: Behaviour | None = None) -> Behaviour:
        """Reply only after ``delay_s`` seconds (longer than the client timeout to test it)."""
        b = then or cls.text("{}")
        return cls(b.kind, b.content, b.tool_args, b.tool_name, b.status, b.headers, delay_s)


def count_words(obj: Any) -> int:
    """Whitespace words in all strings of a JSON value (the fake's token count)."""
    if isinstance(obj, str):
        return len(obj.split())
    if isinstance(obj, dict):
        return sum(count_words(v) for v in obj.values())
    if isinstance(obj, list):
        return sum(count_words(v) for v in obj)
    return 0


class FakeOpenAIServer(ScriptedServer):
    """OpenAI-compatible chat completions from a queue of ``Behaviour``s."""

    def __init__(self, *, model: str = "fake-model", default: Behaviour | None = None,
                 json_schema_status: int | None = None):
        """``json_schema_status``: answer every request asking for ``response_format``
        json_schema with this HTTP status, without using the queue (llama.cpp answers 500)."""
        self.model = model
        self.default = default
        self.json_schema_status = json_schema_status
        self._queue: list[Behaviour] = []
        self._qlock = threading.Lock()
        self._ids = itertools.count(1)
        super().__init__()

    @property
    def base_url(self) -> str:
        """Base URL for ``ChatOpenAI(base_url=...)`` (ends with /v1)."""
        return f"{self.url}/v1"

    def enqueue(self, *behaviours: Behaviour) -> FakeOpenAIServer:
        """Queue replies for the next chat requests, in order."""
        with self._qlock:
            self._queue.extend(behaviours)
        return self

    @property
    def pending(self) -> int:
        """Behaviours not yet consumed."""
        return len(self._queue)

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """JSON bodies of the chat completion requests received, in order."""
        return [r.body for r in self.requests if r.path.endswith("/chat/completions")]

    def handle(self, method: str, path: str, body: Any) -> Response:
        if method == "GET" and path.rstrip("/").endswith("/models"):
            return Response(body={"object": "list", "data": [
                {"id": self.model, "object": "model", "created": 0, "owned_by": "tests"}]})
        if method != "POST" or not path.endswith("/chat/completions"):
            return Response(404, {"error": {"message": f"no route {method} {path}",
                                            "type": "invalid_request_error"}})
        request = body if isinstance(body, dict) else {}
        fmt = request.get("response_format") or {}
        if self.json_schema_status and isinstance(fmt, dict) and fmt.get("type") == "json_schema":
            return Response(self.json_schema_status, {"error": {
                "message": "unsupported response_format type json_schema",
                "type": "server_error" if self.json_schema_status >= 500 else "invalid_request"}})
        with self._qlock:
            behaviour = self._queue.pop(0) if self._queue else self.default
        if behaviour is None:
            return Response(500, {"error": {"message": "FakeOpenAIServer: no behaviour queued",
                                            "type": "server_error"}})
        return self._reply(behaviour, body if isinstance(body, dict) else {})

    def _reply(self, b: Behaviour, request: dict[str, Any]) -> Response:
        if b.kind == "html":
            return Response(b.status, raw=(b.content or "").encode(),
                            content_type="text/html; charset=utf-8", delay_s=b.delay_s)
        if b.kind == "raw":
            return Response(b.status, raw=(b.content or "").encode(),
                            content_type=b.headers.get("content-type", "application/json"),
                            delay_s=b.delay_s)
        if b.kind == "error":
            kind = "rate_limit_exceeded" if b.status == 429 else "server_error"
            return Response(b.status, {"error": {"message": b.content, "type": kind,
                                                 "code": str(b.status)}}, b.headers, b.delay_s)
        message: dict[str, Any] = {"role": "assistant", "content": b.content}
        finish = "stop"
        if b.kind == "tool":
            tools = request.get("tools") or [{}]
            name = b.tool_name or tools[0].get("function", {}).get("name", "tool")
            message = {"role": "assistant", "content": None, "tool_calls": [{
                "id": f"call_{next(self._ids)}", "type": "function",
                "function": {"name": name, "arguments": b.tool_args}}]}
            finish = "tool_calls"
        prompt = max(1, count_words(request.get("messages", [])))
        completion = max(1, count_words(b.content or "") + count_words(b.tool_args or ""))
        return Response(200, {
            "id": f"chatcmpl-{next(self._ids)}", "object": "chat.completion", "created": 0,
            "model": request.get("model", self.model),
            "choices": [{"index": 0, "message": message, "finish_reason": finish,
                         "logprobs": None}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion},
        }, b.headers, b.delay_s)
