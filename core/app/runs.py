"""Run records: what a deep or baseline run did, saved as JSON in the storage's run store
(files under ``settings.runs_dir``, or the team database: ``core.store.storage``).

A record keeps the question, plan, every event (so a UI can replay the run as it
happened), the numbered evidence, the cited answer, usage, timings and why the
run stopped. Records are scrubbed of configured keys when saved and exported.
"""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from core.agent.stages import RecordedEvents
from core.agent.state import (
    Answer,
    Evidence,
    PlanStep,
    Revision,
    RoleUsage,
    StepRecord,
    StopReason,
    total_usage,
)
from core.foundation.config import Settings
from core.foundation.errors import AppError
from core.llm.usage import LLMAccount
from core.store.run_store import RunStore

_RUN_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def new_run_id() -> str:
    """A fresh run id (also the graph's thread id)."""
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:8]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class RunRecord(BaseModel):
    """One run, deep or baseline, as saved and exported."""

    id: str = Field(default_factory=new_run_id, description="Run id = graph thread id.")
    kind: Literal["deep", "baseline"] = "deep"
    question: str
    created: str = Field(default_factory=_now, description="UTC time the run started.")
    status: Literal["paused", "running", "done", "failed"] = "done"
    backend: str = Field(default="offline engine", description="LLM model or 'offline engine'.")
    doc_scope: list[str] = Field(default_factory=list)
    follows: str | None = Field(default=None, description="The run this one follows up in the "
                                "same conversation (its id), None for a first question.")
    asked_as: str = Field(default="", description="The follow-up's words as the analyst typed "
                          "them ('and AMD?'), when ``question`` is their standalone form.")
    carried: list[str] = Field(default_factory=list, description="What the follow-up took "
                               "from the previous question (companies, measure, periods).")
    plan: list[PlanStep] = Field(default_factory=list)
    plan_source: str = ""
    events: RecordedEvents = Field(default_factory=list, description="Every event, in order.")
    history: list[StepRecord] = Field(default_factory=list)
    revisions: list[Revision] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list, description="[n] is evidence[n - 1].")
    answer: Answer | None = None
    usage: dict[str, RoleUsage] = Field(default_factory=dict, description="Per role.")
    timings_ms: dict[str, float] = Field(default_factory=dict, description="Per node, summed.")
    wall_s: float = Field(default=0.0, description="Wall time of the run: the command's "
                          "start-up, planning and research, the wait for plan review excluded.")
    startup_s: float = Field(default=0.0, description="Of wall_s, the seconds the command "
                             "spent starting (libraries, corpus, models) before the run's "
                             "graph started (0 where the services were already loaded).")
    planning_s: float = Field(default=0.0, description="Of wall_s, the seconds spent routing "
                              "and planning (before review).")
    llm: LLMAccount = Field(default_factory=LLMAccount, description="What the LLM endpoint "
                            "did: requests answered, failed, not sent; the last failure.")
    stop_reason: StopReason | None = None
    warnings: list[str] = Field(default_factory=list)
    error: str | None = None

    @property
    def total_usage(self) -> RoleUsage:
        return total_usage(self.usage)

    @property
    def llm_note(self) -> str:
        """One sentence on who wrote the answer when an LLM was configured and failed or
        replied with nothing usable, naming the roles it answered and those that fell back to
        the offline rule: "" when it answered every call (or none was configured)."""
        a = self.llm
        cached = self.total_usage.cache_hits
        if a.never_answered and not cached:
            why = a.reason or "no run time left"
            verb = "did not answer" if why.startswith(("no reply", "no run time")) else "failed"
            return (f"The LLM {verb} ({why}; {a.failed} request(s) failed, {a.skipped} not "
                    f"sent); the offline engine wrote this answer.{self._roles()}")
        if a.never_usable and not cached:
            return (f"The LLM replied to {a.replies} request(s) but no reply could be used "
                    f"({a.unusable_reason}); the offline engine wrote this answer."
                    f"{self._roles()}")
        if a.failed or a.unusable:
            why = "; ".join(part for part in (
                f"{a.failed} failed: {a.reason}" if a.failed else "",
                f"{a.unusable} call(s) got no usable reply: {a.unusable_reason}"
                if a.unusable else "") if part)
            return (f"The LLM answered {a.replies} of {a.replies + a.failed} request(s) ({why}); "
                    f"the offline engine's rules stood in for the rest.{self._roles()}")
        return ""

    def _roles(self) -> str:
        """" Answered by the LLM: planner. Offline rule: rewriter (2), distiller." per role."""
        said = [r for r, u in self.usage.items() if u.answered]
        fell = [f"{r} ({u.fallbacks})" if u.fallbacks > 1 else r
                for r, u in self.usage.items() if u.fallbacks]
        return "".join(f" {head}: {', '.join(names)}." for head, names in (
            ("Answered by the LLM", said), ("Offline rule", fell)) if names)


def answered_by(backend: str, account: LLMAccount, cache_hits: int = 0) -> str:
    """The run's backend label as it ran: the configured model's (``llm:gpt-4o-mini``), or
    ``offline engine (LLM failed: HTTP 500)`` when an LLM was configured and no request got a
    reply (none served from the cache either), so the offline engine answered."""
    if not backend.startswith("llm:") or cache_hits:
        return backend
    if account.never_usable:
        return f"offline engine (LLM replies unusable: {account.unusable_reason})"
    if not account.never_answered:
        return backend
    if not account.reason:
        return "offline engine (LLM not called: no run time left)"
    if account.reason.startswith(("no reply", "no run time")):
        return f"offline engine (the LLM did not answer: {account.reason})"
    return f"offline engine (LLM failed: {account.reason})"


def spent_before(started_at: float | None, moments: list[str | None],
                 max_wall_s: float) -> float:
    """Seconds an interrupted run had spent, from its clock's start (epoch ``started_at``) to
    its last trace of life (the latest of ``moments``, ISO times: its last checkpoint, the last
    event its record kept); at most ``max_wall_s``; 0 without a clock (an older checkpoint)."""
    times = [_epoch(m) for m in moments if m]
    times = [t for t in times if t is not None]
    if started_at is None or not times:
        return 0.0
    return round(min(max(0.0, max(times) - started_at), max_wall_s), 3)


def _epoch(iso: str) -> float | None:
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def is_run_id(text: str | None) -> bool:
    """Whether ``text`` has the form of a run id (letters, digits, - and _, at most 64)."""
    return bool(_RUN_ID.match(text or ""))


def _check(run_id: str) -> str:
    if not _RUN_ID.match(run_id or ""):
        raise AppError(f"Invalid run id {run_id!r}: use the id shown by the run list.")
    return run_id


def _store(settings: Settings) -> RunStore:
    from core.store.storage import storage_for

    return storage_for(settings).runs()


def scrub(text: str, settings: Settings) -> str:
    """``text`` without configured keys or key-looking tokens."""
    from core.llm.failures import redact

    return redact(text, settings)


def export_json(record: RunRecord, settings: Settings) -> str:
    """The record as indented JSON, keys scrubbed."""
    return scrub(record.model_dump_json(indent=2), settings)


def save_run(record: RunRecord, settings: Settings) -> str:
    """Save the record (atomically; replaces an earlier save) and return where it went."""
    store = _store(settings)
    store.save(_check(record.id), export_json(record, settings))
    return store.where


def load_run(settings: Settings, run_id: str) -> RunRecord:
    """The saved record ``run_id``; raises ``AppError`` when there is none."""
    store = _store(settings)
    body = store.load(_check(run_id))
    if body is None:
        raise AppError(f"No saved run {run_id!r} in {store.where}.")
    try:
        return RunRecord.model_validate_json(body)
    except ValueError:
        raise AppError(f"The record of run {run_id} in {store.where} cannot be read (truncated "
                       f"or not a run record); it is left as it is. `python -m core doctor` "
                       f"reports it; `python -m core runs --delete {run_id}` removes it.") from None


def all_runs(settings: Settings) -> list[RunRecord]:
    """Every saved record that can be read, in no particular order (parsed once per save)."""
    return _store(settings).records(RunRecord.model_validate_json)


def shown_status(record: RunRecord, settings: Settings) -> str:
    """The record's status, except that a run saved as running which started longer ago
    than the wall-clock bound (``DTR_MAX_WALL_S``) allows cannot still be running: its
    process died (killed, a restart) and it is ``interrupted``."""
    if record.status != "running":
        return record.status
    try:
        started = datetime.fromisoformat(record.created)
    except ValueError:
        return record.status
    if started.tzinfo is None:
        started = started.replace(tzinfo=UTC)
    age = (datetime.now(UTC) - started).total_seconds()
    return "interrupted" if age > settings.max_wall_s + 60 else "running"


def unreadable_runs(settings: Settings) -> list[str]:
    """Ids of saved records that cannot be read (truncated, corrupt), never hidden."""
    store = _store(settings)
    store.records(RunRecord.model_validate_json)
    return list(getattr(store, "unreadable", []))


def list_runs(settings: Settings, *, status: str | None = None) -> list[RunRecord]:
    """Saved records, newest first (optionally only one status)."""
    out = [r.model_copy() for r in all_runs(settings)  # copies: the parsed ones are cached
           if status is None or r.status == status]
    return sorted(out, key=lambda r: (r.created, r.id), reverse=True)


def delete_run(settings: Settings, run_id: str) -> bool:
    """Delete a saved record; False when it did not exist."""
    return _store(settings).delete(_check(run_id))


def export_markdown(record: RunRecord, settings: Settings,
                    names: dict[str, str] | None = None) -> str:
    """A readable Markdown report of the run (``core.app.report``): the analyst's plan edits
    recorded, active content stripped from evidence, demo web articles labelled, keys
    scrubbed. ``names`` maps document ids to filing names."""
    from core.app.report import render_markdown
    from core.retrieval.web_saved import provenance_of

    return scrub(render_markdown(record, names=names,
                                 provenance=lambda url: provenance_of(url, settings)), settings)


def record_from_state(run_id: str, values: dict[str, Any], base: RunRecord,
                      wall_s: float) -> RunRecord:
    """Fill ``base`` (question, events, created...) from the graph's final state values."""
    answer = values.get("answer")
    return base.model_copy(update={
        "id": run_id,
        "plan": values.get("plan", base.plan),
        "plan_source": values.get("plan_source", base.plan_source),
        "history": values.get("history", []),
        "revisions": values.get("revisions", []),
        "evidence": answer.evidence if answer else [],
        "answer": answer,
        "usage": values.get("usage", {}),
        "timings_ms": values.get("timings_ms", {}),
        "wall_s": round(wall_s, 3),
        "stop_reason": values.get("stop"),
        "warnings": values.get("warnings", []),
    })
