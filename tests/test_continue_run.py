"""A run a server restart interrupted goes on from its last checkpoint: the service, the run
session the pages render, and ``ask --resume`` (offline engine, fake retriever and web)."""

from __future__ import annotations

import io

import pytest

from core.app import jobs, run_session
from core.cli.agent import ask
from core.foundation.errors import AppError
from testkit.agent_fakes import QUESTION, make_service


def _interrupt(settings, stop_at: str = "step_started", nth: int = 2
               ) -> tuple[str, list]:
    """Start a run, stop its stream at the ``nth`` ``stop_at`` event (as a server stop would)
    and close that service. Returns (thread id, events seen)."""
    svc = make_service(settings)
    thread_id, plan, _ = svc.start(QUESTION)
    assert len(plan) >= 2
    stream = iter(svc.resume(thread_id))
    seen = []
    for ev in stream:
        seen.append(ev)
        if [e.type for e in seen].count(stop_at) == nth:
            break
    stream.close()
    svc.close()
    return thread_id, seen


@pytest.mark.parametrize("stop_at,nth", [("step_started", 2), ("hits_retrieved", 1)])
def test_an_interrupted_run_continues_to_an_answer_in_a_new_service(settings, stop_at, nth):
    thread_id, seen = _interrupt(settings, stop_at, nth)
    assert "answer_ready" not in [e.type for e in seen]
    decided = {e.step for e in seen if e.type == "policy_decided"}
    svc = make_service(settings)  # a new process after the restart
    session = run_session.open_run(svc, settings, thread_id)
    assert session.phase == "interrupted" and session.resumable
    assert "Continue it" in session.message
    stream = svc.continue_run(thread_id)
    events = list(stream)
    record = stream.record
    assert events[0].type == "warning" and "last checkpoint" in events[0].message
    assert record.status == "done" and record.answer and record.answer.text
    assert record.answer.citations
    # Steps decided before the stop are not run again; the others ran after it.
    started = [e.step for e in events if e.type == "step_started"]
    assert not decided & set(started) and started
    assert {h.step for h in record.history} >= decided | set(started)
    # The trace saved before the stop is kept: the decisions made then come first.
    kept = [e.step for e in record.events if e.type == "policy_decided"]
    assert set(kept) >= decided | set(started) and record.events.index(events[0]) > 0
    assert run_session.open_run(svc, settings, thread_id).phase == "done"
    with pytest.raises(AppError, match="nothing to continue"):
        svc.continue_run(thread_id)


def test_runs_at_review_or_unknown_cannot_be_continued(settings):
    svc = make_service(settings)
    thread_id, _, _ = svc.start(QUESTION)
    assert not svc.can_continue(thread_id) and not svc.can_continue("nope")
    with pytest.raises(AppError):
        svc.continue_run(thread_id)


def test_cli_resume_continues_an_interrupted_run(settings):
    thread_id, _ = _interrupt(settings)
    out = io.StringIO()
    record = ask(None, settings=settings, resume=thread_id, service=make_service(settings),
                 out=out, input_fn=lambda _: "n")
    text = out.getvalue()
    assert "continuing from its last checkpoint" in text
    assert record is not None and record.status == "done" and "=== Answer" in text


def test_run_session_continues_in_a_background_job(settings):
    thread_id, _ = _interrupt(settings)
    svc = make_service(settings)
    job = run_session.continue_run(svc, settings, thread_id)
    assert jobs.wait(job, 60) and job.error is None
    assert run_session.open_run(svc, settings, thread_id).phase == "done"
