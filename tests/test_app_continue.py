"""An interrupted run (the server stopped mid-research) is continued from the Research page
and offered on the Runs page (AppTest, offline engine, the sample 10-K)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from components import services
from core.app import jobs
from tests.test_app import (  # noqa: F401 (app_env is a fixture)
    APP,
    TIMEOUT,
    app_env,
    ask_walkthrough,
    boot,
    load_sample,
    ok,
    texts,
    thread_of,
)

pytestmark = pytest.mark.usefixtures("app_env")


def _interrupt(thread: str) -> None:
    """Run the approved plan until step 2 starts, then stop (as a server stop would)."""
    svc = services.research_service(services.base_settings())
    stream = iter(svc.resume(thread))
    started = 0
    for ev in stream:
        started += ev.type == "step_started"
        if started == 2:
            break
    stream.close()


def test_an_interrupted_run_is_continued_from_the_research_page():
    thread = thread_of(ask_walkthrough(load_sample(boot())))
    _interrupt(thread)

    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT)  # after the restart
    fresh.query_params["thread"] = thread
    ok(fresh.run())
    assert "interrupted" in texts(fresh) and "Continue it from its last checkpoint" in texts(fresh)
    ok(fresh.switch_page("app_pages/runs.py").run())
    assert list(fresh.dataframe[0].value["status"]) == ["interrupted"]

    fresh.query_params["thread"] = thread
    ok(fresh.switch_page("app_pages/research.py").run())
    ok(fresh.button(key="res_continue").click().run())
    job = jobs.get(thread)
    assert job is not None and jobs.wait(job, 120) and job.error is None
    again = AppTest.from_file(APP, default_timeout=TIMEOUT)
    again.query_params["thread"] = thread
    ok(again.run())
    assert "was interrupted while it ran" not in texts(again)
    assert "Continued from the last checkpoint" in texts(again)
    ok(again.switch_page("app_pages/runs.py").run())
    assert list(again.dataframe[0].value["status"]) == ["done"]


def test_an_interrupted_run_is_continued_from_the_runs_page():
    thread = thread_of(ask_walkthrough(load_sample(boot())))
    _interrupt(thread)

    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT)  # after the restart
    ok(fresh.run())
    ok(fresh.switch_page("app_pages/runs.py").run())
    ok(fresh.button(key="runs_continue").click().run())
    job = jobs.get(thread)
    assert job is not None and jobs.wait(job, 120) and job.error is None
    ok(fresh.switch_page("app_pages/runs.py").run())
    assert list(fresh.dataframe[0].value["status"]) == ["done"]
    assert "runs_continue" not in [b.key for b in fresh.button]
