"""The checkpointer: paused and finished runs survive a browser refresh or a restart.

SQLite under the data folder by default; PostgreSQL (``PostgresSaver`` on the team
database's pool) in team mode. ``core.store.storage`` picks one; the
app layer (``core.app.checkpointing``) gives the record types the state holds.

The connection is opened with ``check_same_thread=False`` (Streamlit reruns and
the service touch it from several threads; the saver serialises access with
its own lock). The serializer's allow-list names every record type the state
holds, so checkpoints load even with ``LANGGRAPH_STRICT_MSGPACK=true``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

from core.foundation.config import Settings
from core.foundation.errors import StoreError


def serializer(types: list[tuple[str, str]]) -> JsonPlusSerializer:
    """The checkpoint serializer whose msgpack allow-list names ``types`` ((module, class)
    pairs: every record type the graph's state holds, given by the layer that owns it)."""
    return JsonPlusSerializer(allowed_msgpack_modules=types)


def checkpoint_path(settings: Settings) -> Path:
    """Where the checkpoints of an embedded data folder live."""
    return settings.data_dir / "checkpoints.sqlite"


def sqlite_checkpointer(path: Path, serde: JsonPlusSerializer) -> SqliteSaver:
    """A ``SqliteSaver`` on ``path`` (created if missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), check_same_thread=False)
    saver = SqliteSaver(conn, serde=serde)
    try:
        saver.setup()
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StoreError(f"The checkpoints file {path} cannot be read ({exc}); "
                         "`python -m core doctor --repair` moves it aside (paused plans in it "
                         "are lost; run records are kept).") from None
    return saver


_PG_READY: set[int] = set()
_SETUP_LOCK = 7_304_114  # PostgreSQL advisory lock id


def postgres_checkpointer(pool, serde: JsonPlusSerializer):
    """A ``PostgresSaver`` on the team database's pool (tables created once per process)."""
    from langgraph.checkpoint.postgres import PostgresSaver

    saver = PostgresSaver(pool, serde=serde)
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
