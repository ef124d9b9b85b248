"""ResearchService: the one facade the UI and the CLI use to run the deep research agent.

    svc = ResearchService(settings, retriever, web, llm, corpus_info)
    thread_id, plan, events = svc.start("question")   # pauses at plan review
    stream = svc.resume(thread_id, edited_plan_or_None)
    for event in stream: ...                          # typed events, live
    record = stream.record                            # the saved RunRecord

Paused runs live in the SQLite checkpointer under ``settings.data_dir`` and a
``paused`` RunRecord under ``settings.runs_dir``, so a new process can resume them.
A run a server restart interrupted mid-research is continued from its last checkpoint by
``continue_run(thread_id)`` (the node that was running when it stopped runs again).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import Any

from langgraph.types import Command

from core.agent.deps import AgentDeps, CorpusInfo, fact_source
from core.agent.events import Error, EventBase
from core.agent.events import Warning as WarningEvent
from core.agent.graph import build_graph
from core.agent.plan_edit import check_plan
from core.agent.state import PlanStep
from core.app.checkpointing import open_checkpointer
from core.app.runs import (
    RunRecord,
    answered_by,
    list_runs,
    load_run,
    new_run_id,
    record_from_state,
    save_run,
    spent_before,
)
from core.foundation.cache import open_cache
from core.foundation.config import Settings
from core.foundation.errors import AppError, StoreError, require_question
from core.store.checkpoints import close_checkpointer

log = logging.getLogger(__name__)
APPROVE = "approve"
NODES_PER_STEP = 8


class RunStream:
    """Iterate to receive a run's events; ``record`` is set once iteration ends."""

    def __init__(self, gen: Iterator[EventBase]):
        self._gen = gen
        self.record: RunRecord | None = None

    def __iter__(self) -> Iterator[EventBase]:
        self.record = yield from self._gen

    def run(self) -> RunRecord:
        """Consume every event and return the final record."""
        for _ in self:
            pass
        assert self.record is not None
        return self.record


class ResearchService:
    """Start, review, resume and list deep research runs (see the module docstring)."""

    def __init__(self, settings: Settings, retriever: Any, web: Any, llm: Any,
                 corpus_info: CorpusInfo, *, reranker: Any = None, embedder: Any = None,
                 store: Any = None, checkpointer: Any = None):
        self.settings = settings
        self.store = store
        generation = store.registry.generation if store is not None else None
        self.deps = AgentDeps(settings=settings, retriever=retriever, corpus=corpus_info,
                              web=web, llm=llm, reranker=reranker, embedder=embedder,
                              cache=open_cache(settings), corpus_generation=generation,
                              facts=fact_source(store if store is not None
                                                else getattr(retriever, "store", None)))
        self.checkpointer = checkpointer or open_checkpointer(settings)
        self.graph = build_graph(self.deps, self.checkpointer)

    @classmethod
    def from_corpus(cls, settings: Settings, corpus: Any, *, llm: Any = None, web: Any = None,
                    checkpointer: Any = None) -> ResearchService:
        """Build from a ``core.app.corpus.Corpus`` (its retriever, reranker, embedder, store)."""
        return cls(settings, corpus.retriever, web, llm, CorpusInfo.from_store(corpus.store),
                   reranker=corpus.reranker, embedder=corpus.embedder, store=corpus.store,
                   checkpointer=checkpointer)

    # --- helpers ------------------------------------------------------------
    def _config(self, thread_id: str) -> dict:
        s = self.settings
        limit = (s.max_steps + s.max_revisions + 2) * NODES_PER_STEP + 10
        return {"configurable": {"thread_id": thread_id}, "recursion_limit": limit}

    def _events(self, graph_input: Any, thread_id: str) -> Iterator[EventBase]:
        for _ns, mode, chunk in self.graph.stream(graph_input, self._config(thread_id),
                                                  stream_mode=["updates", "custom"],
                                                  subgraphs=True):  # a step's events too
            if mode == "custom" and isinstance(chunk, EventBase):
                yield chunk

    def _waiting(self, thread_id: str) -> bool:
        snap = self.graph.get_state(self._config(thread_id))
        return bool(snap and "review" in (snap.next or ()))

    def refresh_corpus(self) -> None:
        """Re-read documents and sections from the store (after ingesting or deleting)."""
        if self.store is not None:
            self.deps.corpus = CorpusInfo.from_store(self.store)

    # --- public API ---------------------------------------------------------
    def start(self, question: str, doc_ids: list[str] | None = None, *,
              review: str = "always", started_at: float | None = None,
              thread: dict[str, Any] | None = None
              ) -> tuple[str, list[PlanStep], list[EventBase]]:
        """Plan ``question`` and pause for review: ``(thread_id, plan, events so far)``.

        ``review="auto"``: a simple question the router sends down the fast path is not
        paused; it runs to its answer here and its record is saved as done.
        ``started_at``: epoch seconds the command started (the CLI's process start): the
        run's clock, and so ``max_wall_s``, counts from it, start-up included
        (``RunRecord.startup_s``); None: from now. ``thread``: the record's conversation
        fields of a follow-up (``follows``, ``asked_as``, ``carried``)."""
        require_question(question, offline=self.deps.llm is None)
        self.refresh_corpus()
        known = {d.doc_id for d in self.deps.corpus.documents}
        unknown = [d for d in doc_ids or [] if d not in known]
        if unknown:
            raise AppError(f"Unknown document id(s) {', '.join(unknown)}; "
                           "`python -m core docs` lists the ids.")
        thread_id = new_run_id()
        inputs = {"question": question.strip(), "doc_scope": list(doc_ids or []),
                  "review": review}
        startup = 0.0
        if started_at is not None:
            inputs["started_at"] = started_at
            startup = round(max(0.0, self.deps.clock() - started_at), 3)
        t0 = time.perf_counter()
        events = list(self._events(inputs, thread_id))
        values = self.graph.get_state(self._config(thread_id)).values
        spent = round(time.perf_counter() - t0, 3)
        account = self._account(thread_id)
        if not self._waiting(thread_id):  # the fast path ran without review
            base = RunRecord(id=thread_id, question=question.strip(), status="done",
                             backend=self.deps.backend, doc_scope=list(doc_ids or []),
                             **(thread or {}),
                             events=events, llm=account, planning_s=spent, startup_s=startup)
            record = self._labelled(record_from_state(thread_id, values, base, startup + spent))
            save_run(record, self.settings)
            return thread_id, list(values.get("plan", [])), events
        plan = list(values.get("plan", []))
        record = RunRecord(id=thread_id, question=question.strip(), status="paused",
                           backend=self.deps.backend, doc_scope=list(doc_ids or []), plan=plan,
                           **(thread or {}),
                           plan_source=values.get("plan_source", ""), events=events,
                           usage=values.get("usage", {}), warnings=values.get("warnings", []),
                           wall_s=round(startup + spent, 3), planning_s=spent,
                           startup_s=startup, llm=account)
        save_run(record, self.settings)
        return thread_id, plan, events

    def _account(self, thread_id: str):
        """What the LLM endpoint did for this run since the last call (``LLMAccount``)."""
        assert self.deps.guards is not None
        return self.deps.guards.get(thread_id).take_account()

    def _labelled(self, record: RunRecord) -> RunRecord:
        """``record`` with the backend that really answered (``answered_by``)."""
        label = answered_by(self.deps.backend, record.llm, record.total_usage.cache_hits)
        return record.model_copy(update={"backend": label})

    def pending_plan(self, thread_id: str) -> list[PlanStep]:
        """The plan a paused run waits on; raises ``AppError`` if it is not paused."""
        if not self._waiting(thread_id):
            raise AppError(f"Run {thread_id} is not waiting for plan review.")
        return list(self.graph.get_state(self._config(thread_id)).values["plan"])

    def resume(self, thread_id: str, plan: Any = None, *,
               started_at: float | None = None, reading: Any = None) -> RunStream:
        """Resume a paused run with the plan as proposed (None) or edited.

        The edit is validated first: ``PlanValidationError`` leaves the paused run intact.
        ``started_at``: when the command that resumes it in a new process started; its
        start-up counts in the run's clock as the first process's did (not the review wait).
        """
        if not self._waiting(thread_id):
            raise AppError(f"Run {thread_id} is not waiting for plan review "
                           "(finished, unknown, or started with another data folder).")
        value: Any = APPROVE
        if plan is not None:
            steps = check_plan(plan, self.deps.corpus.sections,
                               web_available=self.deps.web_available)
            value = [s.model_dump() for s in steps]
        update = {"reading": reading} if reading is not None else {}
        if started_at is None:
            return RunStream(self._resume(thread_id, Command(resume=value, update=update or None)))
        startup = max(0.0, self.deps.clock() - started_at)
        planned = self.graph.get_state(self._config(thread_id)).values.get("planning_s", 0.0)
        saved = self._saved(thread_id)
        before = (saved.startup_s + saved.planning_s) if saved else planned
        command = Command(resume=value, update={"planning_s": planned + startup, **update})
        return RunStream(self._resume(thread_id, command, spent=round(before + startup, 3)))

    def can_continue(self, thread_id: str) -> bool:
        """True when the run stopped mid-research (not at review, not finished): its last
        checkpoint has tasks left (``next``), or tasks whose writes were saved but not yet
        applied (a stop right after a node finished)."""
        snap = self.graph.get_state(self._config(thread_id))
        names = set(snap.next) | {t.name for t in snap.tasks} if snap else set()
        return bool(names) and "review" not in names

    def continue_run(self, thread_id: str, *, started_at: float | None = None) -> RunStream:
        """Continue an interrupted run from its last checkpoint; ``AppError`` if it cannot.

        The run keeps its wall-time budget: what it spent before the interruption counts
        (``spent_before``), the time it was stopped does not; ``started_at`` (the command's
        start, as in ``start``) counts this process's start-up too."""
        if not self.can_continue(thread_id):
            raise AppError(f"Run {thread_id} has nothing to continue (it finished, waits for "
                           "plan review, is unknown, or was started with another data folder).")
        snap = self.graph.get_state(self._config(thread_id))
        nxt = ", ".join(sorted(set(snap.next) | {t.name for t in snap.tasks}))
        saved = self._saved(thread_id)
        spent = spent_before(snap.values.get("started_at"), [snap.created_at] + [
            e.at for e in (saved.events if saved else [])], self.settings.max_wall_s)
        now = self.deps.clock()
        startup = 0.0 if started_at is None else max(0.0, now - started_at)
        assert self.deps.guards is not None
        self.deps.guards.get(thread_id).begin(now - startup - spent, self.settings.max_wall_s)
        note = WarningEvent(node="graph", message=(
            f"Continued from the last checkpoint after an interruption (next: {nxt}); the trace "
            "is saved after each step, so a step cut short appears again from its start. "
            f"{spent:.1f} s of the run's {self.settings.max_wall_s:g} s limit (DTR_MAX_WALL_S) "
            "were spent before the interruption; the time it was stopped does not count."))
        return RunStream(self._resume(thread_id, None, first=note,
                                      spent=round(spent + startup, 3)))

    def _saved(self, thread_id: str) -> RunRecord | None:
        try:
            return load_run(self.settings, thread_id)
        except AppError:
            return None

    def _resume(self, thread_id: str, graph_input: Any, first: EventBase | None = None,
                spent: float | None = None) -> Iterator[EventBase]:
        """Stream the run on from its checkpoint; ``spent``: seconds of the run before this
        part (default: the record's start-up and planning)."""
        from core.llm.failures import redact
        from core.store.storage import failure_message

        try:
            base = load_run(self.settings, thread_id)
        except AppError:
            snap = self.graph.get_state(self._config(thread_id)).values
            base = RunRecord(id=thread_id, question=snap.get("question", ""),
                             backend=self.deps.backend)
        events = list(base.events)
        before = base.startup_s + base.planning_s if spent is None else spent
        base = base.model_copy(update={"status": "running"})
        t0 = time.perf_counter()
        if first is not None:
            events.append(first)
            yield first
        try:
            for event in self._events(graph_input, thread_id):
                events.append(event)
                if event.type == "policy_decided":  # progress: a restart keeps the trace
                    save_run(base.model_copy(update={"events": events}), self.settings)
                yield event
        except Exception as exc:  # noqa: BLE001 - reported as an event and on the record
            msg = redact(failure_message(exc, self.settings)
                         or f"The run failed: {type(exc).__name__}: {exc}", self.settings)
            log.error("run %s: %s", thread_id, msg)  # redacted; no raw traceback with secrets
            err = Error(node="graph", message=msg)
            events.append(err)
            yield err
            record = self._labelled(base.model_copy(update={
                "status": "failed", "events": events, "error": msg,
                "llm": base.llm + self._account(thread_id),
                "wall_s": round(before + time.perf_counter() - t0, 3)}))
            try:
                save_run(record, self.settings)
            except StoreError as save_exc:  # the store itself is gone: the message says so
                log.warning("run %s not saved: %s", thread_id, save_exc)
            return record
        values = self.graph.get_state(self._config(thread_id)).values
        record = self._labelled(record_from_state(thread_id, values, base.model_copy(
            update={"status": "done", "events": events,
                    "llm": base.llm + self._account(thread_id)}),
            before + time.perf_counter() - t0))
        save_run(record, self.settings)
        return record

    def ask(self, question: str, approve: bool = True, doc_ids: list[str] | None = None,
            plan: Any = None, review: str = "always") -> RunRecord:
        """Start and (when ``approve``) resume at once; returns the final or paused record."""
        thread_id, _, _ = self.start(question, doc_ids, review=review)
        if (not approve and plan is None) or not self._waiting(thread_id):
            return load_run(self.settings, thread_id)
        return self.resume(thread_id, plan).run()

    def paused_runs(self) -> list[RunRecord]:
        """Saved runs still waiting for plan review, newest first."""
        return [r for r in list_runs(self.settings, status="paused") if self._waiting(r.id)]

    def discard(self, thread_id: str) -> None:
        """Forget a run's checkpoints (its saved record, if any, stays)."""
        self.checkpointer.delete_thread(thread_id)

    def close(self) -> None:
        close_checkpointer(self.checkpointer)
