"""The team database: one psycopg connection pool per process and URL, and its errors.

Connections come from a ``psycopg_pool.ConnectionPool`` that checks each connection as it
is handed out, so after PostgreSQL restarts the next operation gets a fresh connection
(the pool reconnects; nothing to restart here). A reconnect attempt backs off for at most
5 s and a new one starts on the next request, so service resumes within seconds of the
server coming back however long it was away. Connections are in autocommit mode with
dict rows, as LangGraph's ``PostgresSaver`` needs (it shares the pool); our own writes
open explicit transactions.

:func:`db_errors` turns a lost or refused connection into one ``StoreError`` line naming
the server (never the password) and what to do.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from urllib.parse import urlparse

from core.foundation.errors import StoreError

_POOLS: dict[str, object] = {}
_LOCK = threading.Lock()


def where(url: str) -> str:
    """``host:port/db`` of a database URL, without user or password."""
    u = urlparse(url)
    return f"{u.hostname or 'localhost'}:{u.port or 5432}{u.path or '/'}"


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0].strip() if text else type(exc).__name__


class DatabaseUnavailable(StoreError):
    """The team database cannot be reached (down, restarting, refused)."""


def unavailable(url: str, exc: BaseException) -> DatabaseUnavailable:
    return DatabaseUnavailable(
        f"Lost the team database at {where(url)} ({first_line(exc)}). Check that PostgreSQL "
        "is running; an interrupted run can be continued once it is back.")


def is_connection_error(exc: BaseException) -> bool:
    """Whether ``exc`` (or its cause) is a lost, refused or timed-out database connection."""
    import psycopg
    import psycopg_pool

    seen = 0
    while exc is not None and seen < 5:
        if isinstance(exc, psycopg.OperationalError | psycopg_pool.PoolTimeout
                      | psycopg.InterfaceError | DatabaseUnavailable):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


@contextlib.contextmanager
def db_errors(url: str) -> Iterator[None]:
    """Raise connection failures inside as one-line :class:`DatabaseUnavailable`."""
    try:
        yield
    except DatabaseUnavailable:
        raise
    except Exception as exc:
        if is_connection_error(exc):
            raise unavailable(url, exc) from None
        raise


def get_pool(url: str):
    """The process-wide pool for ``url`` (opened on first use)."""
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    with _LOCK:
        pool = _POOLS.get(url)
        if pool is None:
            # The pool logs every failed reconnect attempt with libpq's multi-line text; the
            # caller reports the loss once, in one line (``unavailable``).
            logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
            pool = ConnectionPool(
                url, min_size=1, max_size=8, open=False, timeout=10,
                check=ConnectionPool.check_connection, reconnect_timeout=5,
                kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row,
                        "connect_timeout": 5})
            try:
                pool.open(wait=True, timeout=10)
            except BaseException as exc:
                pool.close()  # no workers left retrying in the background
                if isinstance(exc, Exception) and is_connection_error(exc):
                    raise DatabaseUnavailable(  # never reached: not "lost"
                        f"Cannot reach the team database at {where(url)} "
                        f"({first_line(exc)}). Check DTR_DATABASE_URL and that PostgreSQL is "
                        "running and accepts connections from this machine.") from None
                raise
            _POOLS[url] = pool
        return pool


def close_pools() -> None:
    """Close every pool of this process (tests; the app keeps them)."""
    with _LOCK:
        for pool in _POOLS.values():
            pool.close()
        _POOLS.clear()
