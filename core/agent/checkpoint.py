"""The SQLite checkpointer: paused and finished runs survive a browser refresh or a restart.

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
    import core.types as types_mod

    out = []
    for mod in (state_mod, types_mod):
        for name, obj in vars(mod).items():
            if inspect.isclass(obj) and issubclass(obj, BaseModel) and obj.__module__ == \
                    mod.__name__:
                out.append((mod.__name__, name))
    return out


def checkpoint_path(settings: Settings) -> Path:
    """Where the checkpoints of this data folder live."""
    return settings.data_dir / "checkpoints.sqlite"


def open_checkpointer(settings: Settings) -> SqliteSaver:
    """A ``SqliteSaver`` on ``data_dir/checkpoints.sqlite`` (created if missing)."""
    path = checkpoint_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), check_same_thread=False)
    serde = JsonPlusSerializer(allowed_msgpack_modules=_state_types())
    saver = SqliteSaver(conn, serde=serde)
    saver.setup()
    return saver
