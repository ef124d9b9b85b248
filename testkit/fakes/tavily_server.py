"""A local Tavily-compatible server for tests (POST /search).

    with FakeTavilyServer() as server:
        server.add_results([{"url": ..., "title": ..., "content": ...}])
        settings = Settings(tavily_api_key="tvly-test", tavily_base_url=server.url, ...)

Each request returns the queued result list (or ``default_results``), or a
scripted ``error(status)`` / ``slow(seconds)``. Requests are recorded in
``search_requests`` (JSON bodies) and ``requests`` (with headers).
"""

from __future__ import annotations

import threading
from typing import Any

from testkit.fakes.http_base import Response, ScriptedServer


def result(url: str, title: str, content: str, *, score: float = 0.8,
           published_date: str | None = None) -> dict[str, Any]:
    """One result in Tavily's shape."""
    item: dict[str, Any] = {"url": url, "title": title, "content": content, "score": score,
                            "raw_content": None}
    if published_date:
        item["published_date"] = published_date
    return item


class FakeTavilyServer(ScriptedServer):
    """Tavily /search from a queue of result lists or errors."""

    def __init__(self, default_results: list[dict[str, Any]] | None = None):
        self.default_results = default_results or []
        self._queue: list[Response | list[dict[str, Any]]] = []
        self._qlock = threading.Lock()
        super().__init__()

    def add_results(self, results: list[dict[str, Any]]) -> FakeTavilyServer:
        """Queue the results of the next search."""
        with self._qlock:
            self._queue.append(results)
        return self

    def error(self, status: int, detail: str = "scripted error") -> FakeTavilyServer:
        """Queue an HTTP error (401 bad key, 429 limit, 432 plan limit, 500...)."""
        with self._qlock:
            self._queue.append(Response(status, {"detail": {"error": detail}}))
        return self

    def slow(self, delay_s: float) -> FakeTavilyServer:
        """Queue a reply that comes only after ``delay_s`` seconds."""
        with self._qlock:
            self._queue.append(Response(200, {"results": []}, delay_s=delay_s))
        return self

    @property
    def search_requests(self) -> list[dict[str, Any]]:
        """JSON bodies of the /search requests received."""
        return [r.body for r in self.requests if r.path.startswith("/search")]

    def handle(self, method: str, path: str, body: Any) -> Response:
        if method != "POST" or path != "/search":
            return Response(404, {"detail": {"error": f"no route {method} {path}"}})
        with self._qlock:
            item = self._queue.pop(0) if self._queue else self.default_results
        if isinstance(item, Response):
            return item
        query = body.get("query", "") if isinstance(body, dict) else ""
        limit = body.get("max_results", 5) if isinstance(body, dict) else 5
        return Response(200, {"query": query, "results": item[:limit], "response_time": 0.01,
                              "images": [], "answer": None})
