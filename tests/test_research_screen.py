"""What the Research screen says about how a run is made: the page's description true of the
active re-ranker (none offline: no claim of re-ranking), and, when a configured LLM failed or
replied with nothing usable, the plan header and the run caption naming the offline engine
that stood in and why, never "backend: llm" beside "Proposed by the offline engine"."""

from __future__ import annotations

import itertools

import pytest
from streamlit.testing.v1 import AppTest

from components.run_screen import RERANK_CLAIM, agent_caption, plan_origin, run_caption
from core.agent.events import PlanProposed
from core.app.runs import RunRecord
from core.llm.usage import LLMAccount
from tests.test_app import APP, TIMEOUT, app_env, ok  # noqa: F401 (app_env: fixture)

REASONS = ["HTTP 500", "timed out after 30 s", "connection refused", "HTTP 401 (bad key)"]
MODELS = ["llm:gpt-4o-mini", "llm:qwen2.5:7b", "llm:local-model"]


def test_the_page_claims_no_reranking_when_none_is_active(app_env):  # noqa: F811
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    at.switch_page("app_pages/research.py").run()
    said = at.caption[0].value
    assert "rerank" not in said.lower() and "no re-ranking is active" in said


@pytest.mark.parametrize("kind", sorted(RERANK_CLAIM))
def test_each_reranker_is_described_as_it_works(kind):
    said = agent_caption(kind)
    assert RERANK_CLAIM[kind] in said
    assert ("rerank" in said) == (kind == "cross-encoder")


def _paused(backend: str, account: LLMAccount) -> RunRecord:
    return RunRecord(id="20261204-120000-00000001", question="q", status="paused",
                     backend=backend, llm=account, wall_s=1.5, planning_s=1.5)


def _offline_plan() -> PlanProposed:
    return PlanProposed(node="planner", plan=[], source="offline")


@pytest.mark.parametrize(("model", "reason"), itertools.product(MODELS, REASONS))
def test_a_failed_llm_is_said_where_the_plan_and_the_run_name_their_maker(model, reason):
    record = _paused(model, LLMAccount(failed=2, reason=reason))
    origin = plan_origin(_offline_plan(), record)
    assert origin == f"the offline engine (the LLM failed: {reason})"
    caption = run_caption(record.id, record, {}, model)
    assert f"backend: offline engine (LLM failed: {reason})" in caption
    assert f"backend: {model}" not in caption


@pytest.mark.parametrize("model", MODELS)
def test_an_unusable_reply_is_said_and_a_working_llm_is_named(model):
    bad = _paused(model, LLMAccount(replies=1, unusable=1, unusable_reason="not JSON"))
    assert plan_origin(_offline_plan(), bad) == ("the offline engine (the LLM's reply could "
                                                 "not be used: not JSON)")
    assert "backend: offline engine (LLM replies unusable: not JSON)" in run_caption(
        bad.id, bad, {}, model)
    good = _paused(model, LLMAccount(replies=1, usable=1))
    assert plan_origin(PlanProposed(node="planner", plan=[], source="llm"), good) == "the LLM"
    assert f"backend: {model}" in run_caption(good.id, good, {}, model)
    offline = _paused("offline engine", LLMAccount())
    assert plan_origin(_offline_plan(), offline) == "the offline engine"


def test_a_finished_runs_graph_is_drawn_when_asked_for(app_env):  # noqa: F811
    """A finished run's trace draws its graph only when the analyst asks (the browser lays
    a graph out slowly, which held the answer off the screen); a live run draws it always
    (``tests/test_browser_graph.py``)."""
    from tests.test_app import boot, finished_run, thread_of

    at = finished_run(boot())
    key = f"run_{thread_of(at)}_view_graph_on"
    assert at.toggle(key=key).value is False
    assert not at.get("graphviz_chart")
    ok(at.toggle(key=key).set_value(True).run())
    assert len(at.get("graphviz_chart")) == 1
    assert any("Current node" in c.value for c in at.caption)
