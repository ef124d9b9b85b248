"""The facts of each document beside the registry: schema, rows and queries shared by the
SQLite registry and the PostgreSQL one (``mark`` is their parameter mark, "?" or "%s").

``facts`` holds one row per fact: the columns a query filters on, and the whole record as
JSON. ``fact_docs`` says which documents had their facts extracted, how many, and by which
reader (``core.ingest.facts.reader_version``; '' for a registry older than that column): a
document absent from it was ingested before facts existed. Both reference ``documents``
with ``ON DELETE CASCADE``: a document's facts go with it.
"""

from __future__ import annotations

import logging
import threading

from core.foundation.types import Chunk, Fact

log = logging.getLogger(__name__)
_SKIPPED: dict[str, set[str]] = {}
_SKIPPED_LOCK = threading.Lock()

SCHEMA = """
CREATE TABLE IF NOT EXISTS facts (
    fact_id TEXT PRIMARY KEY,
    doc_id TEXT NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
    metric TEXT,
    concept TEXT,
    statement TEXT,
    fiscal_year INTEGER,
    source TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS facts_doc ON facts(doc_id, fact_id);
CREATE INDEX IF NOT EXISTS facts_metric ON facts(metric, fiscal_year);
CREATE TABLE IF NOT EXISTS fact_docs (
    doc_id TEXT PRIMARY KEY REFERENCES documents(doc_id) ON DELETE CASCADE,
    n INTEGER NOT NULL,
    reader TEXT NOT NULL DEFAULT ''
);
"""

COLUMNS = ("fact_id", "doc_id", "metric", "concept", "statement", "fiscal_year", "source",
           "data")


def fact_rows(doc_id: str, facts: list[Fact]) -> list[tuple]:
    """Rows for ``facts``; every fact must belong to ``doc_id``."""
    bad = [f.fact_id for f in facts if f.doc_id != doc_id]
    if bad:
        from core.foundation.errors import StoreError

        raise StoreError(f"{len(bad)} fact(s) (e.g. {bad[0]}) do not belong to document "
                         f"{doc_id}.")
    forget_skipped(doc_id)  # written again: its damaged rows go
    return [(f.fact_id, f.doc_id, f.metric, f.concept, f.statement, f.fiscal_year, f.source,
             f.model_dump_json()) for f in facts]


def insert_sql(mark: str) -> str:
    return f"INSERT INTO facts ({', '.join(COLUMNS)}) VALUES ({', '.join([mark] * 8)})"


def count_sql(mark: str) -> str:
    """The row saying a document's facts were extracted: args ``count_args(doc_id, n)``."""
    return (f"INSERT INTO fact_docs (doc_id, n, reader) VALUES ({mark}, {mark}, {mark}) "
            "ON CONFLICT (doc_id) DO UPDATE SET n = excluded.n, reader = excluded.reader")


def count_args(doc_id: str, n: int) -> tuple[str, int, str]:
    from core.ingest.facts import reader_version

    return doc_id, n, reader_version()


ADD_READER = "ALTER TABLE fact_docs ADD COLUMN reader TEXT NOT NULL DEFAULT ''"
READERS_SQL = ("SELECT c.doc_id, c.reader FROM fact_docs c JOIN documents d "
               "ON d.doc_id = c.doc_id AND d.status = 'ready' ORDER BY d.seq")


def query(mark: str, doc_ids: list[str] | None, metric: str | None,
          fiscal_years: list[int] | None, concept: str | None,
          statement: str | None) -> tuple[str, list]:
    """SELECT of the facts of ready documents matching every filter given, in document
    order then extraction order."""
    where, args = [], []
    for column, values in (("f.doc_id", doc_ids), ("f.fiscal_year", fiscal_years)):
        if values is not None:
            where.append(f"{column} IN ({', '.join([mark] * len(values))})" if values
                         else "1 = 0")
            args.extend(values)
    for column, value in (("f.metric", metric), ("f.concept", concept),
                          ("f.statement", statement)):
        if value is not None:
            where.append(f"{column} = {mark}")
            args.append(value)
    sql = ("SELECT f.data, f.doc_id, f.fact_id FROM facts f JOIN documents d "
           "ON d.doc_id = f.doc_id AND d.status = 'ready'")
    if where:
        sql += " WHERE " + " AND ".join(where)
    return sql + " ORDER BY d.seq, f.fact_id", args


COUNTS_SQL = "SELECT doc_id, COUNT(*) FROM facts GROUP BY doc_id"

STATUS_SQL = ("SELECT c.doc_id, c.n FROM fact_docs c JOIN documents d ON d.doc_id = c.doc_id "
              "AND d.status = 'ready' ORDER BY d.seq")


def to_facts(rows: list[tuple]) -> list[Fact]:
    """The facts of ``(data, doc_id, fact_id)`` rows; a row whose record cannot be read (a
    damaged ``data``) is skipped with a warning naming it and remembered (``skipped``):
    ``python -m core doctor --repair`` reads that filing's facts again."""
    out: list[Fact] = []
    bad: dict[str, set[str]] = {}
    for row in rows:
        try:
            out.append(Fact.model_validate_json(row[0]))
        except ValueError as exc:  # pydantic's ValidationError: not JSON, or not a Fact
            doc_id, fact_id = (row[1], row[2]) if len(row) > 2 else ("?", "?")
            bad.setdefault(doc_id, set()).add(fact_id)
            log.warning("facts row %s of %s cannot be read (%s): skipped; `python -m core "
                        "doctor --repair` reads the filing's facts again", fact_id, doc_id,
                        str(exc).splitlines()[0])
    if bad:
        with _SKIPPED_LOCK:
            for doc_id, ids in bad.items():
                _SKIPPED.setdefault(doc_id, set()).update(ids)
    return out


def skipped(doc_ids: list[str] | None = None) -> dict[str, int]:
    """doc_id -> how many of its facts rows could not be read so far in this process."""
    with _SKIPPED_LOCK:
        return {d: len(ids) for d, ids in _SKIPPED.items() if doc_ids is None or d in doc_ids}


def forget_skipped(doc_id: str) -> None:
    """The filing's facts were written again: its damaged rows are gone."""
    with _SKIPPED_LOCK:
        _SKIPPED.pop(doc_id, None)


def with_statements(facts: list[Fact], chunks: list[Chunk]) -> list[Fact]:
    """``facts`` with the statement tag of their chunk where their own table named none
    (their metric read again: the statement may decide it), the filer's own statements
    only (``core.ingest.facts.primary_statements``)."""
    from core.ingest.facts import primary_statements
    from core.ingest.facts.metric import metric_of

    tags = {c.chunk_id: c.statement for c in chunks if c.statement}
    out = []
    for f in facts:
        if f.statement is None and f.chunk_id in tags:
            f = f.model_copy(update={"statement": tags[f.chunk_id]})
            f.metric = metric_of(f)
        out.append(f)
    return primary_statements(out, chunks)


def gaps(registry, doc_ids: list[str] | None = None) -> dict[str, tuple[int, int]]:
    """doc_id -> (facts held, facts extracted) for each filing that holds fewer facts than
    were extracted (the ``facts`` table dropped or cut) or has rows that cannot be read."""
    status, held = registry.facts_status(), registry.facts_counts()
    damaged = skipped(doc_ids)
    out = {}
    for doc_id, n in status.items():
        if doc_ids is not None and doc_id not in doc_ids:
            continue
        have = held.get(doc_id, 0) - damaged.get(doc_id, 0)
        if have < n:
            out[doc_id] = (have, n)
    return out


def gaps_line(found: dict[str, tuple[int, int]]) -> str:
    """One warning for ``gaps``: what is missing and the command that mends it."""
    if not found:
        return ""
    some = ", ".join(f"{d} holds {h} of its {n}" for d, (h, n) in list(found.items())[:3])
    more = f" and {len(found) - 3} more" if len(found) > 3 else ""
    return (f"Facts missing or damaged in {len(found)} filing(s) ({some}{more}): figure "
            "answers cannot use them; `python -m core doctor --repair` reads them again from "
            "the kept originals.")
