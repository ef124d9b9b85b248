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
    plan: list[PlanStep] = Field(default_factory=list)
    plan_source: str = ""
    events: RecordedEvents = Field(default_factory=list, description="Every event, in order.")
    history: list[StepRecord] = Field(default_factory=list)
    revisions: list[Revision] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list, description="[n] is evidence[n - 1].")
    answer: Answer | None = None
    usage: dict[str, RoleUsage] = Field(default_factory=dict, description="Per role.")
    timings_ms: dict[str, float] = Field(default_factory=dict, description="Per node, summed.")
    wall_s: float = Field(default=0.0, description="Wall time of the run (review excluded).")
    stop_reason: StopReason | None = None
    warnings: list[str] = Field(default_factory=list)
    error: str | None = None

    @property
    def total_usage(self) -> RoleUsage:
        return total_usage(self.usage)


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
