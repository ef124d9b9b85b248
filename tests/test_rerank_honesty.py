"""Issue 37 item 11: nothing claims a re-ranking that did not happen.

Evaluate offers "hybrid+rerank" only when a reranker is active and labels it with what
re-ranks; the runner drops a reranked configuration asked for with no reranker (said, never
scored as reranked); Settings says which reranker is active now.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from components import eval_charts as ec
from core.evaluation.judge import Judge
from core.evaluation.questions import load_question_set
from core.evaluation.retrieval_eval import follow_reranker, offered_strategies, strategy_label
from core.evaluation.runner import run_eval
from core.foundation.config import Settings
from core.foundation.types import RerankerInfo
from core.retrieval.web import SnapshotWebSearch

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "streamlit_app.py")
SAMPLE_SET = ROOT / "data" / "questions" / "sample.jsonl"
FILING = ROOT / "data" / "sample" / "northwind-10k-fy2024.htm"
SNAPSHOT = ROOT / "data" / "web_snapshot"

NONE = RerankerInfo(name="none (first-stage order)", kind="none", reason="weights not on disk")
ACTIVE = [RerankerInfo(name="cross-encoder/ms-marco-MiniLM-L-6-v2", kind="cross-encoder",
                       reason="weights on disk"),
          RerankerInfo(name="lexical", kind="fallback", reason="chosen in Settings"),
          RerankerInfo(name="llm:gpt-4o-mini", kind="llm", reason="chosen in Settings")]


def test_no_reranker_offers_no_reranked_strategy():
    offered = offered_strategies(NONE)
    assert offered == ["vector", "keyword", "hybrid"]
    assert all("rerank" not in strategy_label(s, NONE) for s in offered)
    kept, notes = follow_reranker(["keyword", "hybrid+rerank"], NONE)
    assert kept == ["keyword"] and len(notes) == 1
    assert "hybrid+rerank not scored" in notes[0] and "weights not on disk" in notes[0]
    assert "No re-ranker is active" in ec.reranker_note(NONE)


@pytest.mark.parametrize("info", ACTIVE, ids=lambda i: i.kind)
def test_an_active_reranker_is_named_in_the_label(info):
    assert "hybrid+rerank" in offered_strategies(info)
    assert strategy_label("hybrid+rerank", info) == f"hybrid + re-ranked by {info.name}"
    assert strategy_label("hybrid", info) == "hybrid"
    assert follow_reranker(["hybrid+rerank"], info) == (["hybrid+rerank"], [])
    assert info.name in ec.reranker_note(info)


@pytest.mark.parametrize(("reranker", "scored"), [("none", False), ("lexical", True)])
def test_the_runner_scores_a_reranked_strategy_only_with_a_reranker(tmp_path, hash_embedder,
                                                                     reranker, scored):
    from core.app.corpus import Corpus

    settings = Settings(data_dir=tmp_path / "store", snapshot_dir=SNAPSHOT, reranker=reranker,
                        _env_file=None)
    corpus = Corpus(settings, embedder=hash_embedder)
    try:
        corpus.ingest_path(FILING)
        qset = load_question_set(SAMPLE_SET)
        qset = qset.model_copy(update={"questions": qset.questions[:2]})
        saved = run_eval(qset, settings=settings, corpus=corpus,
                         judge=Judge(settings, hash_embedder, None), systems=[],
                         strategies=["hybrid", "hybrid+rerank"],
                         web=SnapshotWebSearch(SNAPSHOT))
    finally:
        corpus.close()
    strategies = {r.strategy for r in saved.retrieval}
    notes = [w for w in saved.manifest.warnings if "not scored" in w]
    if scored:
        assert strategies == {"hybrid", "hybrid+rerank"} and not notes
        assert saved.manifest.strategies == ["hybrid", "hybrid+rerank"]
    else:
        assert strategies == {"hybrid"} and saved.manifest.strategies == ["hybrid"]
        assert len(notes) == 1 and "rank exactly like hybrid" in notes[0]
        assert ec.rerank_was_none(saved.manifest)


@pytest.fixture
def app_env(tmp_path, monkeypatch):
    from testkit.fakes.embedder import HashEmbedder

    monkeypatch.setenv("DTR_DATA_DIR", str(tmp_path / "store"))
    monkeypatch.setenv("DTR_SNAPSHOT_DIR", str(SNAPSHOT))
    monkeypatch.chdir(tmp_path)
    embedder = HashEmbedder()
    monkeypatch.setattr("core.foundation.models.get_embedder", lambda settings: embedder)
    st.cache_resource.clear()
    yield tmp_path
    st.cache_resource.clear()


def page_text(at: AppTest) -> str:
    parts = [c.value for c in at.caption] + [m.value for m in at.markdown]
    return "\n".join(parts).replace("\\", "")


@pytest.mark.parametrize("reranker", ["none", "lexical", "passage"])
def test_evaluate_and_settings_follow_the_active_reranker(app_env, monkeypatch, reranker):
    monkeypatch.setenv("DTR_RERANKER", reranker)
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.switch_page("app_pages/evaluate.py").run()
    assert not at.exception, [e.value for e in at.exception]
    box = at.multiselect(key=ec.EVAL_STRATEGIES)
    if reranker == "none":
        assert "hybrid+rerank" not in box.options and box.value == ["vector", "keyword", "hybrid"]
        assert "No re-ranker is active" in page_text(at)
    else:
        labels = box.options
        assert any(o.startswith("hybrid + re-ranked by ") for o in labels), labels
        assert "hybrid+rerank" in box.value
    at.switch_page("app_pages/settings.py").run()
    assert not at.exception, [e.value for e in at.exception]
    said = page_text(at)
    assert "Active now: " in said
    if reranker == "none":
        assert "no re-ranking" in said
    else:
        assert "no re-ranking" not in said.split("Active now: ")[1].split(".")[0]
