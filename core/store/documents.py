"""SQLite document registry: documents (meta + status) and chunk texts.

A document is written with status ``pending`` before its vectors go to Chroma
and flipped to ``ready`` in one transaction afterwards. Every read below only
sees ``ready`` documents, so a crash half-way through an add is invisible;
``purge_pending`` removes leftovers whose writing process is gone.

Documents carry their filer's CIK in a column of their own (``cik``, indexed; added to a
registry written by an older release when it is opened, and filled from what the stored
metadata and an EDGAR source URL say); reads return each document under its filer's
canonical name (``core.store.companies``).

The corpus **generation** (one counter in ``corpus_state``) moves in the same transaction as
every change of the set of documents (a document becoming ready, a document removed), by any
process: a process holding derived state (Chroma's in-memory index, BM25) compares it per query
and reloads when it moved.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from collections.abc import Iterable
from pathlib import Path

from core.foundation.errors import StoreError
from core.foundation.types import Chunk, DocumentMeta, Fact
from core.ingest.cover import normal_cik
from core.store import facts_table
from core.store.companies import with_identity
from core.store.corrections import validate

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_EDGAR_SOURCE = re.compile(r"/Archives/edgar/data/(\d{1,10})/", re.I)

SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY,
    meta TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'ready')),
    pid INTEGER NOT NULL DEFAULT 0,
    seq INTEGER NOT NULL,
    cik TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id TEXT PRIMARY KEY,
    doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    section TEXT NOT NULL,
    page INTEGER,
    start INTEGER NOT NULL,
    end INTEGER NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    page_end INTEGER,
    page_label TEXT,
    context TEXT NOT NULL DEFAULT '',
    statement TEXT
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id, idx);
CREATE TABLE IF NOT EXISTS corpus_state (
    key TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
INSERT OR IGNORE INTO corpus_state (key, value) VALUES ('generation', 0);
"""

# Columns added after the first release, with their SQL types; old registries get them on open.
_ADDED_COLUMNS = {"page_end": "INTEGER", "page_label": "TEXT",
                  "context": "TEXT NOT NULL DEFAULT ''", "statement": "TEXT"}
_FIELDS = ("chunk_id", "doc_id", "idx", "section", "page", "start", "end", "kind", "text",
           "page_end", "page_label", "context", "statement")
_CHUNK_COLS = ", ".join(f"c.{f}" for f in _FIELDS)
_READY_JOIN = "FROM chunks c JOIN documents d ON d.doc_id = c.doc_id AND d.status = 'ready'"


def _row_to_chunk(row: tuple) -> Chunk:
    values = dict(zip(_FIELDS, row, strict=True))
    values["index"] = values.pop("idx")
    return Chunk(**values)


def _chunk_row(c: Chunk) -> tuple:
    values = c.model_dump(include=set(_FIELDS) | {"index"})
    values["idx"] = values.pop("index")
    return tuple(values[f] for f in _FIELDS)


def stored_cik(meta: DocumentMeta) -> str:
    """The CIK a document is registered under: its own, else the one in an EDGAR archive
    source URL (``.../Archives/edgar/data/1045810/...``), else ""."""
    if meta.cik:
        return meta.cik
    found = _EDGAR_SOURCE.search(meta.source or "")
    return normal_cik(found.group(1)) if found else ""


def stored_json(meta: DocumentMeta) -> str:
    """The metadata as stored: the name the filing prints, never a canonical name a read
    gave it."""
    if meta.printed_name:
        meta = meta.model_copy(update={"company": meta.printed_name, "printed_name": ""})
    if meta.name_conflict:
        meta = meta.model_copy(update={"name_conflict": ""})
    return meta.model_dump_json()


def with_cik(meta_json: str, cik: str) -> DocumentMeta:
    """A registry row's document, its CIK column winning over the metadata's."""
    meta = DocumentMeta.model_validate_json(meta_json)
    return meta.model_copy(update={"cik": cik}) if cik and cik != meta.cik else meta


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class SqliteRegistry:
    """The document registry (``core.store.registry_api.Registry``) in the SQLite file at
    ``path`` (created on first use). Thread-safe."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
        self._docs: tuple[tuple[int, int], list[DocumentMeta]] | None = None
        try:
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.executescript(SCHEMA)
            self._conn.executescript(facts_table.SCHEMA)
            self._migrate()
            self._conn.commit()
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise StoreError(f"The registry {path} cannot be read ({exc}); it is left as it is. "
                             "`python -m core doctor` says what can be saved.") from None

    def _migrate(self) -> None:
        """Add the columns a registry written by an older release lacks; fill ``cik``."""
        have = {row[1] for row in self._conn.execute("PRAGMA table_info(chunks)")}
        for name, sql_type in _ADDED_COLUMNS.items():
            if name not in have:
                self._conn.execute(f"ALTER TABLE chunks ADD COLUMN {name} {sql_type}")
        have = {row[1] for row in self._conn.execute("PRAGMA table_info(documents)")}
        if "cik" not in have:
            self._conn.execute("ALTER TABLE documents ADD COLUMN cik TEXT NOT NULL DEFAULT ''")
            rows = self._conn.execute("SELECT doc_id, meta FROM documents").fetchall()
            filled = [(cik, doc_id) for doc_id, meta in rows
                      if (cik := stored_cik(DocumentMeta.model_validate_json(meta)))]
            self._conn.executemany("UPDATE documents SET cik = ? WHERE doc_id = ?", filled)
        self._conn.execute("CREATE INDEX IF NOT EXISTS documents_cik ON documents(cik)")
        if "reader" not in {row[1] for row in self._conn.execute("PRAGMA table_info(fact_docs)")}:
            self._conn.execute(facts_table.ADD_READER)

    # --- reads (ready documents only) -------------------------------------
    def status(self, doc_id: str) -> str | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT status FROM documents WHERE doc_id = ?", (doc_id,)
            ).fetchone()
        return row[0] if row else None

    def documents(self) -> list[DocumentMeta]:
        """Ready documents in the order they were added, each under its filer's canonical
        name (``core.store.companies``).

        Parsed once per change of the database: SQLite's ``data_version`` moves when another
        connection commits and ``total_changes`` when this one writes (every search asks)."""
        with self._lock:
            version = (self._conn.execute("PRAGMA data_version").fetchone()[0],
                       self._conn.total_changes)
            if self._docs is not None and self._docs[0] == version:
                return list(self._docs[1])
            rows = self._conn.execute(
                "SELECT meta, cik FROM documents WHERE status = 'ready' ORDER BY seq"
            ).fetchall()
            docs = with_identity([with_cik(meta, cik) for meta, cik in rows])
            self._docs = (version, docs)
        return list(docs)

    def get_document(self, doc_id: str) -> DocumentMeta | None:
        """A ready document as ``documents`` shows it, or None."""
        return next((d for d in self.documents() if d.doc_id == doc_id), None)

    def documents_of(self, cik: str) -> list[DocumentMeta]:
        """Ready documents registered under ``cik`` (any spelling: "1045810" too)."""
        wanted = normal_cik(cik)
        with self._lock:
            ids = {r[0] for r in self._conn.execute(
                "SELECT doc_id FROM documents WHERE cik = ? AND status = 'ready'", (wanted,))}
        return [d for d in self.documents() if d.doc_id in ids]

    def chunks(self, doc_id: str | None = None, section: str | None = None) -> list[Chunk]:
        """Chunks of ready documents, ordered by document then position."""
        sql = f"SELECT {_CHUNK_COLS} {_READY_JOIN}"
        where, args = [], []
        if doc_id is not None:
            where.append("c.doc_id = ?")
            args.append(doc_id)
        if section is not None:
            where.append("c.section = ?")
            args.append(section)
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY d.seq, c.idx"
        with self._lock:
            return [_row_to_chunk(r) for r in self._conn.execute(sql, args).fetchall()]

    def get_chunks(self, ids: Iterable[str]) -> list[Chunk]:
        """Chunks by id, in the order asked; unknown or not-ready ids are skipped."""
        ids = list(ids)
        found: dict[str, Chunk] = {}
        with self._lock:
            for start in range(0, len(ids), 500):
                part = ids[start : start + 500]
                marks = ",".join("?" * len(part))
                sql = f"SELECT {_CHUNK_COLS} {_READY_JOIN} WHERE c.chunk_id IN ({marks})"
                for row in self._conn.execute(sql, part).fetchall():
                    found[row[0]] = _row_to_chunk(row)
        return [found[i] for i in ids if i in found]

    def sections(self) -> dict[str, list[str]]:
        """doc_id -> distinct section titles in reading order, for ready documents."""
        sql = (
            f"SELECT c.doc_id, c.section, MIN(c.idx) AS first {_READY_JOIN} "
            "GROUP BY c.doc_id, c.section ORDER BY d.seq, first"
        )
        out: dict[str, list[str]] = {}
        with self._lock:
            for doc_id, section, _ in self._conn.execute(sql).fetchall():
                out.setdefault(doc_id, []).append(section)
        return out

    def statement_chunk_ids(self, statements: list[str], doc_ids: list[str] | None = None,
                            sections: list[str] | None = None) -> list[str]:
        """Ids of ready chunks tagged with one of ``statements``, in reading order."""
        if not statements or doc_ids == [] or sections == []:
            return []
        where = [f"c.statement IN ({','.join('?' * len(statements))})"]
        args: list = list(statements)
        for column, values in (("c.doc_id", doc_ids), ("c.section", sections)):
            if values is not None:
                where.append(f"{column} IN ({','.join('?' * len(values))})")
                args.extend(values)
        sql = (f"SELECT c.chunk_id {_READY_JOIN} WHERE {' AND '.join(where)} "
               "ORDER BY d.seq, c.idx")
        with self._lock:
            return [r[0] for r in self._conn.execute(sql, args).fetchall()]

    def facts(self, doc_ids: list[str] | None = None, *, metric: str | None = None,
              fiscal_years: list[int] | None = None, concept: str | None = None,
              statement: str | None = None) -> list[Fact]:
        """Facts of ready documents matching every filter given (``facts_table.query``)."""
        sql, args = facts_table.query("?", doc_ids, metric, fiscal_years, concept, statement)
        with self._lock:
            return facts_table.to_facts(self._conn.execute(sql, args).fetchall())

    def facts_status(self) -> dict[str, int]:
        """doc_id -> number of facts, for ready documents whose facts were extracted."""
        with self._lock:
            return dict(self._conn.execute(facts_table.STATUS_SQL).fetchall())

    def facts_counts(self) -> dict[str, int]:
        """doc_id -> facts rows held (``facts_table.gaps`` compares it with the status)."""
        with self._lock:
            return dict(self._conn.execute(facts_table.COUNTS_SQL).fetchall())

    def facts_readers(self) -> dict[str, str]:
        """doc_id -> the reader that extracted its facts ('' before readers were kept)."""
        with self._lock:
            return dict(self._conn.execute(facts_table.READERS_SQL).fetchall())

    # --- writes -----------------------------------------------------------
    def write_pending(self, meta: DocumentMeta, chunks: list[Chunk],
                      facts: list[Fact] | None = None) -> None:
        """Insert a document as ``pending`` with all its chunks (and its facts, when
        extracted), in one transaction."""
        rows = [_chunk_row(c) for c in chunks]
        fact_rows = None if facts is None else facts_table.fact_rows(meta.doc_id, facts)
        with self._lock, self._conn:
            seq = self._conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM documents").fetchone()
            self._conn.execute(
                "INSERT INTO documents (doc_id, meta, status, pid, seq, cik) "
                "VALUES (?, ?, 'pending', ?, ?, ?)",
                (meta.doc_id, stored_json(meta), os.getpid(), seq[0], stored_cik(meta)),
            )
            self._conn.executemany(
                f"INSERT INTO chunks ({', '.join(_FIELDS)}) "
                f"VALUES ({', '.join('?' * len(_FIELDS))})",
                rows,
            )
            if fact_rows is not None:
                self._conn.executemany(facts_table.insert_sql("?"), fact_rows)
                self._conn.execute(facts_table.count_sql("?"),
                                   facts_table.count_args(meta.doc_id, len(fact_rows)))

    def restore_chunks(self, doc_id: str, chunks: list[Chunk]) -> int:
        """Write back the chunks of a document that the registry lost (those it still holds
        are kept as they are); returns the new corpus generation."""
        rows = [_chunk_row(c) for c in chunks if c.doc_id == doc_id]
        with self._lock, self._conn:
            self._conn.executemany(
                f"INSERT OR IGNORE INTO chunks ({', '.join(_FIELDS)}) "
                f"VALUES ({', '.join('?' * len(_FIELDS))})", rows)
            return self._bump()

    def write_facts(self, doc_id: str, facts: list[Fact]) -> None:
        """Replace a document's facts (one transaction). Raises StoreError for an unknown
        document."""
        rows = facts_table.fact_rows(doc_id, facts)
        with self._lock, self._conn:
            if self._conn.execute("SELECT 1 FROM documents WHERE doc_id = ?",
                                  (doc_id,)).fetchone() is None:
                raise StoreError(f"No document {doc_id!r} in the corpus; `python -m core "
                                 "docs` lists the ids.")
            self._conn.execute("DELETE FROM facts WHERE doc_id = ?", (doc_id,))
            self._conn.executemany(facts_table.insert_sql("?"), rows)
            self._conn.execute(facts_table.count_sql("?"),
                               facts_table.count_args(doc_id, len(rows)))

    def update_document(self, doc_id: str, **fields: str) -> DocumentMeta:
        """Correct a ready document's company, form_type, period, ticker or cik (values checked
        and normalised by ``corrections``); the fields are recorded in ``meta.corrected``.
        Raises StoreError for an unknown document or a bad value (nothing is changed)."""
        values = validate(fields)
        with self._lock, self._conn:
            row = self._conn.execute(
                "SELECT meta, cik FROM documents WHERE doc_id = ? AND status = 'ready'", (doc_id,)
            ).fetchone()
            if row is None:
                raise StoreError(
                    f"No document {doc_id!r} in the corpus; `python -m core docs` lists the ids."
                )
            meta = with_cik(row[0], row[1])
            update: dict = dict(values)
            if _ISO_DATE.match(values.get("period", "")):
                update["period_end"] = values["period"]
            update["corrected"] = list(dict.fromkeys([*meta.corrected, *values]))
            meta = meta.model_copy(update=update)
            self._conn.execute(
                "UPDATE documents SET meta = ?, cik = ? WHERE doc_id = ?",
                (stored_json(meta), stored_cik(meta), doc_id)
            )
        return self.get_document(doc_id) or meta  # as reads show it (canonical name)

    def mark_ready(self, doc_id: str) -> int:
        """Flip a document to ``ready``; returns the new corpus generation."""
        with self._lock, self._conn:
            self._conn.execute(
                "UPDATE documents SET status = 'ready', pid = 0 WHERE doc_id = ?", (doc_id,)
            )
            return self._bump()

    def remove(self, doc_id: str) -> int:
        """Delete a document and its chunks (any status); returns the new corpus generation."""
        with self._lock, self._conn:
            self._conn.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))
            return self._bump()

    def abandon(self, doc_id: str) -> None:
        """Leave a pending document for the next open to purge (its writer gave up)."""
        with self._lock, self._conn:
            self._conn.execute(
                "UPDATE documents SET pid = 0 WHERE doc_id = ? AND status = 'pending'", (doc_id,)
            )

    def _bump(self) -> int:
        """Move the generation (inside the caller's transaction) and return it."""
        self._conn.execute(
            "UPDATE corpus_state SET value = value + 1 WHERE key = 'generation'"
        )
        return int(self._conn.execute(
            "SELECT value FROM corpus_state WHERE key = 'generation'"
        ).fetchone()[0])

    def generation(self) -> int:
        """The corpus generation: moves whenever any process adds or removes a document."""
        with self._lock:
            row = self._conn.execute(
                "SELECT value FROM corpus_state WHERE key = 'generation'"
            ).fetchone()
        return int(row[0]) if row else 0

    def stale_pending(self) -> list[str]:
        """Pending documents whose writer process is gone (a crash or kill mid-add)."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT doc_id, pid FROM documents WHERE status = 'pending'"
            ).fetchall()
        return [doc_id for doc_id, pid in rows if pid != os.getpid() and not _pid_alive(pid)]

    def ready_ids(self) -> list[str]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT doc_id FROM documents WHERE status = 'ready' ORDER BY seq"
            ).fetchall()
        return [r[0] for r in rows]

    def close(self) -> None:
        with self._lock:
            self._conn.close()
