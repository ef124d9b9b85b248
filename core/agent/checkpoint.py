"""The checkpointer: paused and finished runs survive a browser refresh or a restart.

SQLite under the data folder by default; PostgreSQL (``PostgresSaver`` on the team
database's pool) in team mode. ``core.storage`` picks one.

The connection is opened with ``check_same_thread=False`` (Streamlit reruns and
the service touch it from several threads; the saver serialises access with
its own lock). The serializer's allow-list names every record type the state
holds, so checkpoints load even with ``LANGGRAPH_STRICT_MSGPACK=true``.
"""

from __future__ import annotations

import inspect
import sqlite3
from pathlib import Path

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver
from pydantic import BaseModel

from core.config import Settings


def _state_types() -> list[tuple[str, str]]:
    import core.agent.state as state_mod
    import core.figures.model as figures_mod
    import core.types as types_mod

    out = []
    for mod in (state_mod, types_mod, figures_mod):
        for name, obj in vars(mod).items():
            if inspect.isclass(obj) and issubclass(obj, BaseModel) and obj.__module__ == \
                    mod.__name__:
                out.append((mod.__name__, name))
    return out


def _serde() -> JsonPlusSerializer:
    return JsonPlusSerializer(allowed_msgpack_modules=_state_types())


def checkpoint_path(settings: Settings) -> Path:
    """Where the checkpoints of an embedded data folder live."""
    return settings.data_dir / "checkpoints.sqlite"


def open_checkpointer(settings: Settings):
    """The checkpointer of these settings' storage (SQLite file or team database)."""
    from core.storage import storage_for

    return storage_for(settings).checkpointer()


def sqlite_checkpointer(path: Path) -> SqliteSaver:
    """A ``SqliteSaver`` on ``path`` (created if missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), check_same_thread=False)
    saver = SqliteSaver(conn, serde=_serde())
    saver.setup()
    return saver


_PG_READY: set[int] = set()
_SETUP_LOCK = 7_304_114  # PostgreSQL advisory lock id


def postgres_checkpointer(pool):
    """A ``PostgresSaver`` on the team database's pool (tables created once per process)."""
    from langgraph.checkpoint.postgres import PostgresSaver

    saver = PostgresSaver(pool, serde=_serde())
    if id(pool) not in _PG_READY:
        with pool.connection() as conn:  # replicas starting together migrate one at a time
            conn.execute("SELECT pg_advisory_lock(%s)", (_SETUP_LOCK,))
            try:
                saver.setup()
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (_SETUP_LOCK,))
        _PG_READY.add(id(pool))
    return saver


def close_checkpointer(saver) -> None:
    """Close a SQLite saver's connection; a pool belongs to the process and stays open."""
    conn = getattr(saver, "conn", None)
    if isinstance(conn, sqlite3.Connection):
        conn.close()
