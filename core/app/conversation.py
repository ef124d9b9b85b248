"""Follow-up questions in one conversation: "and AMD?", "what about 2023?", "rank them by net
margin instead" asked under a finished answer start a new run whose question is made
standalone from the previous one (``core.reading.followup``); the run's record keeps the run
it follows (``RunRecord.follows``), the words typed (``asked_as``) and what was carried over
(``carried``), so the conversation can be drawn again from the records alone (``earlier``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.app.runs import RunRecord, load_run
from core.foundation.config import Settings
from core.foundation.errors import AppError

MAX_TURNS = 20
"""The most earlier questions a conversation shows (a loop of ``follows`` ends there too)."""
_MARKER = re.compile(r"\s*\[\d+(?:\s*[,-]\s*\d+)*\]")


@dataclass
class Turn:
    """One earlier question of a conversation, as the screen lists it."""

    run_id: str
    question: str
    """What the analyst typed (the follow-up's own words when it was one)."""
    standalone: str
    """The question the run answered."""
    answer: str
    """The answer's first line, without citation markers ('' when the run has none)."""
    status: str


def first_line(record: RunRecord) -> str:
    """The answer's opening line without its [n] markers ('' when there is no answer)."""
    text = record.answer.text if record.answer is not None else ""
    line = next((ln.strip(" -*#>") for ln in text.splitlines() if ln.strip(" -*#>")), "")
    return _MARKER.sub("", line).strip()


def earlier(settings: Settings, record: RunRecord | None) -> list[Turn]:
    """The questions before ``record`` in its conversation, oldest first (its ``follows``
    chain; a run no longer saved ends it)."""
    turns: list[Turn] = []
    seen = {record.id} if record is not None else set()
    run_id = record.follows if record is not None else None
    while run_id and run_id not in seen and len(turns) < MAX_TURNS:
        seen.add(run_id)
        try:
            prev = load_run(settings, run_id)
        except AppError:
            break
        turns.append(Turn(prev.id, prev.asked_as or prev.question, prev.question,
                          first_line(prev), prev.status))
        run_id = prev.follows
    return list(reversed(turns))


def carried_line(record: RunRecord | None) -> str:
    """'You asked "and AMD?", read as "…" · carried from the previous question: operating
    margin, FY2024' for a follow-up run ('' for a first question)."""
    if record is None or not record.follows:
        return ""
    parts = []
    if record.asked_as and record.asked_as != record.question:
        parts.append(f"You asked \u201c{record.asked_as}\u201d, read as \u201c{record.question}"
                     "\u201d")
    if record.carried:
        parts.append("carried from the previous question: " + "; ".join(record.carried))
    return " · ".join(parts)


def ask_follow_up(service: Any, text: str, previous: RunRecord,
                  scope: Sequence[str] | None = None, *, always_review: bool = False
                  ) -> tuple[str, Any]:
    """Start the run ``text`` asks after ``previous``: ``(thread id, FollowUp)``. The
    question run is ``follow_up``'s standalone one; the record keeps ``previous.id``.

    Raises ``AppError`` (an empty question, an unknown filing)."""
    from core.reading.followup import follow_up

    words = " ".join((text or "").split())
    if not words:
        raise AppError("Type a follow-up question first.")
    if hasattr(service, "refresh_corpus"):
        service.refresh_corpus()
    documents = list(service.deps.corpus.documents)
    follow = follow_up(words, previous.question, documents, getattr(service.deps, "facts", None))
    thread = {"follows": previous.id, "asked_as": words if follow.question != words else "",
              "carried": list(follow.carried)}
    thread_id, _, _ = service.start(follow.question, list(scope) if scope else None,
                                    review="always" if always_review else "auto",
                                    thread=thread)
    return thread_id, follow
