"""What the MCP server's tests share: a corpus of the real NVIDIA and AMD 10-Ks (the shared
filings as tests/fixtures/figures keeps them, ingested once a session with the hash
embedder), a server over it driven by the SDK's own client in process, and calls that
return the structured result or the error text a model would read."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import anyio
import pytest
from mcp.client import Client

from core.foundation.config import Settings
from core.mcp.server import build_server
from core.mcp.service import McpService

FILINGS = ("nvda-10k-fy2023.html", "amd-10k-fy2025.htm")
NVDA, AMD = "NVIDIA CORP", "ADVANCED MICRO DEVICES, INC."
DASHBOARD = "http://127.0.0.1:8501"


def mcp_settings(data_dir: Path, **overrides) -> Settings:
    return Settings(data_dir=data_dir, cache_enabled=False, web_provider="none",
                    _env_file=None, **overrides)


def hash_corpus(settings: Settings):
    """The corpus with the hash embedder the fixture corpora were indexed with."""
    from core.app.corpus import Corpus
    from testkit.fakes.embedder import HashEmbedder

    return Corpus(settings, embedder=HashEmbedder())


def make_server(data_dir: Path, *, allow_writes: bool = False, ingest_roots=None,
                **overrides):
    """``(server, service)`` over ``data_dir`` (the hash-embedded corpus)."""
    service = McpService(mcp_settings(data_dir, **overrides), allow_writes=allow_writes,
                         corpus_factory=hash_corpus, ingest_roots=ingest_roots)
    return build_server(service), service


def session(server, work):
    """Run ``await work(client)`` with the SDK's client connected to ``server`` in
    process; returns what it returns."""

    async def go():
        async with Client(server) as client:
            return await work(client)

    return anyio.run(go)


def call(server, tool: str, args: dict | None = None):
    """One tool call (its ``CallToolResult``)."""
    return session(server, lambda c: c.call_tool(tool, args or {}))


def ok(result) -> dict:
    """The structured result of a call that must succeed."""
    assert not result.is_error, result.content[0].text
    assert result.structured_content is not None
    return result.structured_content


def error(result) -> str:
    """The error text of a call that must fail: one message, never a traceback."""
    assert result.is_error, result.structured_content
    text = result.content[0].text
    assert "Traceback" not in text and 'File "' not in text, text
    return text


def read(server, uri: str) -> str:
    """A resource's text."""
    found = session(server, lambda c: c.read_resource(uri))
    return found.contents[0].text


def two_filings_store(tmp_path_factory, ingested_store) -> Path:
    """A data folder holding the two 10-Ks (a module's own copy: a module-scoped fixture
    returns it)."""
    return ingested_store(tmp_path_factory.mktemp("mcp") / "store", *FILINGS)


@contextmanager
def serving(data_dir: Path, **kwargs):
    """A server over ``data_dir`` for the ``with`` block (``make_server``'s arguments)."""
    srv, service = make_server(data_dir, **kwargs)
    try:
        yield srv
    finally:
        service.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory, ingested_store):
    with serving(two_filings_store(tmp_path_factory, ingested_store)) as srv:
        yield srv


def test_a_call_returns_the_structured_result_or_the_error_a_model_reads(server):
    filings = ok(call(server, "list_filings"))
    assert {c["name"] for c in filings["companies"]} == {NVDA, AMD}
    assert "No company 'Intel'" in error(call(server, "figure", {"company": "Intel",
                                                                 "metric": "revenue"}))
