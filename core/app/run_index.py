"""What the Runs page needs beside the run records: notes, drafts, status, search.

A run's *note* (kept beside the run records by the storage's run store) holds what the
analyst adds to a run: tags, the plan draft being edited at review (so a refresh keeps the
edits), and the run's end when it did not end by itself (``discarded`` at review, ``cancelled``
while running). ``summaries`` reads every record once per change of its file and
gives the list the Runs page shows, with the status an analyst means (``review``,
``running``, ``done``, ``failed``, ``cancelled``, ``discarded``, ``interrupted``);
``search`` filters it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime
from typing import Literal

from pydantic import BaseModel, Field

from core.app.plan_draft import StepDraft
from core.app.runs import RunRecord, all_runs
from core.foundation.config import Settings
from core.foundation.errors import AppError

_RUN_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_TAG = re.compile(r"[^\w .&/+-]")
_FORM_TAIL = re.compile(r"\s+(?:\d{1,2}-[A-Z]{1,3}\b|unknown\b).*$")
STATUSES = ("review", "running", "done", "failed", "cancelled", "discarded", "interrupted")
PREVIEW = 220


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class RunNote(BaseModel):
    """What the analyst added to a run (see the module docstring)."""

    run_id: str
    tags: list[str] = Field(default_factory=list)
    state: Literal["discarded", "cancelled"] | None = None
    state_at: str = ""
    state_reason: str = ""
    draft: list[StepDraft] | None = None
    draft_saved_at: str = ""


def _check(run_id: str) -> str:
    if not _RUN_ID.match(run_id or ""):
        raise AppError(f"Invalid run id {run_id!r}.")
    return run_id


def _store(settings: Settings):
    from core.store.storage import storage_for

    return storage_for(settings).runs()


def load_note(settings: Settings, run_id: str) -> RunNote:
    """The run's note (an empty one when there is none or it cannot be read)."""
    body = _store(settings).load_note(_check(run_id))
    try:
        return RunNote.model_validate_json(body) if body else RunNote(run_id=run_id)
    except ValueError:
        return RunNote(run_id=run_id)


def save_note(settings: Settings, note: RunNote) -> None:
    """Write the note (atomically)."""
    _store(settings).save_note(_check(note.run_id), note.model_dump_json(indent=1))


def delete_note(settings: Settings, run_id: str) -> None:
    _store(settings).delete_note(_check(run_id))


def clean_tags(tags: Iterable[str]) -> list[str]:
    """Tags trimmed, stripped of odd characters, at most 40 characters, unique, in order."""
    out: list[str] = []
    for tag in tags:
        t = _TAG.sub("", " ".join(str(tag).split()))[:40].strip()
        if t and t.lower() not in (o.lower() for o in out):
            out.append(t)
    return out


def set_tags(settings: Settings, run_id: str, tags: Iterable[str]) -> RunNote:
    note = load_note(settings, run_id).model_copy(update={"tags": clean_tags(tags)})
    save_note(settings, note)
    return note


def mark(settings: Settings, run_id: str, state: Literal["discarded", "cancelled"],
         reason: str = "") -> RunNote:
    """Record how a run ended when it did not end by itself; its draft is dropped."""
    note = load_note(settings, run_id).model_copy(update={
        "state": state, "state_at": _now(), "state_reason": reason, "draft": None})
    save_note(settings, note)
    return note


def save_draft(settings: Settings, run_id: str, drafts: Sequence[StepDraft]) -> RunNote:
    """Keep the plan being edited with the run (restored after a refresh)."""
    note = load_note(settings, run_id).model_copy(update={
        "draft": [d.model_copy(deep=True) for d in drafts], "draft_saved_at": _now()})
    save_note(settings, note)
    return note


def clear_draft(settings: Settings, run_id: str) -> None:
    note = load_note(settings, run_id)
    if note.draft is not None:
        save_note(settings, note.model_copy(update={"draft": None, "draft_saved_at": ""}))


# --- the list of runs ---------------------------------------------------------------


class RunSummary(BaseModel):
    """One row of the Runs page."""

    id: str
    kind: str
    question: str
    created: str
    status: str
    backend: str
    companies: list[str] = Field(default_factory=list)
    answer_preview: str = ""
    answer_text: str = Field(default="", description="The whole answer, for search.")
    tags: list[str] = Field(default_factory=list)
    seconds: float = 0.0
    calls: int = 0
    tokens: int = 0
    steps: int = 0
    error: str = ""

    @property
    def day(self) -> date | None:
        try:
            return datetime.fromisoformat(self.created).date()
        except ValueError:
            return None


def status_of(record: RunRecord, note: RunNote, running: set[str],
              waiting: set[str] | None = None) -> str:
    """The status an analyst means (see the module docstring)."""
    if note.state:
        return note.state
    if record.id in running:
        return "running"
    if record.status == "paused":
        return "review" if waiting is None or record.id in waiting else "interrupted"
    if record.status == "running":
        return "interrupted"
    return record.status


def companies_of(record: RunRecord, doc_names: Mapping[str, str]) -> list[str]:
    """Companies a run was about: its scope, its plan's filings and its evidence."""
    ids = list(record.doc_scope) + [d for s in record.plan for d in s.doc_ids]
    evidence = list(record.evidence) or (list(record.answer.evidence) if record.answer else [])
    names = [doc_names[d] for d in ids if d in doc_names]
    for ev in evidence:
        if ev.kind != "chunk":
            continue
        names.append(doc_names.get(ev.doc_id or "")
                     or _FORM_TAIL.sub("", ev.label.split(" — ")[0]).strip())
    return list(dict.fromkeys(n for n in names if n))


def answer_preview(record: RunRecord, limit: int = PREVIEW) -> str:
    text = record.answer.text if record.answer else (record.error or "")
    text = re.sub(r"\(Offline engine:[^)]*\)", "", text)
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def summaries(settings: Settings, *, doc_names: Mapping[str, str] | None = None,
              running: Iterable[str] = (), waiting: Iterable[str] | None = None
              ) -> list[RunSummary]:
    """Every saved run as a Runs-page row, newest first."""
    running_ids = set(running)
    waiting_ids = set(waiting) if waiting is not None else None
    names = dict(doc_names or {})
    rows = []
    for r in all_runs(settings):
        note = load_note(settings, r.id)
        u = r.total_usage
        rows.append(RunSummary(
            id=r.id, kind=r.kind, question=r.question, created=r.created,
            status=status_of(r, note, running_ids, waiting_ids), backend=r.backend,
            companies=companies_of(r, names), answer_preview=answer_preview(r),
            answer_text=r.answer.text if r.answer else "", tags=note.tags,
            seconds=r.wall_s, calls=u.calls, tokens=u.total,
            steps=len({h.step for h in r.history}) if r.kind == "deep" else 1,
            error=note.state_reason or r.error or ""))
    return sorted(rows, key=lambda s: (s.created, s.id), reverse=True)


def search(rows: Sequence[RunSummary], *, text: str = "", companies: Iterable[str] = (),
           statuses: Iterable[str] = (), backends: Iterable[str] = (),
           kinds: Iterable[str] = (), tags: Iterable[str] = (),
           since: date | None = None, until: date | None = None) -> list[RunSummary]:
    """Rows matching every given filter; ``text``: every word in question, answer, tags or
    companies (case-insensitive)."""
    words = [w for w in text.casefold().split() if w]
    want = {k: set(v) for k, v in (("companies", companies), ("statuses", statuses),
                                   ("backends", backends), ("kinds", kinds), ("tags", tags))}
    out = []
    for r in rows:
        hay = " ".join([r.question, r.answer_text or r.answer_preview, r.id, *r.tags,
                        *r.companies]).casefold()
        if words and not all(w in hay for w in words):
            continue
        if want["companies"] and not want["companies"] & set(r.companies):
            continue
        if want["statuses"] and r.status not in want["statuses"]:
            continue
        if want["backends"] and r.backend not in want["backends"]:
            continue
        if want["kinds"] and r.kind not in want["kinds"]:
            continue
        if want["tags"] and not want["tags"] & set(r.tags):
            continue
        if (since or until) and r.day is None:
            continue
        if since and r.day < since or until and r.day > until:
            continue
        out.append(r)
    return out
