"""Where run records and run notes are kept: the small interface and its file version.

:class:`RunStore` is what ``core.app.runs`` and ``core.app.run_index`` use; the storage backend
(``core.store.storage``) picks the implementation: JSON files under the data folder (embedded,
this module) or PostgreSQL tables (team mode, ``core.store.run_store_pg``). Bodies are the
records' JSON text; parsing is cached per record version, so listing runs re-reads only
the records that changed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TypeVar

T = TypeVar("T")


class RunStore(Protocol):
    """Run records and notes by run id (ids are checked by the callers)."""

    where: str

    def save(self, run_id: str, body: str) -> None: ...
    def load(self, run_id: str) -> str | None: ...
    def delete(self, run_id: str) -> bool: ...
    def records(self, parse: Callable[[str], T]) -> list[T]:
        """Every record ``parse`` accepts; the ids of the others are left in ``unreadable``."""
    def load_note(self, run_id: str) -> str | None: ...
    def save_note(self, run_id: str, body: str) -> None: ...
    def delete_note(self, run_id: str) -> None: ...


class ParseCache:
    """Parsed bodies by key, kept while the key's stamp does not change."""

    def __init__(self):
        self._items: dict[str, tuple[object, object]] = {}
        self._lock = threading.Lock()

    def get(self, key: str, stamp: object) -> object | None:
        with self._lock:
            hit = self._items.get(key)
        return hit[1] if hit is not None and hit[0] == stamp else None

    def put(self, key: str, stamp: object, value: object) -> None:
        with self._lock:
            self._items[key] = (stamp, value)


def _atomic_write(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{threading.get_ident()}.tmp")
    tmp.write_text(body, encoding="utf-8")
    tmp.replace(path)


class FileRunStore:
    """Records as ``runs/<id>.json`` and notes as ``run_notes/<id>.json`` (embedded mode)."""

    def __init__(self, runs_dir: Path, notes_dir: Path):
        self.runs_dir, self.notes_dir = runs_dir, notes_dir
        self.where = str(runs_dir)
        self._cache = ParseCache()
        self.unreadable: list[str] = []  # ids the last records() could not parse

    def save(self, run_id: str, body: str) -> None:
        _atomic_write(self.runs_dir / f"{run_id}.json", body)

    def load(self, run_id: str) -> str | None:
        try:
            return (self.runs_dir / f"{run_id}.json").read_text(encoding="utf-8")
        except FileNotFoundError:
            return None

    def delete(self, run_id: str) -> bool:
        path = self.runs_dir / f"{run_id}.json"
        if not path.exists():
            return False
        path.unlink(missing_ok=True)
        return True

    def records(self, parse: Callable[[str], T]) -> list[T]:
        if not self.runs_dir.is_dir():
            return []
        out, unreadable = [], []
        for path in sorted(self.runs_dir.glob("*.json")):
            try:
                st = path.stat()
                stamp = (st.st_mtime_ns, st.st_size)
                value = self._cache.get(str(path), stamp)
                if value is None:
                    value = parse(path.read_text(encoding="utf-8"))
                    self._cache.put(str(path), stamp, value)
            except (OSError, ValueError):
                unreadable.append(path.stem)
                continue
            out.append(value)
        self.unreadable = unreadable
        return out

    def load_note(self, run_id: str) -> str | None:
        try:
            return (self.notes_dir / f"{run_id}.json").read_text(encoding="utf-8")
        except OSError:
            return None

    def save_note(self, run_id: str, body: str) -> None:
        _atomic_write(self.notes_dir / f"{run_id}.json", body)

    def delete_note(self, run_id: str) -> None:
        (self.notes_dir / f"{run_id}.json").unlink(missing_ok=True)
