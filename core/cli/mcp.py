"""``python -m core mcp``: serve the corpus to MCP clients (``core.mcp``).

* ``mcp`` — stdio (what a desktop client or IDE agent starts as a subprocess);
* ``mcp --http [--host 127.0.0.1] [--port 8765]`` — streamable HTTP at ``/mcp``; bound to
  anything but a loopback address it needs ``DTR_MCP_TOKEN`` (clients send
  ``Authorization: Bearer <token>``); with the token set, loopback requires it too;
* ``--allow-writes`` — the ``ingest``, ``fetch`` and ``delete`` tools may change the corpus
  (refused otherwise); ``--ingest-dir DIR`` (repeatable) keeps local ingests inside DIR.

The corpus is the one the settings name (``DTR_DATA_DIR``, or team mode's
``DTR_DATABASE_URL`` + ``DTR_CHROMA_URL``), as for every other command.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from core.foundation.config import Settings
from core.foundation.errors import AppError

TOKEN_ENV = "DTR_MCP_TOKEN"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def _token(args) -> str | None:
    """The bearer token (AppError when the bind needs one and there is none, or for flags
    that do not go together)."""
    from core.mcp.auth import is_loopback

    token = (os.environ.get(TOKEN_ENV) or "").strip() or None
    if args.ingest_dir and not args.allow_writes:
        raise AppError("--ingest-dir limits what --allow-writes lets clients ingest: give "
                       "both, or neither.")
    for folder in args.ingest_dir or []:
        if not Path(folder).expanduser().is_dir():
            raise AppError(f"--ingest-dir {folder}: no such folder.")
    if not args.http:
        if args.host != DEFAULT_HOST or args.port != DEFAULT_PORT:
            raise AppError("--host and --port are for --http (stdio needs neither).")
        return None
    if not 0 <= args.port <= 65535:
        raise AppError(f"--port must be 0-65535 (0 takes a free port); got {args.port}.")
    if token is None and not is_loopback(args.host):
        raise AppError(f"Serving on {args.host} (not a loopback address) needs a bearer token: "
                       f"set {TOKEN_ENV} to a long random secret; clients send "
                       f"'Authorization: Bearer <it>'. Or bind to {DEFAULT_HOST}.")
    return token


def cmd_mcp(args, settings: Settings) -> int:
    token = _token(args)  # before anything opens: a refused bind costs nothing
    from core.mcp.server import build_server
    from core.mcp.service import McpService

    service = McpService(settings, allow_writes=args.allow_writes,
                         ingest_roots=args.ingest_dir)
    server = build_server(service)
    mode = "read and write" if args.allow_writes else "read-only"
    try:
        if args.http:
            from core.mcp.http import serve_http

            serve_http(server, args.host, args.port, token)
        else:
            print(f"MCP server on stdio ({mode}; corpus: {settings.data_dir})",
                  file=sys.stderr, flush=True)
            server.run()
    except KeyboardInterrupt:  # Ctrl-C in a terminal: stopped, not failed
        return 130
    finally:
        service.close()
    return 0


def add_mcp_parser(sub) -> None:
    """Add ``mcp`` to ``python -m core``."""
    s = sub.add_parser("mcp", help="serve the corpus to MCP clients (stdio, or --http)")
    s.add_argument("--http", action="store_true",
                   help="streamable HTTP at http://HOST:PORT/mcp instead of stdio")
    s.add_argument("--host", default=DEFAULT_HOST,
                   help=f"address to bind with --http (default {DEFAULT_HOST}; any other "
                        f"needs {TOKEN_ENV})")
    s.add_argument("--port", type=int, default=DEFAULT_PORT,
                   help=f"port with --http (default {DEFAULT_PORT}; 0: a free one)")
    s.add_argument("--allow-writes", action="store_true",
                   help="let clients ingest, fetch and delete filings")
    s.add_argument("--ingest-dir", action="append", metavar="DIR",
                   help="with --allow-writes: local files are ingested only from DIR "
                        "(repeatable)")
    s.set_defaults(func=cmd_mcp)
