"""A scripted HTTP server on 127.0.0.1 (stdlib only) shared by the fake providers.

Subclasses implement ``handle(method, path, body) -> Response``. Every request
is recorded (method, path, headers, parsed JSON body). Replies that sleep are
interrupted when the server closes, so a test never waits on a stuck thread.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Response:
    """What the server sends back: status, JSON body, extra headers, a delay first."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    raw: bytes | None = None
    """Send these bytes as the body instead of ``body`` as JSON (an HTML page...)."""
    content_type: str = "application/json"


@dataclass
class Recorded:
    """One request as received (header names lower-cased)."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True


class ScriptedServer:
    """Base class: start on a free port, record requests, stop on ``close()``."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._local = threading.local()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # silence stderr
                pass

            def _serve(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except json.JSONDecodeError:
                    body = raw.decode("utf-8", "replace")
                rec = Recorded(method, self.path,
                               {k.lower(): v for k, v in self.headers.items()}, body)
                with owner._lock:
                    owner.requests.append(rec)
                owner._local.request = rec
                reply = owner.handle(method, self.path.split("?")[0], body)
                if reply.delay_s and owner._closing.wait(reply.delay_s):
                    return
                data = json.dumps(reply.body).encode() if reply.body is not None else b""
                if reply.raw is not None:
                    data = reply.raw
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.content_type)
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

            def do_POST(self) -> None:
                self._serve("POST")

            def do_GET(self) -> None:
                self._serve("GET")

        self._httpd = _Server(("127.0.0.1", 0), Handler)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def current(self) -> Recorded | None:
        """The request being handled by the calling thread (inside ``handle``)."""
        return getattr(self._local, "request", None)

    def handle(self, method: str, path: str, body: Any) -> Response:  # pragma: no cover
        raise NotImplementedError

    def close(self) -> None:
        """Stop serving and wake any sleeping reply."""
        self._closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
