"""Honest status (issue 21): the sidebar names what background work is doing in words and
redraws itself while it runs (a fragment with ``run_every``), ingest says "embedding"
when it embeds, and a run's line counts its steps and seconds."""

from __future__ import annotations

import threading

from streamlit.testing.v1 import AppTest

from components.ingest_view import batch_line, stage_words
from core.app import jobs
from core.app.ingest_jobs import BatchProgress, FileProgress
from tests.test_app import APP, TIMEOUT, app_env, ok  # noqa: F401  (fixture)
from tests.waiting import CEILING_S, GATE_S


def test_an_ingest_says_what_it_does_in_words():
    f = FileProgress("nvda.html", started=1.0)
    assert stage_words(f) == "starting"  # started: never "waiting"
    f.stage = "embed"
    assert stage_words(f) == "embedding"
    f.chunks_done, f.chunks_total = 240, 485
    assert stage_words(f) == "embedding 240 of 485 chunks"
    f.stage = "parse"
    f.chunks_total = 0
    assert stage_words(f) == "reading the file"
    line = batch_line(BatchProgress([f, FileProgress("amd.htm")]))
    assert line.startswith("File 1 of 2 · nvda.html: reading the file"), line


def _sidebar_info(at: AppTest) -> list[str]:
    return [i.value.replace("\\", "") for i in at.sidebar.info]


def _clocks(at: AppTest) -> list[dict]:
    """The activity clock's data, when the sidebar draws it (the browser ticks it)."""
    import json

    return [d for d in (json.loads(e.proto.json) for e in at.sidebar.get("bidi_component"))
            if "every_ms" in d]


def test_the_sidebar_ticks_while_a_job_runs_and_stops_after(app_env, monkeypatch):  # noqa: F811
    from components import sidebar

    asked: list[bool] = []
    real = sidebar.tick_every
    monkeypatch.setattr(sidebar, "tick_every", lambda active: asked.append(active) or
                        real(active))
    gate = threading.Event()

    def work(job):
        job.report("step 1 of 2", 1, 2)
        gate.wait(GATE_S)

    job = jobs.start("cmp-test-tick", "compare", work)
    try:
        at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
        lines = _sidebar_info(at)
        assert any(line.startswith("Compare: step 1 of 2 (") for line in lines), lines
        assert asked[-1] is True and real(True) == sidebar.TICK_S  # redrawn every second
        clocks = _clocks(at)
        assert [{k: v for k, v in c.items() if k != "drawn"} for c in clocks] == [
            {"every_ms": 1000, "quiet_ms": int(sidebar.QUIET_S * 1000),
             "answer_ms": int(sidebar.ANSWER_S * 1000)}]
        assert clocks[0]["drawn"] != _clocks(ok(at.run()))[0]["drawn"]  # each draw is new
    finally:
        gate.set()
        assert jobs.wait(job, CEILING_S)
        jobs.forget(job.id)
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    assert not any(line.startswith("Compare:") for line in _sidebar_info(at))
    assert asked[-1] is False and real(False) is None  # idle: nothing redraws on its own
    assert _clocks(at) == []


def test_the_run_time_is_read_from_the_run_record_after_a_reload(app_env):  # noqa: F811
    from tests.test_app import boot, finished_run, thread_of

    at = finished_run(boot())
    thread = thread_of(at)
    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT)  # a reload: a new session
    fresh.query_params["thread"] = thread
    ok(fresh.run())
    caption = next(c.value.replace("\\", "") for c in fresh.caption
                   if c.value.replace("\\", "").startswith(f"Run {thread}"))
    assert "run time " in caption and "backend: offline engine" in caption, caption
