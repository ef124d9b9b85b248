"""The bearer token of the HTTP transport.

Bound to a loopback address (127.0.0.1, ::1, localhost) the server answers local clients
only; bound to anything else it must be given a token (``DTR_MCP_TOKEN``), and every HTTP
request must then carry ``Authorization: Bearer <token>`` (compared in constant time). A
request without it gets 401 and never reaches the MCP session.
"""

from __future__ import annotations

import hmac
import ipaddress
import json


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (or 'localhost')."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class BearerGate:
    """ASGI middleware: HTTP requests need the bearer token (see the module docstring)."""

    def __init__(self, app, token: str):
        if not token:
            raise ValueError("token must not be empty")
        self.app = app
        self._token = token.encode("utf-8")

    def _allowed(self, scope) -> bool:
        header = dict(scope.get("headers") or []).get(b"authorization", b"")
        scheme, _, given = header.partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self._token)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or self._allowed(scope):
            await self.app(scope, receive, send)
            return
        body = json.dumps({"error": "invalid_token", "error_description":
                           "Send Authorization: Bearer <the server's DTR_MCP_TOKEN>."}).encode()
        await send({"type": "http.response.start", "status": 401, "headers": [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"www-authenticate", b'Bearer realm="deep-filings", error="invalid_token"')]})
        await send({"type": "http.response.body", "body": body})
