"""The document registry in PostgreSQL (team mode): the ``Registry`` contract
(``core.store.registry_api``).

Same tables as the SQLite registry (``"end"`` quoted), in the database of
``settings.database_url``, so every app replica and CLI sees one corpus. A pending
document records the PostgreSQL backend pid of the connection that wrote it: it is stale
once that session is gone (its process died or lost the server), which holds across
machines, unlike a local pid. The corpus ``generation`` lives in ``corpus_state`` as in
SQLite and moves in the same transaction as every change of the set of documents. The ``cik``
column is added to a database created by an older release (``ADD COLUMN IF NOT EXISTS``,
filled as in SQLite, under the schema lock) and reads show canonical company names.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from core.foundation.errors import StoreError
from core.foundation.types import Chunk, DocumentMeta, Fact
from core.ingest.cover import normal_cik
from core.store import facts_table
from core.store.companies import with_identity
from core.store.corrections import validate
from core.store.documents import (
    _FIELDS,
    _ISO_DATE,
    _chunk_row,
    _row_to_chunk,
    stored_cik,
    stored_json,
    with_cik,
)
from core.store.pg import db_errors, get_pool

SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY,
    meta TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'ready')),
    pid INTEGER NOT NULL DEFAULT 0,
    seq BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id TEXT PRIMARY KEY,
    doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    section TEXT NOT NULL,
    page INTEGER,
    start INTEGER NOT NULL,
    "end" INTEGER NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    page_end INTEGER,
    page_label TEXT,
    context TEXT NOT NULL DEFAULT '',
    statement TEXT
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id, idx);
CREATE TABLE IF NOT EXISTS corpus_state (key TEXT PRIMARY KEY, value BIGINT NOT NULL);
INSERT INTO corpus_state (key, value) VALUES ('generation', 0), ('meta_version', 0)
    ON CONFLICT (key) DO NOTHING;
"""
_CIK_COLUMN = "cik"  # added after the first release (see ``_migrate``)

_COLS = [f'"{f}"' if f == "end" else f for f in _FIELDS]
_CHUNK_COLS = ", ".join(f"c.{c}" for c in _COLS)
_READY_JOIN = "FROM chunks c JOIN documents d ON d.doc_id = c.doc_id AND d.status = 'ready'"
_SCHEMA_LOCK = 7_304_112  # advisory lock id: one process creates the tables at a time


class PgRegistry:
    """The registry in the team database (see the module docstring). Thread-safe."""

    def __init__(self, url: str):
        self.url = url
        self.path = None
        self._pool = get_pool(url)
        self._docs: tuple[tuple[int, int], list[DocumentMeta]] | None = None
        self._lock = threading.Lock()
        with db_errors(url), self._pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            for statement in filter(str.strip, (SCHEMA + facts_table.SCHEMA).split(";")):
                conn.execute(statement)  # one at a time: statements are prepared
            self._migrate(conn)

    @staticmethod
    def _migrate(conn) -> None:
        """Add and fill the ``cik`` column of a database an older release created, and
        the facts' ``reader`` column."""
        from psycopg.rows import tuple_row

        cur = conn.cursor(row_factory=tuple_row)
        have = cur.execute("SELECT 1 FROM information_schema.columns WHERE table_schema = "
                           "current_schema() AND table_name = 'documents' AND column_name = %s",
                           (_CIK_COLUMN,)).fetchone()
        if have is None:
            cur.execute("ALTER TABLE documents ADD COLUMN IF NOT EXISTS cik TEXT NOT NULL "
                        "DEFAULT ''")
            rows = cur.execute("SELECT doc_id, meta FROM documents").fetchall()
            filled = [(cik, doc_id) for doc_id, meta in rows
                      if (cik := stored_cik(DocumentMeta.model_validate_json(meta)))]
            if filled:
                cur.executemany("UPDATE documents SET cik = %s WHERE doc_id = %s", filled)
        cur.execute("CREATE INDEX IF NOT EXISTS documents_cik ON documents(cik)")
        cur.execute(facts_table.ADD_READER.replace("ADD COLUMN", "ADD COLUMN IF NOT EXISTS"))

    def _rows(self, sql: str, args: Iterable = ()) -> list[tuple]:
        from psycopg.rows import tuple_row

        with db_errors(self.url), self._pool.connection() as conn:
            return conn.cursor(row_factory=tuple_row).execute(sql, list(args)).fetchall()

    def _write(self, fn):
        """Run ``fn(cursor)`` in one transaction and return its result."""
        from psycopg.rows import tuple_row

        with db_errors(self.url), self._pool.connection() as conn, conn.transaction():
            return fn(conn.cursor(row_factory=tuple_row))

    # --- reads (ready documents only) -------------------------------------
    def status(self, doc_id: str) -> str | None:
        rows = self._rows("SELECT status FROM documents WHERE doc_id = %s", (doc_id,))
        return rows[0][0] if rows else None

    def _versions(self) -> tuple[int, int]:
        state = dict(self._rows("SELECT key, value FROM corpus_state"))
        return int(state.get("generation", 0)), int(state.get("meta_version", 0))

    def documents(self) -> list[DocumentMeta]:
        """Ready documents in the order they were added (parsed again only when the set of
        documents or a document's metadata changed, in any process)."""
        version = self._versions()
        with self._lock:
            if self._docs is not None and self._docs[0] == version:
                return list(self._docs[1])
        rows = self._rows("SELECT meta, cik FROM documents WHERE status = 'ready' ORDER BY seq")
        docs = with_identity([with_cik(meta, cik) for meta, cik in rows])
        with self._lock:
            self._docs = (version, docs)
        return list(docs)

    def get_document(self, doc_id: str) -> DocumentMeta | None:
        """A ready document as ``documents`` shows it, or None."""
        return next((d for d in self.documents() if d.doc_id == doc_id), None)

    def documents_of(self, cik: str) -> list[DocumentMeta]:
        """Ready documents registered under ``cik`` (any spelling: "1045810" too)."""
        ids = {r[0] for r in self._rows(
            "SELECT doc_id FROM documents WHERE cik = %s AND status = 'ready'",
            (normal_cik(cik),))}
        return [d for d in self.documents() if d.doc_id in ids]

    def chunks(self, doc_id: str | None = None, section: str | None = None) -> list[Chunk]:
        sql = f"SELECT {_CHUNK_COLS} {_READY_JOIN}"
        where, args = [], []
        if doc_id is not None:
            where.append("c.doc_id = %s")
            args.append(doc_id)
        if section is not None:
            where.append("c.section = %s")
            args.append(section)
        if where:
            sql += " WHERE " + " AND ".join(where)
        return [_row_to_chunk(r) for r in self._rows(sql + " ORDER BY d.seq, c.idx", args)]

    def get_chunks(self, ids: Iterable[str]) -> list[Chunk]:
        ids = list(ids)
        if not ids:
            return []
        sql = f"SELECT {_CHUNK_COLS} {_READY_JOIN} WHERE c.chunk_id = ANY(%s)"
        found = {r[0]: _row_to_chunk(r) for r in self._rows(sql, (ids,))}
        return [found[i] for i in ids if i in found]

    def sections(self) -> dict[str, list[str]]:
        sql = (f"SELECT c.doc_id, c.section, MIN(c.idx) AS first {_READY_JOIN} "
               "GROUP BY c.doc_id, c.section, d.seq ORDER BY d.seq, first")
        out: dict[str, list[str]] = {}
        for doc_id, section, _ in self._rows(sql):
            out.setdefault(doc_id, []).append(section)
        return out

    def statement_chunk_ids(self, statements: list[str], doc_ids: list[str] | None = None,
                            sections: list[str] | None = None) -> list[str]:
        if not statements or doc_ids == [] or sections == []:
            return []
        where, args = ["c.statement = ANY(%s)"], [list(statements)]
        for column, values in (("c.doc_id", doc_ids), ("c.section", sections)):
            if values is not None:
                where.append(f"{column} = ANY(%s)")
                args.append(list(values))
        sql = f"SELECT c.chunk_id {_READY_JOIN} WHERE {' AND '.join(where)} ORDER BY d.seq, c.idx"
        return [r[0] for r in self._rows(sql, args)]

    def facts(self, doc_ids: list[str] | None = None, *, metric: str | None = None,
              fiscal_years: list[int] | None = None, concept: str | None = None,
              statement: str | None = None) -> list[Fact]:
        sql, args = facts_table.query("%s", doc_ids, metric, fiscal_years, concept, statement)
        return facts_table.to_facts(self._rows(sql, args))

    def facts_status(self) -> dict[str, int]:
        return dict(self._rows(facts_table.STATUS_SQL))

    def facts_counts(self) -> dict[str, int]:
        return dict(self._rows(facts_table.COUNTS_SQL))

    def facts_readers(self) -> dict[str, str]:
        return dict(self._rows(facts_table.READERS_SQL))

    # --- writes -----------------------------------------------------------
    def write_pending(self, meta: DocumentMeta, chunks: list[Chunk],
                      facts: list[Fact] | None = None) -> None:
        rows = [_chunk_row(c) for c in chunks]
        fact_rows = None if facts is None else facts_table.fact_rows(meta.doc_id, facts)

        def fn(cur):
            cur.execute(
                "INSERT INTO documents (doc_id, meta, status, pid, seq, cik) VALUES (%s, %s, "
                "'pending', pg_backend_pid(), (SELECT COALESCE(MAX(seq), 0) + 1 FROM documents), "
                "%s)", (meta.doc_id, stored_json(meta), stored_cik(meta)))
            marks = ", ".join(["%s"] * len(_COLS))
            cur.executemany(f"INSERT INTO chunks ({', '.join(_COLS)}) VALUES ({marks})", rows)
            if fact_rows is not None:
                if fact_rows:
                    cur.executemany(facts_table.insert_sql("%s"), fact_rows)
                cur.execute(facts_table.count_sql("%s"),
                            facts_table.count_args(meta.doc_id, len(fact_rows)))

        self._write(fn)

    def restore_chunks(self, doc_id: str, chunks: list[Chunk]) -> int:
        rows = [_chunk_row(c) for c in chunks if c.doc_id == doc_id]

        def fn(cur):
            marks = ", ".join(["%s"] * len(_COLS))
            cur.executemany(f"INSERT INTO chunks ({', '.join(_COLS)}) VALUES ({marks}) "
                            "ON CONFLICT (chunk_id) DO NOTHING", rows)
            return self._bump(cur)

        return self._write(fn)

    def write_facts(self, doc_id: str, facts: list[Fact]) -> None:
        rows = facts_table.fact_rows(doc_id, facts)

        def fn(cur):
            if cur.execute("SELECT 1 FROM documents WHERE doc_id = %s FOR UPDATE",
                           (doc_id,)).fetchone() is None:
                raise StoreError(f"No document {doc_id!r} in the corpus; `python -m core "
                                 "docs` lists the ids.")
            cur.execute("DELETE FROM facts WHERE doc_id = %s", (doc_id,))
            if rows:
                cur.executemany(facts_table.insert_sql("%s"), rows)
            cur.execute(facts_table.count_sql("%s"), facts_table.count_args(doc_id, len(rows)))

        self._write(fn)

    def update_document(self, doc_id: str, **fields: str) -> DocumentMeta:
        values = validate(fields)

        def fn(cur):
            row = cur.execute("SELECT meta, cik FROM documents WHERE doc_id = %s AND status = "
                              "'ready' FOR UPDATE", (doc_id,)).fetchone()
            if row is None:
                raise StoreError(
                    f"No document {doc_id!r} in the corpus; `python -m core docs` lists the ids.")
            meta = with_cik(row[0], row[1])
            update: dict = dict(values)
            if _ISO_DATE.match(values.get("period", "")):
                update["period_end"] = values["period"]
            update["corrected"] = list(dict.fromkeys([*meta.corrected, *values]))
            meta = meta.model_copy(update=update)
            cur.execute("UPDATE documents SET meta = %s, cik = %s WHERE doc_id = %s",
                        (stored_json(meta), stored_cik(meta), doc_id))
            self._bump(cur, "meta_version")
            return meta

        meta = self._write(fn)
        return self.get_document(doc_id) or meta  # as reads show it (canonical name)

    def mark_ready(self, doc_id: str) -> int:
        def fn(cur):
            cur.execute("UPDATE documents SET status = 'ready', pid = 0 WHERE doc_id = %s",
                        (doc_id,))
            return self._bump(cur)

        return self._write(fn)

    def remove(self, doc_id: str) -> int:
        def fn(cur):
            cur.execute("DELETE FROM documents WHERE doc_id = %s", (doc_id,))
            return self._bump(cur)

        return self._write(fn)

    def abandon(self, doc_id: str) -> None:
        self._write(lambda cur: cur.execute(
            "UPDATE documents SET pid = 0 WHERE doc_id = %s AND status = 'pending'", (doc_id,)))

    @staticmethod
    def _bump(cur, key: str = "generation") -> int:
        return int(cur.execute("UPDATE corpus_state SET value = value + 1 WHERE key = %s "
                               "RETURNING value", (key,)).fetchone()[0])

    def generation(self) -> int:
        rows = self._rows("SELECT value FROM corpus_state WHERE key = 'generation'")
        return int(rows[0][0]) if rows else 0

    def stale_pending(self) -> list[str]:
        """Pending documents whose writing session is gone (see the module docstring)."""
        rows = self._rows(
            "SELECT doc_id FROM documents WHERE status = 'pending' AND "
            "pid NOT IN (SELECT pid FROM pg_stat_activity WHERE pid IS NOT NULL)")
        return [r[0] for r in rows]

    def ready_ids(self) -> list[str]:
        return [r[0] for r in self._rows(
            "SELECT doc_id FROM documents WHERE status = 'ready' ORDER BY seq")]

    def close(self) -> None:
        """Nothing to do: the pool is the process's (``core.store.pg``)."""
