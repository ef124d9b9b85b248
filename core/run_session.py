"""The life of one research run as a page (or the CLI) sees it: a typed session, no strings.

``open_run`` tells what run ``thread_id`` is *now* — waiting for plan review (with the
analyst's saved draft), researching in a background job of this server, finished,
cancelled, discarded, interrupted by a server restart, or unknown — from the
checkpointer, the run record, the run's note and the job registry. ``approve`` starts
the research in a background job; ``cancel`` stops it at its next event and saves what
it did; ``discard`` forgets a plan under review and marks the run discarded;
``continue_run`` continues an interrupted run from its last checkpoint in a background job
(``resumable`` says whether it can). A page
renders the session's ``phase``; it keeps no state machine of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from core import jobs
from core.agent import cancel as cancel_flag
from core.agent.events import EventBase, PlanProposed
from core.agent.state import PlanStep
from core.config import Settings
from core.errors import AppError
from core.plan_draft import StepDraft
from core.run_index import clear_draft, load_note, mark
from core.runs import RunRecord, load_run, save_run

Phase = Literal["review", "running", "done", "cancelled", "discarded", "interrupted", "missing"]


@dataclass
class RunSession:
    """What a run is now (see the module docstring)."""

    thread_id: str
    phase: Phase
    question: str = ""
    events: list[EventBase] = field(default_factory=list)
    """Events saved so far (a running job holds the newer ones)."""
    plan: list[PlanStep] = field(default_factory=list)
    """The plan waiting for review, as proposed."""
    draft: list[StepDraft] | None = None
    """The analyst's edits of that plan, saved with the run."""
    draft_saved_at: str = ""
    record: RunRecord | None = None
    job: jobs.Job | None = None
    message: str = ""
    resumable: bool = False
    """An interrupted run whose checkpoint can be continued (``continue_run``)."""

    @property
    def proposal(self) -> PlanProposed | None:
        return next((e for e in self.events if e.type == "plan_proposed"), None)


def open_run(service: Any, settings: Settings, thread_id: str) -> RunSession:
    """What run ``thread_id`` is now."""
    note = load_note(settings, thread_id)
    try:
        record = load_run(settings, thread_id)
    except AppError:
        record = None
    question = record.question if record else ""
    events = list(record.events) if record else []
    job = jobs.get(thread_id)
    if job is not None and not job.done:
        return RunSession(thread_id, "running", question, events, record=record, job=job)
    if note.state == "discarded":
        return RunSession(thread_id, "discarded", question, events, record=record,
                          message="This plan was discarded at review; ask the question again "
                                  "to get a new plan.")
    try:
        plan = service.pending_plan(thread_id)
    except AppError:
        plan = None
    if plan is not None:
        return RunSession(thread_id, "review", question, events, plan=list(plan),
                          draft=note.draft, draft_saved_at=note.draft_saved_at, record=record)
    if record is None:
        return RunSession(thread_id, "missing",
                          message=f"No run {thread_id} in this data folder; ask a new question.")
    if note.state == "cancelled":
        return RunSession(thread_id, "cancelled", question, events, record=record, job=job,
                          message=note.state_reason or "This run was cancelled.")
    if record.status in ("done", "failed"):
        return RunSession(thread_id, "done", question, events, record=record, job=job)
    resumable = _can_continue(service, thread_id)
    more = (" Continue it from its last checkpoint." if resumable
            else " It has no checkpoint to continue from.")
    age = _seconds_since_saved(settings, thread_id)
    if resumable and age is not None and age < settings.max_wall_s:
        more += (f" Its trace was saved {age:.0f} s ago: if it is still running in another "
                 "process (a CLI run, another app replica), let it finish instead.")
    return RunSession(thread_id, "interrupted", question, events, record=record,
                      resumable=resumable,
                      message="This run was interrupted while it ran (the server stopped); "
                              "the events saved before that are shown." + more)


def _seconds_since_saved(settings: Settings, thread_id: str) -> float | None:
    """Seconds since the run's record was last written (None when unknown)."""
    import time

    try:
        return time.time() - (settings.runs_dir / f"{thread_id}.json").stat().st_mtime
    except OSError:
        return None


def _can_continue(service: Any, thread_id: str) -> bool:
    try:
        return bool(service.can_continue(thread_id))
    except Exception:  # noqa: BLE001 - an unreadable checkpoint cannot be continued
        return False


def approve(service: Any, settings: Settings, thread_id: str,
            plan: list[PlanStep] | None) -> jobs.Job:
    """Resume the paused run with ``plan`` (None: as proposed) in a background job.

    Raises ``PlanValidationError`` (the run stays under review) or ``AppError``."""
    stream = service.resume(thread_id, plan)
    clear_draft(settings, thread_id)
    return _start_job(service, settings, thread_id, stream)


def continue_run(service: Any, settings: Settings, thread_id: str) -> jobs.Job:
    """Continue an interrupted run from its last checkpoint in a background job.

    Raises ``AppError`` when there is nothing to continue."""
    return _start_job(service, settings, thread_id, service.continue_run(thread_id))


def _start_job(service: Any, settings: Settings, thread_id: str, stream: Any) -> jobs.Job:
    def work(job: jobs.Job) -> RunRecord | None:
        # Cancel is a flag the graph checks between stages: the stream then ends on its
        # own. Closing it here instead hangs while a parallel step waits on a slow call.
        asked = False
        try:
            for event in stream:
                job.events.append(event)
                if job.cancel_requested and not asked:
                    cancel_flag.request(thread_id)
                    asked = True
            if asked or job.cancel_requested:
                job.cancelled = True
                return save_cancelled(service, settings, thread_id, job)
        finally:
            cancel_flag.clear(thread_id)
        return stream.record

    return jobs.start(thread_id, "research", work, label=f"research {thread_id}")


def save_cancelled(service: Any, settings: Settings, thread_id: str,
                   job: jobs.Job) -> RunRecord:
    """Save a run its job stopped on cancel: the events so far, marked cancelled."""
    steps = len({e.step for e in job.events if e.type == "step_started"})
    reason = (f"Cancelled by the analyst after {job.seconds:.0f} s "
              f"({steps} step(s) started); the events up to then are kept.")
    try:
        base = load_run(settings, thread_id)
    except AppError:
        base = RunRecord(id=thread_id, question="")
    saved = list(base.events)  # a running record already holds the events up to its last step
    events = saved + [e for e in job.events if e not in saved]
    record = base.model_copy(update={
        "status": "failed", "events": events, "error": reason,
        "wall_s": round(job.seconds, 3)})
    save_run(record, settings)
    mark(settings, thread_id, "cancelled", reason)
    try:
        service.discard(thread_id)  # its checkpoints are mid-run: nothing to resume
    except Exception:  # noqa: BLE001 - the record and the note say what happened
        pass
    return record


def cancel(thread_id: str) -> bool:
    """Ask the run's job to stop at its next stage; False when it is not running here."""
    running = jobs.cancel(thread_id)
    if running:
        cancel_flag.request(thread_id)  # the graph's branches see it between stages
    return running


def discard(service: Any, settings: Settings, thread_id: str) -> None:
    """Forget a plan under review: checkpoints deleted, the run marked discarded."""
    service.discard(thread_id)
    mark(settings, thread_id, "discarded", "Discarded at plan review by the analyst.")
