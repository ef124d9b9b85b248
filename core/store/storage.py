"""The storage backend: where the registry, run records and checkpoints live.

One setting chooses it (``core.foundation.config.Settings.database_url``):

* :class:`EmbeddedStorage` (the default): a SQLite registry, JSON run records and a SQLite
  checkpointer under ``data_dir``; writers of one data folder serialise on a file lock.
* :class:`TeamStorage`: all three in PostgreSQL (one connection pool per process), writers of
  every replica serialise on a PostgreSQL advisory lock; the vectors are on the Chroma server.

Code that stores something asks ``storage_for(settings)`` for the piece it needs and never
looks at the mode itself.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator
from typing import Any, Protocol

from core.foundation.config import Settings
from core.store.registry_api import Registry
from core.store.run_store import FileRunStore, RunStore

_WRITER_LOCK = 7_304_111  # PostgreSQL advisory lock id for corpus index writes


class Storage(Protocol):
    kind: str

    def registry(self) -> Registry:
        """The document registry (SQLite file or team database)."""

    def runs(self) -> RunStore: ...

    def checkpointer(self, serde: Any) -> Any:
        """A LangGraph checkpoint saver writing with ``serde``."""

    def writer_lock(self) -> contextlib.AbstractContextManager[None]:
        """Held while writing the corpus indexes (every process of the corpus waits)."""

    def corpus_key(self) -> str:
        """Identifies the corpus (names its collection on a shared Chroma server)."""


class EmbeddedStorage:
    kind = "embedded"

    def __init__(self, settings: Settings):
        self.settings = settings
        self._runs = FileRunStore(settings.runs_dir, settings.data_dir / "run_notes")

    def registry(self):
        from core.store.documents import SqliteRegistry

        return SqliteRegistry(self.settings.registry_path)

    def runs(self) -> RunStore:
        return self._runs

    def checkpointer(self, serde):
        from core.store.checkpoints import checkpoint_path, sqlite_checkpointer

        return sqlite_checkpointer(checkpoint_path(self.settings), serde)

    def writer_lock(self):
        from core.store.coherence import writer_lock

        self.settings.data_dir.mkdir(parents=True, exist_ok=True)
        return writer_lock(self.settings.data_dir)

    def corpus_key(self) -> str:
        return str(self.settings.data_dir.resolve())


class TeamStorage:
    kind = "team"

    def __init__(self, settings: Settings):
        from core.store.run_store_pg import PgRunStore

        self.settings, self.url = settings, str(settings.database_url)
        self._runs = PgRunStore(self.url)

    def registry(self):
        from core.store.documents_pg import PgRegistry

        return PgRegistry(self.url)

    def runs(self) -> RunStore:
        return self._runs

    def checkpointer(self, serde):
        from core.store.checkpoints import postgres_checkpointer
        from core.store.pg import db_errors, get_pool

        with db_errors(self.url):
            return postgres_checkpointer(get_pool(self.url), serde)

    @contextlib.contextmanager
    def writer_lock(self) -> Iterator[None]:
        from core.store.pg import db_errors, get_pool

        # The connection comes within the pool's own timeout, as for any other call (the
        # wait for another writer is the lock's, on the server): asked with 600 s, an ingest
        # whose database went away sat silent for ten minutes.
        with db_errors(self.url), get_pool(self.url).connection() as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (_WRITER_LOCK,))
            try:
                yield
            finally:
                with contextlib.suppress(Exception):  # a lost session has released it
                    conn.execute("SELECT pg_advisory_unlock(%s)", (_WRITER_LOCK,))

    def corpus_key(self) -> str:
        from core.store.pg import where

        return "team:" + where(self.url)


_CACHE: dict[tuple, Storage] = {}


def storage_for(settings: Settings) -> Storage:
    """The storage of these settings (one per database URL or data folder per process)."""
    key = (settings.database_url, str(settings.data_dir))
    storage = _CACHE.get(key)
    if storage is None:
        storage = TeamStorage(settings) if settings.team_mode else EmbeddedStorage(settings)
        _CACHE[key] = storage
    return storage


def describe(settings: Settings) -> str:
    """Where the corpus lives, for the UI (no password)."""
    if not settings.team_mode:
        return f"folder {settings.data_dir}"
    from core.store.pg import where

    return f"team database {where(str(settings.database_url))}, vectors at {settings.chroma_url}"


def corpus_digest(settings: Settings) -> str:
    """A short stable hash of the corpus key (for collection names on a shared server)."""
    return hashlib.sha1(storage_for(settings).corpus_key().encode()).hexdigest()[:10]


def failure_message(exc: BaseException, settings: Settings) -> str | None:
    """One line for a storage failure the user can act on (the team database lost), else
    None (the caller reports the failure its usual way)."""
    if not settings.team_mode:
        return None
    from core.store.pg import DatabaseUnavailable, is_connection_error, unavailable

    if isinstance(exc, DatabaseUnavailable):
        return str(exc)
    if is_connection_error(exc):
        return str(unavailable(str(settings.database_url), exc))
    return None
