"""The run's checkpointer: the storage's saver (SQLite file or team database) with a
serializer that knows every record type the agent's state holds, so checkpoints load even
with ``LANGGRAPH_STRICT_MSGPACK=true``.

Checkpoints name each record's class by module. Those written before core was layered name
the old modules (``core.types``, ...): ``LEGACY`` maps them to where the classes live now,
so a plan paused before an upgrade still resumes."""

from __future__ import annotations

import importlib
import inspect
import sys

from pydantic import BaseModel

import core.agent.state as state_mod
import core.analysis.model as analysis_mod
import core.figures.model as figures_mod
import core.foundation.types as types_mod
import core.reading.model as reading_mod
from core.foundation.config import Settings
from core.store.checkpoints import serializer
from core.store.storage import storage_for

LEGACY = {"core.types": "core.foundation.types"}  # old module name -> its module now


def _alias_legacy_modules() -> None:
    for old, new in LEGACY.items():
        sys.modules.setdefault(old, importlib.import_module(new))


def state_types() -> list[tuple[str, str]]:
    """(module, class) of every pydantic record the graph's state may hold, under its
    module's name and under any older name of that module."""
    out = []
    for mod in (state_mod, types_mod, figures_mod, analysis_mod, reading_mod):
        names = [mod.__name__, *(old for old, new in LEGACY.items() if new == mod.__name__)]
        for name, obj in vars(mod).items():
            if inspect.isclass(obj) and issubclass(obj, BaseModel) and obj.__module__ == \
                    mod.__name__:
                out.extend((module, name) for module in names)
    return out


def open_checkpointer(settings: Settings):
    """The checkpointer of these settings' storage (SQLite file or team database)."""
    _alias_legacy_modules()
    return storage_for(settings).checkpointer(serializer(state_types()))
