"""``python -m core mcp`` as a client starts it: over stdio (a subprocess on a copy of the
test corpus) and over streamable HTTP on 127.0.0.1 (a free port, a bearer token), driven by
the SDK's own client. The tests wait on the server's state (its ready line), never on time;
a refused bind (not loopback, no token) costs nothing."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import anyio
import httpx
import httpx2
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from core.mcp.http import READY
from tests.test_mcp_kit import FILINGS, NVDA
from tests.waiting import CEILING_S

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "test-token-3f9a1c0b7d2e4a6f"


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DTR_")}
    return {**env, "DTR_DATA_DIR": str(data_dir), "DTR_CACHE_ENABLED": "false",
            "HF_HUB_OFFLINE": "1", "LANGSMITH_TRACING": "false", **extra}


@pytest.fixture
def corpus_copy(tmp_path, ingested_store) -> Path:
    return ingested_store(tmp_path / "store", *FILINGS)


async def _figure_and_refusal(client) -> tuple[dict, str, set[str]]:
    tools = {t.name for t in (await client.list_tools()).tools}
    figure = await client.call_tool("figure", {"company": "NVDA", "metric": "revenue"})
    refused = await client.call_tool("delete", {"doc_id": "x"})
    return figure.structured_content, refused.content[0].text, tools


@pytest.mark.slow
def test_stdio_serves_the_corpus_from_a_subprocess(corpus_copy, tmp_path):
    params = StdioServerParameters(command=sys.executable, args=["-m", "core", "mcp"],
                                   env=_env(corpus_copy), cwd=str(ROOT))
    log = tmp_path / "server.log"

    async def go():
        with log.open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                first = await _figure_and_refusal(client)
                reading = await client.call_tool("read_question", {
                    "question": "Which had the higher gross margin, NVIDIA or AMD?"})
                chunk = await client.read_resource(first[0]["citations"][0]["resource"])
                return first, reading.structured_content, chunk.contents[0].text

    (figure, refused, tools), reading, chunk = anyio.run(go)
    assert "figure" in tools and "ask" in tools, log.read_text()
    assert (figure["company"], figure["value"], figure["period"]) == (NVDA, 26974.0, "FY2023")
    assert "read-only" in refused and "--allow-writes" in refused
    assert reading["call"]["tool"] == "compare"
    assert "26,974" in chunk
    assert "MCP server on stdio (read-only" in log.read_text()


def _start_http(data_dir: Path, *args: str, token: str | None = TOKEN):
    """The server process and its endpoint, once it says it is ready (its stderr read on a
    thread; a process that dies first fails with what it printed)."""
    extra = {"DTR_MCP_TOKEN": token} if token else {}
    proc = subprocess.Popen([sys.executable, "-m", "core", "mcp", "--http", "--port", "0",
                             *args], cwd=ROOT, env=_env(data_dir, **extra),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        for line in proc.stderr:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    said = []
    while True:
        line = lines.get(timeout=CEILING_S)
        if line is None:
            proc.wait()
            pytest.fail(f"the server exited ({proc.returncode}) before it was ready:\n"
                        + "".join(said))
        said.append(line)
        head = READY.split("{", 1)[0]
        if line.startswith(head):
            return proc, line[len(head):].strip()


@pytest.mark.slow
def test_streamable_http_on_loopback_with_a_bearer_token(corpus_copy):
    proc, url = _start_http(corpus_copy)
    try:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
            refused = httpx.post(url, json=body, headers=headers, timeout=CEILING_S)
            assert refused.status_code == 401
            assert refused.headers["www-authenticate"].startswith("Bearer")

        async def go():
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"},
                                          timeout=httpx2.Timeout(CEILING_S)) as http:
                async with Client(streamable_http_client(url, http_client=http)) as client:
                    listed = await client.call_tool("list_filings", {})
                    return await _figure_and_refusal(client), listed.structured_content

        (figure, refused, tools), listed = anyio.run(go)
        assert len(tools) == 13 and figure["display"] == "$26,974 million"
        assert "read-only" in refused
        assert {c["name"] for c in listed["companies"]} == {NVDA,
                                                            "ADVANCED MICRO DEVICES, INC."}
    finally:
        proc.terminate()
        proc.wait(timeout=CEILING_S)
    assert proc.returncode == 0


def test_a_bind_beyond_loopback_needs_a_token_and_is_refused_before_anything_opens(tmp_path):
    out = subprocess.run([sys.executable, "-m", "core", "mcp", "--http", "--host", "0.0.0.0",
                          "--port", "0"], cwd=ROOT, env=_env(tmp_path / "store"),
                         capture_output=True, text=True, timeout=CEILING_S)
    assert out.returncode == 1
    assert "needs a bearer token: set DTR_MCP_TOKEN" in out.stderr
    assert "Traceback" not in out.stderr and not (tmp_path / "store" / "chroma").exists()


@pytest.mark.parametrize(("args", "said"), [
    (["--port", "9"], "--host and --port are for --http"),
    (["--http", "--port", "70000"], "--port must be 0-65535"),
    (["--ingest-dir", "."], "--ingest-dir limits what --allow-writes lets clients ingest"),
    (["--allow-writes", "--ingest-dir", "/no/such/folder"], "no such folder"),
])
def test_flags_that_do_not_go_together_are_one_line(args, said, capsys, monkeypatch,
                                                    tmp_path):
    from core.cli.main import main

    monkeypatch.setenv("DTR_DATA_DIR", str(tmp_path / "store"))
    assert main(["mcp", *args]) == 1
    assert said in capsys.readouterr().err
