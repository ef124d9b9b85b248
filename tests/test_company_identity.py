"""Company identity: CIK read at ingest, documents grouped by filer, old registries migrated."""

from __future__ import annotations

import json
import sqlite3

import pytest

from core.foundation.errors import StoreError
from core.foundation.types import DocumentMeta
from core.ingest.meta import cik_from, edgar_header, read_facts
from core.store.companies import companies, with_identity
from core.store.documents import SqliteRegistry

HEADER = b"""<SEC-DOCUMENT>0001045810-23-000017.txt : 20230224
<SEC-HEADER>0001045810-23-000017.hdr.sgml : 20230224
CONFORMED SUBMISSION TYPE:\t10-K
CONFORMED PERIOD OF REPORT:\t20230129
FILER:
\tCOMPANY DATA:
\t\tCOMPANY CONFORMED NAME:\t\t\tNVIDIA CORP
\t\tCENTRAL INDEX KEY:\t\t\t0001045810
</SEC-HEADER>
"""


def test_cik_comes_from_dei_then_the_edgar_header_then_the_cover():
    assert cik_from({"dei:EntityCentralIndexKey": "0001045810"}, "") == "0001045810"
    assert cik_from({}, "", edgar_header(HEADER)) == "0001045810"
    cover = "FORM 10-K\nAcme Widgets, Inc.\nCentral Index Key: 320193\nDelaware"
    assert cik_from({}, cover) == "0000320193"
    assert cik_from({}, "FORM 10-K\nCommission file number 0-23985") == ""
    facts = read_facts({"dei:EntityCentralIndexKey": "2488", "dei:TradingSymbol": "AMD",
                        "dei:EntityRegistrantName": "ADVANCED MICRO DEVICES, INC."}, "")
    assert (facts.cik, facts.ticker) == ("0000002488", "AMD")


def meta(doc_id: str, company: str, cik: str = "", period_end: str = "", **kw) -> DocumentMeta:
    return DocumentMeta(doc_id=doc_id, file_name=f"{doc_id}.htm", company=company, cik=cik,
                        period_end=period_end, **kw)


def test_one_filer_is_listed_once_under_one_name():
    docs = [meta("k", "NVIDIA CORP", "0001045810", "2023-01-29", ticker="NVDA"),
            meta("q", "NVIDIA CORPORATION", "", "2023-04-30"),
            meta("amd", "ADVANCED MICRO DEVICES, INC.", "0000002488", "2025-12-27")]
    found = companies(docs)
    assert [(c.key, c.doc_ids) for c in found] == [("cik:0001045810", ["k", "q"]),
                                                  ("cik:0000002488", ["amd"])]
    assert found[0].names == ["NVIDIA CORPORATION", "NVIDIA CORP"]  # the latest filing's
    shown = with_identity(docs)
    assert {d.company for d in shown[:2]} == {"NVIDIA CORPORATION"}
    assert shown[0].printed_name == "NVIDIA CORP" and shown[1].printed_name == ""


def test_two_filers_with_one_name_are_not_merged_and_a_correction_names_the_group():
    docs = [meta("a", "Acme Holdings", "0000000001"), meta("b", "ACME HOLDINGS INC", "0000000002"),
            meta("c", "Acme Holdings Inc.")]  # ambiguous: two CIKs print that name
    assert len(companies(docs)) == 3
    docs = [meta("x", "Old Name Corp", "0000000009", "2020-12-31"),
            meta("y", "New Name Corp", "0000000009", "2022-12-31",
                 former_names=["Old Name Corp"])]  # a rename states the former name
    assert {d.company for d in with_identity(docs)} == {"New Name Corp"}
    unstated = [docs[0], docs[1].model_copy(update={"former_names": []})]
    shown = with_identity(unstated)  # issue 32: one filing never renames the others
    assert {d.company for d in shown} == {"Old Name Corp"} and shown[1].name_conflict
    fixed = docs[0].model_copy(update={"company": "Proper Name Corp", "corrected": ["company"]})
    assert {d.company for d in with_identity([fixed, docs[1]])} == {"Proper Name Corp"}


OLD_SCHEMA = """
CREATE TABLE documents (doc_id TEXT PRIMARY KEY, meta TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'ready')),
    pid INTEGER NOT NULL DEFAULT 0, seq INTEGER NOT NULL);
CREATE TABLE chunks (chunk_id TEXT PRIMARY KEY, doc_id TEXT NOT NULL, idx INTEGER NOT NULL,
    section TEXT NOT NULL, page INTEGER, start INTEGER NOT NULL, end INTEGER NOT NULL,
    kind TEXT NOT NULL, text TEXT NOT NULL);
CREATE TABLE corpus_state (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT INTO corpus_state VALUES ('generation', 2);
"""
# Metadata as the release before CIKs wrote it (no "cik", no "printed_name").
OLD_ROWS = [
    ("k1", '{"doc_id": "k1", "file_name": "nvda-20230129.htm", "company": "NVIDIA CORP", '
           '"form_type": "10-K", "period": "FY2023", "period_end": "2023-01-29", '
           '"source": "https://www.sec.gov/Archives/edgar/data/1045810/000104581023000017/'
           'nvda-20230129.htm"}'),
    ("q1", '{"doc_id": "q1", "file_name": "nvda-10q.pdf", "company": "NVIDIA CORPORATION", '
           '"form_type": "10-Q", "period": "2024-Q1", "period_end": "2023-04-30"}'),
]


def test_an_old_sqlite_registry_opens_readable_and_gets_a_cik_column(tmp_path):
    path = tmp_path / "registry.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(OLD_SCHEMA)
    conn.executemany("INSERT INTO documents VALUES (?, ?, 'ready', 0, ?)",
                     [(d, m, i) for i, (d, m) in enumerate(OLD_ROWS)])
    conn.commit()
    conn.close()

    reg = SqliteRegistry(path)
    docs = reg.documents()
    assert [d.doc_id for d in docs] == ["k1", "q1"]
    assert docs[0].cik == "0001045810"  # filled from the EDGAR source URL
    assert docs[1].cik == ""
    assert {d.company for d in docs} == {"NVIDIA CORPORATION"}  # one filer, one name
    assert [d.doc_id for d in reg.documents_of("1045810")] == ["k1"]
    fixed = reg.update_document("q1", cik="1045810")
    assert fixed.cik == "0001045810" and "cik" in fixed.corrected
    with pytest.raises(StoreError, match="CIK must be"):
        reg.update_document("q1", cik="NVDA")
    reg.close()

    again = SqliteRegistry(path)  # opening twice migrates once
    assert [d.doc_id for d in again.documents_of("0001045810")] == ["k1", "q1"]
    stored = dict(sqlite3.connect(path).execute("SELECT doc_id, meta FROM documents"))
    assert json.loads(stored["k1"])["company"] == "NVIDIA CORP"  # stored as printed
    assert json.loads(stored["q1"])["printed_name"] == ""  # a read's canonical name not saved
    again.close()


@pytest.mark.slow
def test_an_old_postgres_registry_opens_readable_and_gets_a_cik_column():
    from tests.pg_server import PgServer

    server = PgServer()
    server.start()
    try:
        import psycopg

        url = server.new_database()
        with psycopg.connect(url, autocommit=True) as conn:
            for statement in filter(str.strip, OLD_SCHEMA.replace(" end ", ' "end" ')
                                    .split(";")):
                conn.execute(statement)
            for i, (doc_id, m) in enumerate(OLD_ROWS):
                conn.execute("INSERT INTO documents VALUES (%s, %s, 'ready', 0, %s)",
                             (doc_id, m, i))
        from core.store.documents_pg import PgRegistry

        reg = PgRegistry(url)
        docs = reg.documents()
        assert [(d.doc_id, d.cik) for d in docs] == [("k1", "0001045810"), ("q1", "")]
        assert {d.company for d in docs} == {"NVIDIA CORPORATION"}
        reg.update_document("q1", cik="0001045810")
        assert [d.doc_id for d in PgRegistry(url).documents_of("1045810")] == ["k1", "q1"]
    finally:
        from core.store.pg import close_pools

        close_pools()
        server.destroy()


def test_cli_lists_each_company_once(settings, monkeypatch, capsys):
    from core.cli.main import main

    reg = SqliteRegistry(settings.registry_path)
    for d in [meta("k", "NVIDIA CORP", "0001045810", "2023-01-29", ticker="NVDA"),
              meta("q", "NVIDIA CORPORATION", "", "2023-04-30")]:
        reg.write_pending(d, [])
        reg.mark_ready(d.doc_id)
    reg.close()
    monkeypatch.setenv("DTR_DATA_DIR", str(settings.data_dir))
    assert main(["docs", "--companies"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out == ["NVIDIA CORPORATION  CIK 0001045810  NVDA  2 filing(s)  "
                   "(also printed as: NVIDIA CORP)"]
