"""Compare and Evaluate run as background jobs (``core.app.compare_job``, ``core.evaluation.job``),
like research: progress on the job, cancel at the next stage, and a page that re-attaches
after a refresh (a new AppTest session of the same server process) by the id in its URL."""

from __future__ import annotations

import threading

import pytest
from streamlit.testing.v1 import AppTest

from components import eval_charts as ec
from core.app import jobs
from tests.test_app import APP, TIMEOUT, app_env, boot, finished_run, ok, texts  # noqa: F401 (app_env: a fixture)
from tests.waiting import CEILING_S, GATE_S


def test_a_job_reports_progress_lines_and_stops_when_cancel_is_asked():
    started, release = threading.Event(), threading.Event()

    def work(job: jobs.Job) -> str:
        job.report("stage one", 1, 3)
        job.report("filing 1: 10 of 40 chunks", 1.25, 3, line=False)
        started.set()
        release.wait(GATE_S)
        job.check()
        return "never"

    job = jobs.start("test-cancel", "compare", work, label="q")
    assert started.wait(CEILING_S)
    assert job.lines == ["stage one"]  # a progress tick is not a line
    assert job.progress.text == "filing 1: 10 of 40 chunks"
    assert job.progress.share == pytest.approx(1.25 / 3)
    assert jobs.cancel(job.id)
    release.set()
    assert jobs.wait(job, CEILING_S)
    assert job.cancelled and job.error is None and job.result is None
    jobs.forget(job.id)


def test_an_app_error_in_a_job_is_its_message():
    from core.foundation.errors import AppError

    def work(job):
        raise AppError("The corpus is empty: ingest first.")

    job = jobs.start("test-apperror", "evaluate", work)
    assert jobs.wait(job, CEILING_S) and job.error == "The corpus is empty: ingest first."
    jobs.forget(job.id)


def test_an_evaluation_job_stops_at_the_next_question_on_cancel(monkeypatch):
    from core.evaluation import job as eval_job
    from core.evaluation.runner import EvalProgress

    first, go_on, seen = threading.Event(), threading.Event(), []

    def fake_run_eval(qset, *, on_progress, eval_id, **kwargs):
        for i in (1, 2, 3):
            on_progress(EvalProgress(i, 3, f"q{i}: baseline done"))
            seen.append(i)
            first.set()
            go_on.wait(GATE_S)
        return "saved"

    monkeypatch.setattr(eval_job, "run_eval", fake_run_eval)

    class QSet:
        name = "sample"

    eval_id, job = eval_job.start(QSet(), settings=None, corpus=None, judge=None,
                                  systems=["baseline"], strategies=[], eval_id="named")
    assert eval_id == "named" and job.id == eval_job.job_id("named")
    assert first.wait(CEILING_S)
    jobs.cancel(job.id)
    go_on.set()
    assert jobs.wait(job, CEILING_S) and job.cancelled
    assert seen == [1] and job.lines == ["· q1: baseline done", "· q2: baseline done"]
    jobs.forget(job.id)


@pytest.mark.usefixtures("app_env")
def test_a_refreshed_compare_page_shows_the_comparison_again():
    at = finished_run(boot())
    ok(at.button(key="res_compare").click().run())
    assert {"Baseline RAG", "Deep agent"} <= {s.value for s in at.subheader}
    params = {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}
    assert set(params) == {"baseline", "deep"}  # the finished pair is named in the URL
    job = jobs.latest("compare")
    assert job.done and job.result.baseline == params["baseline"]
    assert any("Baseline: fixed-size chunks" in line for line in job.lines)

    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT)  # a refresh: a new session
    fresh.query_params.update(params)
    ok(fresh.switch_page("app_pages/compare.py").run())
    assert {"Baseline RAG", "Deep agent"} <= {s.value for s in fresh.subheader}

    again = AppTest.from_file(APP, default_timeout=TIMEOUT)  # refreshed while it ran
    again.query_params["compare"] = job.id
    ok(again.switch_page("app_pages/compare.py").run())
    assert {"Baseline RAG", "Deep agent"} <= {s.value for s in again.subheader}
    assert "compare" not in again.query_params and "deep" in again.query_params

    gone = AppTest.from_file(APP, default_timeout=TIMEOUT)  # a job of a restarted server
    gone.query_params["compare"] = "cmp-000000000000"
    ok(gone.switch_page("app_pages/compare.py").run())
    assert "stopped by a server restart" in texts(gone)


@pytest.mark.usefixtures("app_env")
def test_a_refreshed_evaluate_page_shows_the_evaluation_in_its_url():
    from tests.test_eval_page import RUN

    at = boot("app_pages/library.py")
    ok(at.switch_page("app_pages/evaluate.py").run())
    ok(at.button(key="eval_ingest_samples").click().run())
    for name in ("first", "second"):
        at.multiselect(key=ec.EVAL_SYSTEMS).set_value(["baseline"])
        at.number_input(key=ec.EVAL_LIMIT).set_value(1)
        at.text_input(key=ec.EVAL_NAME).set_value(name)
        ok(at.button(key=RUN).click().run())
        assert at.selectbox(key=ec.EVAL_SHOWN).value == name
    job = jobs.get("eval-second")
    assert job.done and job.result.manifest.id == "second" and job.lines

    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT)
    fresh.query_params["eval"] = "first"  # e.g. a link kept from the first run
    ok(fresh.switch_page("app_pages/evaluate.py").run())
    assert fresh.selectbox(key=ec.EVAL_SHOWN).value == "first"
    assert "Baseline vs deep agent" in texts(fresh)
