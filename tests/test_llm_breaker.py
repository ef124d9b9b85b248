"""Faults 7, 10 and 12 of issue 10 through the real ChatOpenAI and the fake OpenAI server,
on a two-company corpus (NVIDIA and AMD 10-Ks): a broken endpoint is given up after the
same failure twice, every request carries its role's output bound, and a hanging endpoint
cannot make a run overrun its wall limit."""

from __future__ import annotations

import pytest

from core.llm.breaker import GuardBook, LLMGuard
from core.store.corpus_store import CorpusStore
from testkit.corpus import amd_10k, nvda_10k
from testkit.fakes.fixtures import llm_settings
from testkit.fakes.openai_server import Behaviour, FakeOpenAIServer
from testkit.scenarios import QUESTION, service, two_step_plan

pytestmark = pytest.mark.slow


@pytest.fixture
def store(tmp_path, hash_embedder):
    from core.foundation.config import Settings

    settings = Settings(data_dir=tmp_path / "store", _env_file=None)
    s = CorpusStore(settings, hash_embedder)
    for meta, chunks in (nvda_10k(), amd_10k()):
        s.add(meta, chunks)
    yield s
    s.close()


def run(server, tmp_path, store, hash_embedder, **kw):
    settings = llm_settings(server, tmp_path, **kw)
    svc = service(settings, store, hash_embedder)
    return svc.ask(QUESTION), settings


BROKEN = {
    "http_500": Behaviour.error(500, "model crashed"),
    "http_429": Behaviour.error(429, "slow down"),
    "html_page": Behaviour.html(),
    "no_answer": Behaviour.hang(),
}


@pytest.mark.parametrize("mode", list(BROKEN))
def test_a_broken_endpoint_is_given_up_after_the_same_failure_twice(mode, tmp_path, store,
                                                                     hash_embedder):
    """Fault 7: plan from the LLM, then every request fails the same way."""
    with FakeOpenAIServer(default=BROKEN[mode]) as server:
        server.enqueue(Behaviour.json(two_step_plan(store)))
        record, settings = run(server, tmp_path, store, hash_embedder, llm_timeout_s=1.0)
        sent = len(server.chat_requests)
    assert record.status == "done" and len(record.plan) == 2
    # 1 plan + at most 3 failing requests (json_schema may first switch to json_mode on 5xx),
    # where every role used to try 3 times (18 requests for a two-step run): the time a
    # broken endpoint costs is counted in requests (each ends by its 1 s timeout at most),
    # not in seconds of a machine that may be busy.
    assert sent <= 4, sent
    notices = [e for e in record.events if e.type == "warning"
               and "not called again in this run" in e.message]
    assert len(notices) == 1, [e.message for e in record.events if e.type == "warning"]
    usage = record.total_usage
    assert usage.skipped >= 3 and usage.calls == sent
    assert record.answer is not None and record.answer.citations  # the offline engine answered


def test_every_request_carries_its_roles_output_bound(tmp_path, store, hash_embedder):
    """Fault 10: max_tokens per role on every request (and max_tokens for local servers)."""
    with FakeOpenAIServer(default=Behaviour.error(500)) as server:
        server.enqueue(Behaviour.json(two_step_plan(store)))
        _, settings = run(server, tmp_path, store, hash_embedder, llm_max_tokens_planner=777,
                             llm_max_tokens_rewriter=55)
        bodies = server.chat_requests
    assert bodies[0]["max_completion_tokens"] == 777 and bodies[0]["max_tokens"] == 777
    assert all(b["max_completion_tokens"] == 55 for b in bodies[1:])
    assert all("max_completion_tokens" in b for b in bodies)


def test_a_hanging_endpoint_cannot_overrun_the_wall_limit(tmp_path, store, hash_embedder):
    """Fault 12: with a long per-call timeout the calls are cut to the time the run has left."""
    with FakeOpenAIServer(default=Behaviour.hang()) as server:
        server.enqueue(Behaviour.json(two_step_plan(store)))
        record, _ = run(server, tmp_path, store, hash_embedder, llm_timeout_s=60.0,
                        max_wall_s=3.0, llm_breaker_threshold=5)
        sent = len(server.chat_requests)
    assert record.status == "done"
    assert record.answer is not None and record.answer.text
    warnings = [e.message for e in record.events if e.type == "warning"]
    # Every request the endpoint left hanging waited only the time left of the run's 3 s,
    # never its 60 s timeout; once none was left no request was sent (the offline engine
    # answered): the endpoint cannot make the run overrun its limit, however busy the
    # machine (whose own work after the limit is not the endpoint's doing).
    cut = [w for w in warnings if "the time left of the run's 3 s limit" in w]
    assert cut and not any("within 60 s" in w for w in warnings), warnings
    assert any("no run time left for another LLM call" in w for w in warnings), warnings
    assert sent - 1 <= len(cut), (sent, warnings)  # each hanging request was one of them
    assert record.wall_s < 60.0, record.wall_s  # not a single request ran its 60 s


def test_guards_are_per_run_and_bounded():
    book = GuardBook(size=2)
    a = book.get("run-a")
    assert a.record("server", "HTTP 500") is False and a.record("server", "HTTP 500") is True
    assert a.is_open and not book.get("run-b").is_open  # a fresh run starts closed
    book.get("run-c")
    assert book.get("run-a") is not a  # forgotten beyond the bound: no leak across runs
    g = LLMGuard(clock=lambda: 100.0)
    g.begin(90.0, 15.0)  # LLM requests end 3 s (a fifth) before the bound: the offline reserve
    assert g.timeout(60.0) == 2.0 and g.remaining() == 2.0
    g.record("timeout", "x")
    g.record("server", "y")
    assert not g.is_open  # different classes do not add up
    assert g.announce() is None


def test_the_llm_reranker_obeys_the_runs_breaker(tmp_path, store, hash_embedder):
    with FakeOpenAIServer(default=Behaviour.error(500, "down")) as server:
        server.enqueue(Behaviour.json(two_step_plan(store)))
        record, _ = run(server, tmp_path, store, hash_embedder, reranker="llm")
        sent = len(server.chat_requests)
    assert record.status == "done" and sent <= 4, sent  # the reranker's calls are skipped too
    assert record.total_usage.skipped >= 3
