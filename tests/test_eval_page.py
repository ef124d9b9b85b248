"""The Evaluate page through the entry file with Streamlit's AppTest (offline engine, temp data)."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from components import eval_charts as ec

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "streamlit_app.py")
PAGE = "app_pages/evaluate.py"
RUN = "FormSubmitter:eval_form-Run evaluation"


@pytest.fixture
def app_env(tmp_path, monkeypatch):
    """A fresh data folder, no .env, no LLM key, cached services cleared, hash embedder."""
    from testkit.fakes.embedder import HashEmbedder

    monkeypatch.setenv("DTR_DATA_DIR", str(tmp_path / "store"))
    monkeypatch.setenv("DTR_SNAPSHOT_DIR", str(ROOT / "data" / "web_snapshot"))
    monkeypatch.chdir(tmp_path)
    embedder = HashEmbedder()
    monkeypatch.setattr("core.foundation.models.get_embedder", lambda settings: embedder)
    st.cache_resource.clear()
    yield tmp_path
    st.cache_resource.clear()


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [e.value for kind in (at.error, at.warning, at.info, at.success) for e in kind]
    parts += [t.value for t in at.title] + [s.value for s in at.subheader]
    return "\n".join(str(p) for p in parts).replace("\\", "")


def open_page() -> AppTest:
    at = ok(AppTest.from_file(APP, default_timeout=180).run())
    return ok(at.switch_page(PAGE).run())


def run_eval(at: AppTest, *, limit: int, systems: list[str], name: str = "") -> AppTest:
    at.multiselect(key=ec.EVAL_SYSTEMS).set_value(systems)
    at.number_input(key=ec.EVAL_LIMIT).set_value(limit)
    at.text_input(key=ec.EVAL_NAME).set_value(name)
    return ok(at.button(key=RUN).click().run())


def test_evaluate_page_runs_a_set_and_shows_results(app_env):
    at = open_page()
    page = texts(at)
    assert "Evaluate" in page and "No evaluation yet" in page
    assert "northwind-10k-fy2024.htm" in page  # gold documents missing from the empty corpus
    ok(at.button(key="eval_ingest_samples").click().run())
    assert "Gold documents not in the corpus" not in texts(at)
    # the sample went into the sample corpus, apart: the analyst's corpus is still empty
    assert at.radio(key=ec.EVAL_CORPUS).value == "sample"
    assert "Sample corpus: " in texts(at) and "1 filing(s)" in texts(at)
    assert {m.label: m.value for m in at.sidebar.metric}["Documents"] == "0"
    assert (app_env / "store" / "sample-corpus" / "registry.sqlite").is_file()

    at = run_eval(at, limit=2, systems=["baseline", "deep"], name="first")
    page = texts(at)
    assert "Baseline vs deep agent" in page and "Retrieval against gold evidence" in page
    assert "faithfulness (offline: sentence support" in page  # how each metric was computed
    assert at.selectbox(key=ec.EVAL_SHOWN).value == "first"
    assert len(at.get("plotly_chart")) == 3  # metric bars, recall curves, cost vs quality
    frames = [d.value for d in at.dataframe]
    per_question = next(f for f in frames if "run" in f.columns)
    assert len(per_question) == 4 and set(per_question["system"]) == {"baseline", "deep"}
    systems = next(f for f in frames if "runs" in f.columns)
    assert list(systems["system"]) == ["baseline", "deep"]

    # drill down: the deep run's answer with its citations
    at.radio(key=ec.EVAL_DRILL_SYSTEM).set_value("deep").run()
    ok(at)
    assert "Answer" in [s.value for s in at.subheader]
    assert "Run another evaluation to compare" in texts(at)

    # a second evaluation, then compare with the first
    at = run_eval(at, limit=1, systems=["baseline"], name="second")
    assert at.selectbox(key=ec.EVAL_SHOWN).value == "second"
    assert at.selectbox(key=ec.EVAL_PREVIOUS).value == "first"
    deltas = next(d.value for d in at.dataframe if "delta" in d.value.columns)
    assert {"baseline", "keyword", "hybrid"} <= set(deltas["group"])
    assert "deep" not in set(deltas["group"])  # the second run had no deep system

    # back on the analyst's corpus: none of the sample's evaluations or filings are there
    ok(at.radio(key=ec.EVAL_CORPUS).set_value("yours").run())
    assert "No evaluation yet" in texts(at) and "northwind-10k-fy2024.htm" in texts(at)

    # the sample's deep run cites the sample filing: read in the sample corpus, the passage
    # opens in the filing and the Library shows it there (read only), not "stored with the run"
    ok(at.radio(key=ec.EVAL_CORPUS).set_value("sample").run())
    at.selectbox(key=ec.EVAL_SHOWN).set_value("first").run()
    ok(at.radio(key=ec.EVAL_DRILL_SYSTEM).set_value("deep").run())
    cite = f"eval_cite_{at.selectbox(key=ec.EVAL_DRILL).value}_deep"
    in_filing = None
    for n in at.pills(key=f"{cite}_pick").options:
        ok(at.pills(key=f"{cite}_pick").set_value(int(n.strip("[]"))).run())
        views = [v for v in at.segmented_control if v.key == f"{cite}_p{n.strip('[]')}_view"]
        if views:
            in_filing = views[0]
            break
    assert in_filing is not None, "no citation of the sample's deep run is a filing passage"
    ok(in_filing.set_value("In the filing").run())
    ok(next(b for b in at.button if b.label == "Open the whole section in the Library")
       .click().run())
    assert at.title[0].value == "Library"
    assert at.query_params["corpus"] in ("sample", ["sample"])
    assert "sample corpus" in texts(at) and "cited chunk" in texts(at)
    assert not any(b.key == "lib_delete" for b in at.button)  # read only
    ok(at.button(key="lib_leave_sample").click().run())
    assert "corpus" not in at.query_params and "chunk" not in at.query_params
    ok(at.switch_page("app_pages/library.py").run())  # AppTest reruns its own page
    assert "Your corpus is empty" in texts(at) and "sample corpus" not in texts(at)


def test_errors_are_shown_and_a_malformed_set_is_not_run(app_env, tmp_path):
    # AppTest cannot upload files: the page's loader path is checked on a shipped-set copy
    from core.evaluation.questions import QuestionSetError, load_question_set

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q", "gold": [{"document": "a.htm", "page": "x"}]}\n')
    with pytest.raises(QuestionSetError, match="line 1: field 'gold\\[0\\].page'"):
        load_question_set(bad)
    at = open_page()
    at = run_eval(at, limit=1, systems=["baseline"])  # nothing ingested yet
    assert "The corpus is empty" in texts(at) and "No evaluation yet" in texts(at)
    at.selectbox(key=ec.EVAL_SET).set_value("__upload__").run()
    ok(at)
    assert "Upload a .jsonl question set" in texts(at)
    assert not any(b.key == RUN for b in at.button)


def test_evaluate_page_shows_rule_vs_learned_policy(app_env):
    at = open_page()
    page = texts(at)
    assert "Policy: rule vs learned" in page and "No learned policy yet" in page
    ok(at.button(key="eval_policy_fit").click().run())
    assert "the rule stays" in texts(at)  # no stored runs to learn from

    from core.agent.policy import learned as lp
    from core.agent.policy.features import FEATURES, LABELS
    from core.foundation.config import load_settings

    d = len(FEATURES)
    lp.save(lp.PolicyModel(weights=[[0.0] * d for _ in LABELS], bias=[0.0] * len(LABELS),
                           mean=[0.0] * d, std=[1.0] * d, runs=8, examples=30,
                           rule_accuracy=0.7, learned_accuracy=0.6, held_out=30, better=False,
                           verdict="the rule stays: learned 0.60 does not beat the rule's 0.70",
                           fitted_at="2026-01-01T00:00:00+00:00"), load_settings())
    at = ok(at.run())
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Rule accuracy (held-out)"] == "0.70"
    assert metrics["Learned accuracy (held-out)"] == "0.60" and metrics["Decides"] == "rule"
