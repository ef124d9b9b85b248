"""Issue 22: the baseline's backend label says what answered. Its one LLM call failed, so the
offline engine wrote the answer: main labelled that run with the configured model's name."""

from __future__ import annotations

import io

import pytest

from core.baseline.rag import run_baseline
from core.cli.agent import print_record
from core.llm.factory import make_chat_model
from core.store.corpus_store import CorpusStore
from testkit.corpus import nvda_10k
from testkit.fakes.fixtures import llm_settings
from testkit.fakes.openai_server import Behaviour, FakeOpenAIServer

QUESTION = "How does NVIDIA describe competition in its risk factors?"


@pytest.fixture
def store(tmp_path, hash_embedder):
    from core.foundation.config import Settings

    s = CorpusStore(Settings(data_dir=tmp_path / "store", _env_file=None), hash_embedder)
    s.add(*nvda_10k())
    yield s
    s.close()


def _baseline(server, tmp_path, store, hash_embedder, **overrides):
    settings = llm_settings(server, tmp_path, **overrides)
    return run_baseline(QUESTION, settings=settings, store=store, embedder=hash_embedder,
                        llm=make_chat_model(settings))


def test_a_baseline_whose_llm_call_failed_is_labelled_offline_with_the_failure(
        tmp_path, store, hash_embedder):
    with FakeOpenAIServer(default=Behaviour.error(500, "model crashed")) as server:
        record = _baseline(server, tmp_path, store, hash_embedder)
    assert record.answer is not None and record.answer.source == "offline"
    assert record.backend == "offline engine (LLM failed: HTTP 500)"  # main: llm:fake-model
    assert record.llm.replies == 0 and record.llm.failed >= 1
    out = io.StringIO()
    print_record(record, out)
    assert "=== Answer (baseline, offline engine (LLM failed: HTTP 500)) ===" in out.getvalue()
    assert "the offline engine wrote this answer" in out.getvalue()


def test_a_baseline_whose_llm_did_not_answer_says_so(tmp_path, store, hash_embedder):
    with FakeOpenAIServer(default=Behaviour.hang()) as server:
        record = _baseline(server, tmp_path, store, hash_embedder, llm_timeout_s=0.5,
                           llm_max_retries=0)
    assert record.backend.startswith("offline engine (the LLM did not answer: no reply")


def test_a_baseline_the_llm_answered_keeps_the_models_label(tmp_path, store, hash_embedder):
    with FakeOpenAIServer(default=Behaviour.json({"answer": "Competition is intense [1]."})
                          ) as server:
        record = _baseline(server, tmp_path, store, hash_embedder)
    assert record.answer.source == "llm" and record.backend == "llm:fake-model"
    assert record.llm.replies == 1 and not record.llm.failed
