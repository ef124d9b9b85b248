"""The facts of each document beside the registry: schema, rows and queries shared by the
SQLite registry and the PostgreSQL one (``mark`` is their parameter mark, "?" or "%s").

``facts`` holds one row per fact: the columns a query filters on, and the whole record as
JSON. ``fact_docs`` says which documents had their facts extracted, how many, and by which
reader (``core.ingest.facts.reader_version``; '' for a registry older than that column): a
document absent from it was ingested before facts existed. Both reference ``documents``
with ``ON DELETE CASCADE``: a document's facts go with it.
"""

from __future__ import annotations

from core.foundation.types import Chunk, Fact

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
    sql = ("SELECT f.data FROM facts f JOIN documents d ON d.doc_id = f.doc_id "
           "AND d.status = 'ready'")
    if where:
        sql += " WHERE " + " AND ".join(where)
    return sql + " ORDER BY d.seq, f.fact_id", args


STATUS_SQL = ("SELECT c.doc_id, c.n FROM fact_docs c JOIN documents d ON d.doc_id = c.doc_id "
              "AND d.status = 'ready' ORDER BY d.seq")


def to_facts(rows: list[tuple]) -> list[Fact]:
    return [Fact.model_validate_json(r[0]) for r in rows]


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
