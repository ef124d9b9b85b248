"""TavilyWebSearch (real tavily-python client) against a local Tavily-compatible server."""

from __future__ import annotations

import socket

import pytest

from core.foundation.config import Settings
from core.foundation.errors import RetrievalError
from core.retrieval.web import SnapshotWebSearch, TavilyWebSearch, save_to_snapshot
from testkit.fakes.tavily_server import FakeTavilyServer, result

pytestmark = pytest.mark.slow
KEY = "tvly-SECRET-key-0123456789"

RESULTS = [
    result("https://www.example.com/amd-mi325x", "AMD ships MI325X", "AMD began shipping the "
           "MI325X accelerator with 256 GB of HBM3E.", score=0.91,
           published_date="Thu, 10 Oct 2024 17:00:00 GMT"),
    result("https://www.example.com/rocm", "ROCm update", "ROCm adds FP8 kernels.", score=0.55),
    result("https://www.example.com/third", "Third", "Another result.", score=0.2),
]


@pytest.fixture
def server():
    with FakeTavilyServer() as srv:
        yield srv


def make(server, tmp_path, **kw) -> TavilyWebSearch:
    values = dict(data_dir=tmp_path, tavily_api_key=KEY, tavily_base_url=server.url,
                  tavily_timeout_s=5.0)
    values.update(kw)
    return TavilyWebSearch(Settings(_env_file=None, **values))


def test_results_become_web_hits_and_request_is_sent_as_asked(server, tmp_path):
    server.add_results(RESULTS)
    hits = make(server, tmp_path).search("AMD AI chip strategy", k=2, after="2024-06-01")
    assert [h.url for h in hits] == ["https://www.example.com/amd-mi325x",
                                     "https://www.example.com/rocm"]
    first = hits[0]
    assert first.source == "tavily" and first.score == 0.91 and first.date == "2024-10-10"
    assert first.title == "AMD ships MI325X" and "256 GB" in first.text
    assert hits[1].date is None
    body = server.search_requests[0]
    assert body["query"] == "AMD AI chip strategy" and body["max_results"] == 2
    assert body["start_date"] == "2024-06-01" and body["topic"] == "general"
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_no_start_date_without_after_and_empty_query_sends_nothing(server, tmp_path):
    search = make(server, tmp_path)
    assert search.search("   ") == [] and server.requests == []
    server.add_results([])
    assert search.search("anything") == []
    assert "start_date" not in server.search_requests[0]


@pytest.mark.parametrize(
    ("status", "hint"),
    [(401, "API key was rejected"), (429, "rate limit"), (432, "forbidden"),
     (500, "returned an error status")],
)
def test_http_errors_become_retrieval_errors_without_the_key(server, tmp_path, status, hint):
    server.error(status, f"bad things with {KEY}")
    with pytest.raises(RetrievalError) as info:
        make(server, tmp_path).search("AMD")
    message = str(info.value)
    assert message.startswith(f"Tavily web search failed at {server.url}")
    assert hint in message and KEY not in message


def test_timeout(server, tmp_path):
    server.slow(30)
    with pytest.raises(RetrievalError, match=r"no reply within 0.5 s"):
        make(server, tmp_path, tavily_timeout_s=0.5).search("AMD")


def test_connection_refused(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    search = TavilyWebSearch(Settings(_env_file=None, data_dir=tmp_path, tavily_api_key=KEY,
                                      tavily_base_url=f"http://127.0.0.1:{port}"))
    with pytest.raises(RetrievalError, match="could not connect"):
        search.search("AMD")


def test_fetched_hits_replay_offline_from_the_snapshot(server, tmp_path):
    server.add_results(RESULTS)
    hits = make(server, tmp_path).search("AMD MI325X", k=3)
    folder = tmp_path / "snapshot"
    assert len(save_to_snapshot(hits, folder)) == 3
    offline = SnapshotWebSearch(folder).search("MI325X HBM3E", k=1)
    assert offline[0].url == hits[0].url and offline[0].date == "2024-10-10"
    assert offline[0].source == "snapshot"
