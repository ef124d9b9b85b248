"""A small persistent cache: SQLite under the data folder, bounded by entries and bytes (LRU).

    cache = open_cache(settings)              # None when settings.cache_enabled is False
    key = cache_key("llm", model, messages)   # sha256 of the parts as canonical JSON
    cache.get("llm", key)                     # bytes or None (a hit refreshes its recency)
    cache.put("llm", key, payload)            # then evicts least recently used entries

Values are opaque bytes (callers store JSON). Both bounds hold after every ``put``:
the oldest-used entries go first until ``entries <= max_entries`` and
``bytes <= max_bytes``; a value larger than ``max_bytes`` is not stored at all.
Every process opening the same file shares it (SQLite WAL, short transactions), so a
re-run in another process or after a restart is served from it too. A damaged or locked
file degrades to misses with a warning: a cache never fails the work it serves.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.foundation.config import Settings

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    value BLOB NOT NULL,
    size INTEGER NOT NULL,
    used REAL NOT NULL,
    PRIMARY KEY (namespace, key)
);
CREATE INDEX IF NOT EXISTS entries_used ON entries (used);
"""


def cache_key(*parts: Any) -> str:
    """A stable key for ``parts`` (any JSON-serialisable values; others via ``str``)."""
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str,
                      separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CacheStats:
    """What the cache holds now."""

    entries: int
    bytes: int
    by_namespace: dict[str, int]


class DiskCache:
    """Bounded LRU key/value store in one SQLite file (see the module docstring)."""

    def __init__(self, path: Path, *, max_entries: int = 5000, max_bytes: int = 200_000_000):
        if max_entries <= 0:
            raise ValueError(f"max_entries must be greater than 0 (got {max_entries})")
        if max_bytes <= 0:
            raise ValueError(f"max_bytes must be greater than 0 (got {max_bytes})")
        self.path = Path(path)
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=5.0,
                                     isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.executescript(_SCHEMA)

    def get(self, namespace: str, key: str) -> bytes | None:
        """The stored value or None; a hit becomes the most recently used entry."""
        try:
            with self._lock:
                row = self._conn.execute(
                    "SELECT value FROM entries WHERE namespace = ? AND key = ?",
                    (namespace, key)).fetchone()
                if row is None:
                    return None
                self._conn.execute(
                    "UPDATE entries SET used = ? WHERE namespace = ? AND key = ?",
                    (time.time(), namespace, key))
            return bytes(row[0])
        except sqlite3.Error as exc:
            log.warning("cache read failed (%s); treated as a miss", exc)
            return None

    def put(self, namespace: str, key: str, value: bytes) -> bool:
        """Store ``value``; False when it is larger than the byte bound or the write failed."""
        if len(value) > self.max_bytes:
            return False
        try:
            with self._lock:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    self._conn.execute(
                        "INSERT OR REPLACE INTO entries (namespace, key, value, size, used) "
                        "VALUES (?, ?, ?, ?, ?)",
                        (namespace, key, value, len(value), time.time()))
                    self._evict()
                    self._conn.execute("COMMIT")
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise
            return True
        except sqlite3.Error as exc:
            log.warning("cache write failed (%s); value not cached", exc)
            return False

    def _evict(self) -> None:
        """Drop least recently used entries until both bounds hold (inside a transaction)."""
        count, size = self._conn.execute(
            "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM entries").fetchone()
        if count <= self.max_entries and size <= self.max_bytes:
            return
        rows = self._conn.execute("SELECT namespace, key, size FROM entries ORDER BY used")
        doomed = []
        for namespace, key, n in rows:
            if count <= self.max_entries and size <= self.max_bytes:
                break
            doomed.append((namespace, key))
            count, size = count - 1, size - n
        self._conn.executemany("DELETE FROM entries WHERE namespace = ? AND key = ?", doomed)

    def stats(self) -> CacheStats:
        with self._lock:
            rows = self._conn.execute(
                "SELECT namespace, COUNT(*), SUM(size) FROM entries GROUP BY namespace"
            ).fetchall()
        return CacheStats(entries=sum(r[1] for r in rows), bytes=sum(r[2] for r in rows),
                          by_namespace={r[0]: r[1] for r in rows})

    def clear(self, namespace: str | None = None) -> None:
        """Forget everything (or one namespace)."""
        with self._lock:
            if namespace is None:
                self._conn.execute("DELETE FROM entries")
            else:
                self._conn.execute("DELETE FROM entries WHERE namespace = ?", (namespace,))

    def close(self) -> None:
        with self._lock:
            self._conn.close()


_OPEN: dict[tuple[str, int, int], DiskCache] = {}
_OPEN_LOCK = threading.Lock()


def open_cache(settings: Settings) -> DiskCache | None:
    """The process-wide cache for ``settings`` (None when caching is turned off)."""
    if not settings.cache_enabled:
        return None
    max_bytes = int(settings.cache_max_mb * 1_000_000)
    key = (str(settings.cache_path), settings.cache_max_entries, max_bytes)
    with _OPEN_LOCK:
        if key not in _OPEN:
            try:
                _OPEN[key] = DiskCache(settings.cache_path,
                                       max_entries=settings.cache_max_entries,
                                       max_bytes=max_bytes)
            except sqlite3.Error as exc:
                log.warning("cache unavailable at %s (%s); running without it",
                            settings.cache_path, exc)
                return None
        return _OPEN[key]
