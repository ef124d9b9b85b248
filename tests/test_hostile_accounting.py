"""Issue 22, honest run accounting, through the real ChatOpenAI and the fake OpenAI server on
a two-company corpus: the backend label says what answered when every LLM request failed,
the run time counts planning and is stored on the record, and ``max_wall_s`` bounds the
whole run (planning and every retry), with messages naming the bound that applied."""

from __future__ import annotations

import io

import pytest

from core.app.runs import load_run
from core.cli.agent import print_record
from core.store.corpus_store import CorpusStore
from testkit.corpus import amd_10k, nvda_10k
from testkit.fakes.fixtures import llm_settings
from testkit.fakes.openai_server import Behaviour, FakeOpenAIServer
from testkit.scenarios import QUESTION, service, two_step_plan


@pytest.fixture
def store(tmp_path, hash_embedder):
    from core.foundation.config import Settings

    s = CorpusStore(Settings(data_dir=tmp_path / "store", _env_file=None), hash_embedder)
    for meta, chunks in (nvda_10k(), amd_10k()):
        s.add(meta, chunks)
    yield s
    s.close()


def _printed(record) -> str:
    out = io.StringIO()
    print_record(record, out)
    return out.getvalue()


def _messages(record) -> list[str]:
    return [e.message for e in record.events if e.type in ("warning", "error")] \
        + list(record.warnings)


def test_a_run_no_llm_request_answered_is_labelled_offline_with_the_failure(
        tmp_path, store, hash_embedder):
    with FakeOpenAIServer(default=Behaviour.error(500, "model crashed")) as server:
        settings = llm_settings(server, tmp_path)
        record = service(settings, store, hash_embedder).ask(QUESTION)
    assert record.status == "done" and record.answer is not None
    # was "llm:fake-model" although the offline engine wrote every part of the answer
    assert record.backend == "offline engine (LLM failed: HTTP 500)"
    assert record.llm.replies == 0 and record.llm.failed >= 2
    assert load_run(settings, record.id).backend == record.backend  # stored as shown
    text = _printed(record)
    assert "=== Answer (deep, offline engine (LLM failed: HTTP 500)) ===" in text
    assert "The LLM failed (HTTP 500;" in text and "the offline engine wrote this answer" in text


def test_a_run_the_llm_partly_answered_keeps_the_models_label_and_says_what_failed(
        tmp_path, store, hash_embedder):
    with FakeOpenAIServer(default=Behaviour.error(500, "model crashed")) as server:
        server.enqueue(Behaviour.json(two_step_plan(store)))  # the planner is answered
        settings = llm_settings(server, tmp_path)
        record = service(settings, store, hash_embedder).ask(QUESTION)
    assert record.backend == "llm:fake-model"
    assert record.llm.replies == 1 and record.llm.failed >= 2
    assert f"The LLM answered 1 of {1 + record.llm.failed} request(s)" in _printed(record)


def test_the_run_time_counts_planning_and_is_stored_on_the_record(tmp_path, store,
                                                                    hash_embedder):
    """The planner's reply takes at least 1.5 s (the server waits before answering): the
    run's time cannot be shorter, and the record keeps it (planning_s is part of wall_s)."""
    with FakeOpenAIServer(default=Behaviour.error(500)) as server:
        server.enqueue(Behaviour.slow(1.5, Behaviour.json(two_step_plan(store))))
        settings = llm_settings(server, tmp_path)
        record = service(settings, store, hash_embedder).ask(QUESTION)
    saved = load_run(settings, record.id)
    assert saved.planning_s >= 1.5  # main: no planning time at all, wall_s research only
    assert saved.wall_s >= saved.planning_s + 0.001
    assert f"(planning {saved.planning_s:.2f} s)" in _printed(saved)


def test_a_hanging_endpoint_cannot_hold_the_run_past_max_wall_s_planning_included(
        tmp_path, store, hash_embedder):
    """max_wall_s=3, llm_timeout_s=60: the planner's request is cut to the run's time left
    (the offline reserve kept), research sends no request (main restarted the deadline at
    review: the research waited another full bound), the offline engine researched and
    wrote the answer, and no message speaks of the 60 s that did not apply."""
    with FakeOpenAIServer(default=Behaviour.hang()) as server:
        settings = llm_settings(server, tmp_path, max_wall_s=3.0, llm_timeout_s=60.0)
        record = service(settings, store, hash_embedder).ask(QUESTION)
        sent = len(server.chat_requests)
    assert sent == 1, sent  # the planner's, cut to the time left; nothing after review
    assert record.backend.startswith("offline engine (the LLM did not answer: no reply "
                                     "within ")
    assert record.history and record.answer is not None and record.answer.citations
    messages = _messages(record)
    assert not [m for m in messages if "60 s" in m], messages
    assert any("the time left of the run's 3 s limit (DTR_MAX_WALL_S)" in m for m in messages)
    assert "The LLM did not answer (no reply within" in _printed(record)


def test_the_llm_deadline_keeps_a_reserve_for_the_offline_engine():
    from core.llm.breaker import LLMGuard, offline_reserve

    guard = LLMGuard(clock=lambda: 100.0)
    guard.begin(100.0, 20.0)
    assert guard.remaining() == pytest.approx(16.0)  # 20 s bound: the LLM has the first 16 s
    assert offline_reserve(300.0) == 15.0  # at most 15 s of a long run
