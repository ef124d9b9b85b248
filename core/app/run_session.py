"""The life of one research run as a page (or the CLI) sees it: a typed session, no strings.

``start`` plans a question and pauses it for review (or answers a fast-path question at
once). ``open_run`` tells what run ``thread_id`` is *now* (a ``Phase``) — waiting for plan
review (with the analyst's saved draft), researching in a background job of this server,
finished, cancelled, discarded, interrupted by a server restart, or unknown — from the
checkpointer, the run record, the run's note and the job registry. Under review,
``RunSession.editable_steps`` is the plan to edit (the saved draft, else the proposal),
``save_draft`` keeps each edit with the run (a refresh restores it) and ``reset_draft``
goes back to the proposal; ``approve_edits`` (or ``approve``) starts the research in a
background job; ``cancel`` stops it at its next event and saves what it did; ``discard``
forgets a plan under review and marks the run discarded; ``continue_run`` continues an
interrupted run from its last checkpoint in a background job (``resumable`` says whether
it can). A page renders the session's ``phase``; it keeps no state machine of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from core.agent import cancel as cancel_flag
from core.agent.events import EventBase, PlanProposed
from core.agent.state import PlanStep
from core.app import jobs
from core.app.plan_draft import StepDraft, drafts_from_plan, to_plan
from core.app.run_index import clear_draft, load_note, mark
from core.app.run_index import save_draft as _save_draft
from core.app.runs import RunRecord, is_run_id, load_run, save_run
from core.foundation.config import Settings
from core.foundation.errors import AppError


class Phase(StrEnum):
    """What a run is now (equal to its lower-case name as a string, for the CLI and JSON)."""

    REVIEW = "review"
    """Planned and paused: the analyst reviews (and edits) the plan."""
    RUNNING = "running"
    """Researching in a background job of this server."""
    DONE = "done"
    """Finished (with an answer, or failed with its error on the record)."""
    CANCELLED = "cancelled"
    DISCARDED = "discarded"
    INTERRUPTED = "interrupted"
    """It was running when the server stopped (``resumable``: it can continue)."""
    MISSING = "missing"


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

    @property
    def restored(self) -> bool:
        """The analyst's saved edits are what ``editable_steps`` gives back."""
        return self.draft is not None

    def editable_steps(self) -> list[StepDraft]:
        """The plan to edit at review: the saved draft (a refresh keeps edits), else the
        proposal as drafts."""
        if self.draft is not None:
            return [d.model_copy(deep=True) for d in self.draft]
        return drafts_from_plan(self.plan)


def start(service: Any, question: str, scope: Sequence[str] | None = None, *,
          always_review: bool = False) -> str:
    """Plan ``question`` (limited to the filings ``scope``); the new run's id. It waits for
    review, or, for a fast-path question when ``always_review`` is off, is answered already.

    Raises ``AppError`` (an empty question, an unknown filing)."""
    thread_id, _, _ = service.start(question, list(scope) if scope else None,
                                    review="always" if always_review else "auto")
    return thread_id


def save_draft(settings: Settings, thread_id: str, drafts: Sequence[StepDraft]) -> None:
    """Keep the analyst's edits of a plan under review with the run (``open_run`` restores
    them after a refresh or a restart)."""
    _save_draft(settings, thread_id, drafts)


def reset_draft(settings: Settings, thread_id: str) -> None:
    """Drop the saved edits: the plan under review is the proposal again."""
    clear_draft(settings, thread_id)


def open_run(service: Any, settings: Settings, thread_id: str) -> RunSession:
    """What run ``thread_id`` is now."""
    if not is_run_id(thread_id):  # a hand-edited or hostile link: said, never looked up
        shown = "".join(ch for ch in str(thread_id)[:40] if ch.isprintable())
        return RunSession(str(thread_id)[:64], Phase.MISSING,
                          message=f"'{shown}' is not a run id (ids look like "
                                  "20261201-164601-969654ee); ask a new question.")
    note = load_note(settings, thread_id)
    try:
        record = load_run(settings, thread_id)
    except AppError:
        record = None
    question = record.question if record else ""
    events = list(record.events) if record else []
    job = jobs.get(thread_id)
    if job is not None and not job.done:
        return RunSession(thread_id, Phase.RUNNING, question, events, record=record, job=job)
    if note.state == "discarded":
        return RunSession(thread_id, Phase.DISCARDED, question, events, record=record,
                          message="This plan was discarded at review; ask the question again "
                                  "to get a new plan.")
    try:
        plan = service.pending_plan(thread_id)
    except AppError:
        plan = None
    if plan is not None:
        return RunSession(thread_id, Phase.REVIEW, question, events, plan=list(plan),
                          draft=note.draft, draft_saved_at=note.draft_saved_at, record=record)
    if record is None:
        return RunSession(thread_id, Phase.MISSING,
                          message=f"No run {thread_id} in this data folder; ask a new question.")
    if note.state == "cancelled":
        return RunSession(thread_id, Phase.CANCELLED, question, events, record=record, job=job,
                          message=note.state_reason or "This run was cancelled.")
    if record.status in ("done", "failed"):
        return RunSession(thread_id, Phase.DONE, question, events, record=record, job=job)
    resumable = _can_continue(service, thread_id)
    more = (" Continue it from its last checkpoint." if resumable
            else " It has no checkpoint to continue from.")
    age = _seconds_since_saved(settings, thread_id)
    if resumable and age is not None and age < settings.max_wall_s:
        more += (f" Its trace was saved {age:.0f} s ago: if it is still running in another "
                 "process (a CLI run, another app replica), let it finish instead.")
    return RunSession(thread_id, Phase.INTERRUPTED, question, events, record=record,
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


def approve_edits(service: Any, settings: Settings, session: RunSession,
                  drafts: Sequence[StepDraft], reading: Any = None) -> jobs.Job:
    """Approve the plan as the analyst left it: unchanged edits approve the proposal as it
    is (so the run records no edit); ``reading``, when the analyst corrected it, goes with
    the run (the answer says it). Raises like ``approve``."""
    from core.agent.plan_edit import normalise_plan

    plan = to_plan(list(drafts))
    proposed = [s.model_dump() for s in normalise_plan(list(session.plan))]
    same = [s.model_dump() for s in normalise_plan(plan)] == proposed
    return approve(service, settings, session.thread_id, None if same else plan,
                   reading=reading)


def corrected_plan(service: Any, drafts: Sequence[StepDraft], reading: Any
                   ) -> list[StepDraft]:
    """The drafts with their figure steps made again from the analyst's ``reading``.

    Raises ``AppError`` when the reading's slots make no plan (said so the analyst can
    change them); the drafts are then as they were."""
    from core.agent.roles.analysis_plan import reading_steps
    from core.app.plan_draft import with_reading_steps

    steps = reading_steps(reading, service.deps.corpus.documents)
    if not steps:
        raise AppError("That reading makes no figure plan: choose at least one company and "
                       "a measure of the catalogue (and a threshold for above / below).")
    return with_reading_steps(drafts, steps)


def approve(service: Any, settings: Settings, thread_id: str,
            plan: list[PlanStep] | None, reading: Any = None) -> jobs.Job:
    """Resume the paused run with ``plan`` (None: as proposed) in a background job.

    Raises ``PlanValidationError`` (the run stays under review) or ``AppError``."""
    stream = service.resume(thread_id, plan, reading=reading)
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
