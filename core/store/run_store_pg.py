"""Run records and notes in PostgreSQL (team mode): the ``RunStore`` of ``core.store.run_store``.

Every replica and CLI lists, loads and continues the same runs. Each save bumps the row's
``version``; listing fetches ids and versions, then only the bodies that changed since this
process last parsed them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from core.store.pg import db_errors, get_pool, where
from core.store.run_store import ParseCache

T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, version BIGINT NOT NULL DEFAULT 1, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS run_notes (id TEXT PRIMARY KEY, body TEXT NOT NULL);
"""
_SCHEMA_LOCK = 7_304_113


class PgRunStore:
    """Tables ``runs`` and ``run_notes`` in the team database."""

    def __init__(self, url: str):
        self.url, self.where = url, where(url)
        self._pool = get_pool(url)
        self._cache = ParseCache()
        self.unreadable: list[str] = []  # ids the last records() could not parse
        with db_errors(url), self._pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            for statement in filter(str.strip, SCHEMA.split(";")):
                conn.execute(statement)  # one at a time: statements are prepared

    def _run(self, sql: str, args: tuple = ()) -> list[tuple]:
        from psycopg.rows import tuple_row

        with db_errors(self.url), self._pool.connection() as conn:
            cur = conn.cursor(row_factory=tuple_row).execute(sql, args)
            return cur.fetchall() if cur.description else [(cur.rowcount,)]

    def save(self, run_id: str, body: str) -> None:
        self._run("INSERT INTO runs (id, body) VALUES (%s, %s) ON CONFLICT (id) DO UPDATE "
                  "SET body = EXCLUDED.body, version = runs.version + 1", (run_id, body))

    def load(self, run_id: str) -> str | None:
        rows = self._run("SELECT body FROM runs WHERE id = %s", (run_id,))
        return rows[0][0] if rows else None

    def delete(self, run_id: str) -> bool:
        return self._run("DELETE FROM runs WHERE id = %s", (run_id,))[0][0] > 0

    def records(self, parse: Callable[[str], T]) -> list[T]:
        versions = self._run("SELECT id, version FROM runs")
        out, missing, unreadable = [], [], []
        for run_id, version in versions:
            value = self._cache.get(run_id, version)
            if value is None:
                missing.append(run_id)
            else:
                out.append(value)
        if missing:
            rows = self._run("SELECT id, version, body FROM runs WHERE id = ANY(%s)", (missing,))
            for run_id, version, body in rows:
                try:
                    value = parse(body)
                except ValueError:
                    unreadable.append(run_id)
                    continue
                self._cache.put(run_id, version, value)
                out.append(value)
        self.unreadable = sorted(unreadable)
        return out

    def load_note(self, run_id: str) -> str | None:
        rows = self._run("SELECT body FROM run_notes WHERE id = %s", (run_id,))
        return rows[0][0] if rows else None

    def save_note(self, run_id: str, body: str) -> None:
        self._run("INSERT INTO run_notes (id, body) VALUES (%s, %s) ON CONFLICT (id) DO UPDATE "
                  "SET body = EXCLUDED.body", (run_id, body))

    def delete_note(self, run_id: str) -> None:
        self._run("DELETE FROM run_notes WHERE id = %s", (run_id,))
