"""Streamable HTTP: the SDK's Starlette app served by uvicorn on a socket bound here.

The socket is bound before uvicorn starts (``--port 0`` takes a free port, and a port in
use is one line, not a traceback); once the app's lifespan has started and the socket
accepts, one line names the endpoint on stderr ("MCP server ready at
http://...:PORT/mcp"): what a supervisor or a test waits for. SIGINT or SIGTERM stops it
gracefully (exit 0). On a loopback address the SDK's DNS-rebinding protection is on (Host
and Origin checked); a token puts ``BearerGate`` in front.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import sys
from collections.abc import Callable

from core.foundation.errors import AppError
from core.mcp.auth import BearerGate

READY = "MCP server ready at {url}"
PATH = "/mcp"


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port`` (AppError naming what to change)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise AppError(f"Cannot listen on {host}:{port} ({exc.strerror or exc}): choose "
                       "another --port (0 takes a free one) or --host.") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def url_of(host: str, sock: socket.socket) -> str:
    port = sock.getsockname()[1]
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    return f"http://{shown}:{port}{PATH}"


def serve_http(server, host: str, port: int, token: str | None = None,
               announce: Callable[[str], None] | None = None) -> None:
    """Serve ``server`` (an ``MCPServer``) over streamable HTTP until interrupted."""
    import uvicorn

    app = server.streamable_http_app(streamable_http_path=PATH, host=host.strip("[]"))
    if token:
        app = BearerGate(app, token)
    sock = bind(host, port)
    url = url_of(host, sock)
    say = announce or (lambda line: print(line, file=sys.stderr, flush=True))

    class _Server(uvicorn.Server):
        async def startup(self, sockets=None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                say(READY.format(url=url))

        @contextlib.contextmanager
        def capture_signals(self):
            """SIGINT / SIGTERM shut the server down gracefully and the command returns
            (uvicorn's own handling raises the signal again once it has stopped)."""
            kept = {sig: signal.signal(sig, self.handle_exit)
                    for sig in (signal.SIGINT, signal.SIGTERM)}
            try:
                yield
            finally:
                for sig, handler in kept.items():
                    signal.signal(sig, handler)

    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    try:
        _Server(config).run(sockets=[sock])
    finally:
        sock.close()
