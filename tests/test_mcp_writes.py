"""Tools that change the corpus, on a server started with ``--allow-writes``: a local file
or an EDGAR filing (a fake EDGAR on 127.0.0.1) ingested and seen by the next call, a filing
deleted; the CLI's rules still hold (size cap, allowed hosts, the file must exist) and
``--ingest-dir`` keeps local ingests inside the folders named."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from testkit.fakes.edgar_server import FakeEdgarServer
from testkit.filings import edgar_filings
from tests.test_mcp_kit import call, error, make_server, ok

ROOT = Path(__file__).resolve().parent.parent
BOLT = ROOT / "tests" / "fixtures" / "ingest" / "paged_10k.htm"  # Bolt Fasteners' 10-K


@pytest.fixture
def writable(tmp_path):
    srv, service = make_server(tmp_path / "store", allow_writes=True)
    yield srv
    service.close()


def test_a_file_ingested_is_listed_found_and_deleted(writable):
    added = ok(call(writable, "ingest", {"source": str(BOLT), "form": "10-K"}))
    assert added["added"] and added["chunks"] > 0 and added["form"] == "10-K"
    listed = ok(call(writable, "list_filings"))
    assert [f["doc_id"] for f in listed["filings"]] == [added["doc_id"]]
    hits = ok(call(writable, "search", {"query": "fasteners", "k": 2}))["hits"]
    assert hits and {h["chunk_id"].rsplit("-", 1)[0] for h in hits} == {added["doc_id"]}
    again = ok(call(writable, "ingest", {"source": str(BOLT)}))
    assert again["doc_id"] == added["doc_id"] and not again["added"]
    gone = ok(call(writable, "delete", {"doc_id": added["doc_id"]}))
    assert gone["deleted"] and ok(call(writable, "list_filings"))["filings"] == []
    text = error(call(writable, "delete", {"doc_id": added["doc_id"]}))
    assert f"No document '{added['doc_id']}' is loaded" in text


def test_the_clis_rules_hold_for_a_client(tmp_path):
    srv, service = make_server(tmp_path / "store", allow_writes=True, max_file_mb=0.001)
    try:
        assert "over the 0.001 MiB limit (raise DTR_MAX_FILE_MB" in error(
            call(srv, "ingest", {"source": str(BOLT)}))
        assert "Downloading from 'example.com' is not allowed" in error(call(srv, "ingest", {
            "source": "https://example.com/10k.htm"}))
        assert "File not found" in error(call(srv, "ingest", {
            "source": str(tmp_path / "missing.htm")}))
        assert "is a folder" in error(call(srv, "ingest", {"source": str(tmp_path)}))
    finally:
        service.close()


def test_ingest_dir_keeps_local_files_inside_the_folders_named(tmp_path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    shutil.copy(BOLT, inbox / BOLT.name)
    srv, service = make_server(tmp_path / "store", allow_writes=True,
                               ingest_roots=[str(inbox)])
    try:
        text = error(call(srv, "ingest", {"source": str(BOLT)}))
        assert "outside the folders this server ingests from" in text and str(inbox) in text
        escape = inbox / ".." / ".." / BOLT.relative_to(BOLT.anchor)
        assert "outside" in error(call(srv, "ingest", {"source": str(escape)}))
        assert ok(call(srv, "ingest", {"source": str(inbox / BOLT.name)}))["added"]
    finally:
        service.close()


def test_fetch_loads_filings_from_edgar_by_ticker(tmp_path):
    with FakeEdgarServer.from_filings(edgar_filings()) as edgar:
        srv, service = make_server(
            tmp_path / "store", allow_writes=True, edgar_www_url=edgar.url,
            edgar_data_url=edgar.url, allowed_fetch_hosts=["127.0.0.1"],
            allow_private_fetch=True, sec_user_agent="Jane Analyst jane@example.org")
        try:
            out = ok(call(srv, "fetch", {"tickers": ["NWI", "NOPE"], "years": "2023-2024"}))
        finally:
            service.close()
    assert len(out["listed"]) == 2 and len(out["ingested"]) == 2
    assert sorted(f["period"] for f in out["ingested"]) == ["FY2023", "FY2024"]
    assert [f["filing"] for f in out["failed"]] == ["NOPE"]
