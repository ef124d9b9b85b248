"""The MCP server in team mode: registry and runs in a real PostgreSQL, vectors on a real
`chroma run` (both on 127.0.0.1, the team-mode tests' own servers). A filing a client
ingests is listed, searched and answered from; a run made through ``ask`` is listed by
``python -m core runs`` in another process with its own, empty data folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pg_server import PgServer
from tests.test_chroma_outage import ChromaServer
from tests.test_mcp_kit import call, ok, serving

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample" / "northwind-10k-fy2024.htm"  # Northwind Semiconductor
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pg():
    server = PgServer()
    server.start()
    yield server
    from core.store.pg import close_pools

    close_pools()
    server.destroy()


@pytest.fixture(scope="module")
def chroma(tmp_path_factory):
    folder = tmp_path_factory.mktemp("chroma-mcp")
    server = ChromaServer(folder / "data", folder / "chroma.log")
    server.start()
    yield server
    server.kill()


def test_a_team_corpus_is_served_and_its_runs_are_everyones(pg, chroma, tmp_path):
    team = {"database_url": pg.new_database(), "chroma_url": chroma.url}
    with serving(tmp_path / "here", allow_writes=True, **team) as srv:
        added = ok(call(srv, "ingest", {"source": str(SAMPLE)}))
        assert added["added"] and added["company"].startswith("Northwind")
        assert [f["doc_id"] for f in ok(call(srv, "list_filings"))["filings"]] == [
            added["doc_id"]]
        revenue = ok(call(srv, "figure", {"company": "Northwind", "metric": "revenue"}))
        assert revenue["found"] and revenue["citations"]
        hits = ok(call(srv, "search", {"query": "export controls", "k": 3}))["hits"]
        assert hits and all(h["company"] == added["company"] for h in hits)
        run = ok(call(srv, "ask", {"question": "What was Northwind's revenue in fiscal "
                                                "2024?"}))
        assert run["status"] == "done" and run["figures"][0]["value"] == revenue["value"]
    assert not (tmp_path / "here" / "runs").exists()  # the run went to PostgreSQL
    env = {k: v for k, v in os.environ.items() if not k.startswith("DTR_")}
    listed = subprocess.run(
        [sys.executable, "-m", "core", "runs"], cwd=ROOT, text=True, capture_output=True,
        timeout=600, env={**env, "DTR_DATA_DIR": str(tmp_path / "elsewhere"),
                          "DTR_DATABASE_URL": team["database_url"],
                          "DTR_CHROMA_URL": team["chroma_url"], "HF_HUB_OFFLINE": "1"})
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert run["run_id"] in listed.stdout
