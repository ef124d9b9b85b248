"""Typed progress events: the only thing a UI needs to render a run, live or replayed.

Nodes emit them through LangGraph's stream writer (``stream_mode="custom"``). Each event
says how it reads as a line of the CLI (``line``) and, unless a step card draws it with
widgets of its own, in its step's card (``card``, Markdown). The events of the outer graph
are ``RUN_EVENTS``; a step stage declares the events it emits in its registration
(``core.agent.stages``), where the union that rebuilds an event from JSON is made.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from core.agent.state import Coverage, Decision, PlanStep, RoleUsage, Strategy, Tool
from core.figures.model import FigureInput, FigureResult
from core.foundation.types import Fact, Hit, RerankerInfo, StageScore
from core.reading.model import Reading

PREVIEW_CHARS = 700


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class EventBase(BaseModel):
    """Fields every event carries."""

    node: str = Field(description="Graph node that emitted the event.")
    step: int | None = Field(default=None, description="0-based plan step index, if any.")
    elapsed_ms: float = Field(default=0.0, description="Time the node spent so far.")
    usage: RoleUsage | None = Field(default=None, description="LLM usage, when an LLM was called.")
    at: str = Field(default_factory=_now, description="UTC timestamp.")

    def line(self) -> str | None:
        """The event as the CLI prints it (a line or a few); None: not printed."""
        return None

    def card(self) -> str | None:
        """Text for the step card (plain, shown escaped), for an event the card has no
        widgets of its own for (a role added later); by default its CLI line."""
        return self.line()


def usage_note(event: EventBase) -> str:
    """'  (LLM 1 call(s), 420 tokens)' for an event that called the LLM; '' otherwise."""
    u = event.usage
    if u and u.cache_hits and not u.calls:
        return f"  (LLM: {u.cache_hits} cached)"
    cached = f", {u.cache_hits} cached" if u and u.cache_hits else ""
    return f"  (LLM {u.calls} call(s), {u.total} tokens{cached})" if u and u.calls else ""


class HitView(BaseModel):
    """A retrieved item as the UI shows it, with its score at every stage."""

    id: str = Field(description="Chunk id or URL.")
    kind: Literal["chunk", "web"]
    label: str = Field(description="Citation label (filing, section, page) or page title.")
    rank: int
    score: float
    stages: dict[str, StageScore] = Field(default_factory=dict)
    doc_id: str | None = None
    section: str | None = None
    page: int | None = None
    page_label: str | None = Field(default=None, description="The page number the filing "
                                   "prints on ``page``, when known.")
    url: str | None = None
    date: str | None = None
    text: str = Field(description=f"Text preview (first {PREVIEW_CHARS} characters).")

    @classmethod
    def from_hit(cls, hit: Hit) -> HitView:
        c = hit.chunk
        if c.doc_id == "web":
            return cls(id=c.chunk_id, kind="web", label=c.section, rank=hit.rank,
                       score=hit.score, stages=hit.stages, url=c.chunk_id,
                       date=(hit.document.period if hit.document else None),
                       text=c.text[:PREVIEW_CHARS])
        return cls(id=c.chunk_id, kind="chunk", label=hit.citation_label, rank=hit.rank,
                   score=hit.score, stages=hit.stages, doc_id=c.doc_id, section=c.section,
                   page=c.page, page_label=c.page_label, text=c.text[:PREVIEW_CHARS])


class RouteChosen(EventBase):
    type: Literal["route_chosen"] = "route_chosen"
    path: Literal["fast", "deep"] = Field(description="fast: one step; deep: a full plan.")
    reason: str
    review: bool = Field(default=True, description="Whether the plan pauses for review.")

    def line(self) -> str:
        return f"router: {self.reason}"


class PlanProposed(EventBase):
    type: Literal["plan_proposed"] = "plan_proposed"
    plan: list[PlanStep]
    source: Literal["llm", "offline"]
    notes: list[str] = Field(default_factory=list, description="Adjustments made to the plan.")
    reading: Reading | None = Field(default=None, description="How the question was read "
                                    "(shown first at plan review, editable there).")

    def line(self) -> str:
        notes = "".join(f"\n  note: {n}" for n in self.notes)
        read = f"\n  {self.reading.summary()}" if self.reading and self.reading.figures else ""
        return (f"plan proposed ({self.source}, {len(self.plan)} steps){usage_note(self)}"
                f"{read}{notes}")


class PlanApproved(EventBase):
    type: Literal["plan_approved"] = "plan_approved"
    plan: list[PlanStep]
    edited: bool = Field(description="True when the analyst changed the proposed plan.")

    def line(self) -> str:
        return f"plan approved{' (edited)' if self.edited else ''}: {len(self.plan)} steps"


class StepStarted(EventBase):
    type: Literal["step_started"] = "step_started"
    sub_question: str
    tool: Tool
    attempt: int = 0
    section: str | None = None
    doc_ids: list[str] = Field(default_factory=list)
    companies: list[str] = Field(default_factory=list,
                                 description="The filings searched, by company and period.")
    depends_on: list[int] = Field(default_factory=list,
                                  description="Earlier steps whose findings this step uses.")

    def line(self) -> str:
        where = f", {self.section}" if self.section else ""
        retry = f" (retry {self.attempt})" if self.attempt else ""
        return f"\n▶ step {(self.step or 0) + 1}{retry}: {self.sub_question}  [{self.tool}{where}]"


class QueryRewritten(EventBase):
    type: Literal["query_rewritten"] = "query_rewritten"
    original: str
    query: str
    source: Literal["llm", "offline"]

    def line(self) -> str:
        return f"  query: {self.query}  ({self.source}){usage_note(self)}"


class StrategyChosen(EventBase):
    type: Literal["strategy_chosen"] = "strategy_chosen"
    strategy: Strategy | Literal["web"]
    justification: str
    source: Literal["llm", "offline"]

    def line(self) -> str:
        return f"  strategy: {self.strategy} — {self.justification}"


class HitsRetrieved(EventBase):
    type: Literal["hits_retrieved"] = "hits_retrieved"
    tool: Tool
    query: str
    strategy: Strategy | Literal["web"]
    filters: dict[str, list[str]] = Field(default_factory=dict)
    hits: list[HitView]
    timings_ms: dict[str, float] = Field(default_factory=dict)

    def line(self) -> str:
        after = self.filters.get("after")
        why = "; ".join(self.filters.get("after_reason", []))
        dated = f" (published on/after {after[0]}{f': {why}' if why else ''})" if after else ""
        return f"  retrieved {len(self.hits)} candidate(s) in {self.elapsed_ms:.0f} ms{dated}"


class HitsReranked(EventBase):
    type: Literal["hits_reranked"] = "hits_reranked"
    rerank_query: str
    hits: list[HitView]
    reranker: RerankerInfo | None = None

    def line(self) -> str:
        who = self.reranker.name if self.reranker else "first-stage order"
        top = "".join(f"\n    {h.rank}. {h.label} ({h.score:.3f})" for h in self.hits[:3])
        return f"  reranked by {who}:{top}"


class ContextDistilled(EventBase):
    type: Literal["context_distilled"] = "context_distilled"
    context: str
    evidence_ids: list[str]
    source: Literal["llm", "offline"]

    def line(self) -> str:
        return (f"  distilled: {len(self.evidence_ids)} evidence item(s) ({self.source})"
                f"{usage_note(self)}")


class StepReflected(EventBase):
    type: Literal["step_reflected"] = "step_reflected"
    finding: str
    coverage: Coverage
    attempt: int = 0
    quality: dict[str, Any] | None = Field(
        default=None, description="StepQuality: relevance, coverage, consistency, notes.")

    def line(self) -> str:
        return f"  finding [{self.coverage}]: {self.finding}"


class FactView(BaseModel):
    """A fact as a step card shows it: what it is, its value, and where it is printed."""

    ref: str = Field(default="", description="The input it serves: 'revenue[FY2023]'.")
    used: bool = Field(default=True, description="False: an alternative shown beside the "
                       "fact used (another source or a restated comparative).")
    label: str = Field(description="Line item as printed.")
    metric: str | None = None
    period: str = Field(default="", description="'FY2023', 'FY2024-Q1', or the period end.")
    value: float = Field(description="Base units (dollars, shares), scale and sign applied.")
    printed: str = Field(default="", description="The cell as printed ('$26,974').")
    unit: str = "USD"
    source: str = Field(description="'xbrl' or 'table'.")
    concept: str | None = None
    dims: str = ""
    doc_id: str = ""
    page: int | None = None
    page_label: str | None = Field(default=None, description="The page number the filing "
                                   "prints on ``page``, when known.")
    chunk_id: str | None = None
    row: str = Field(default="", description="The row as printed.")

    @classmethod
    def from_fact(cls, fact: Fact, ref: str = "", period: str = "",
                  used: bool = True) -> FactView:
        when = period or (f"FY{fact.fiscal_year}" if fact.fiscal_year else fact.end or "")
        return cls(ref=ref, used=used, label=fact.label, metric=fact.metric, period=when,
                   value=fact.value, printed=fact.printed, unit=fact.unit, source=fact.source,
                   concept=fact.concept, dims=fact.dims, doc_id=fact.doc_id, page=fact.page,
                   page_label=fact.page_label, chunk_id=fact.chunk_id, row=fact.row)


class FactsFound(EventBase):
    """A look-up step's facts: one per input found (``used``), alternatives beside them."""

    type: Literal["facts_found"] = "facts_found"
    metric: str
    periods: list[str] = Field(default_factory=list)
    facts: list[FactView] = Field(default_factory=list)
    inputs: list[FigureInput] = Field(default_factory=list,
                                      description="Every input, found or missing.")
    missing: list[str] = Field(default_factory=list, description="Inputs not found, said "
                               "plainly ('no FY2017 PP&E in the filings loaded').")
    no_statements: list[str] = Field(default_factory=list, description="Filings in scope "
                                     "holding no financial statements, by name.")
    notes: list[str] = Field(default_factory=list)

    def line(self) -> str:
        """The facts, one line each: input, value (``core.figures.units.amount``: the one
        money formatter) and as printed, source, page, chunk."""
        from core.figures.units import amount

        lines = [f"  facts for {self.metric} {', '.join(self.periods)}: "
                 f"{sum(f.used for f in self.facts)} found"]
        for f in self.facts:
            where = f"{f.source}{f' {f.concept}' if f.concept else ''}" \
                + (f", p. {f.page}" if f.page else "") \
                + (f", chunk {f.chunk_id}" if f.chunk_id else ", not printed")
            mark = "" if f.used else " (alternative)"
            printed = f" (printed {f.printed.strip()})" if f.printed.strip() else ""
            lines.append(f"    {f.ref or f.period}: {amount(f.value, f.unit)}{printed} "
                         f"— {f.label} [{where}]{mark}")
        lines += [f"    missing: {m}" for m in self.missing]
        lines += [f"    no financial statements: {n}" for n in self.no_statements]
        return "\n".join(lines)


class FigureComputed(EventBase):
    """A figure step's result: the value in the unit asked, the arithmetic, the table."""

    type: Literal["figure_computed"] = "figure_computed"
    formula: str
    result: FigureResult

    def line(self) -> str:
        r = self.result
        work = f"\n    {r.work}" if r.work else ""
        missing = "".join(f"\n    missing: {m}" for m in r.missing)
        return f"  computed {self.formula} = {r.display or 'not computed'}{work}{missing}"


class PolicyDecided(EventBase):
    type: Literal["policy_decided"] = "policy_decided"
    decision: Decision
    reason: str

    def line(self) -> str:
        return f"  policy: {self.decision} — {self.reason}"


class PlanRevised(EventBase):
    type: Literal["plan_revised"] = "plan_revised"
    change: str
    before: PlanStep
    after: PlanStep
    revisions_used: int

    def line(self) -> str:
        return f"  revised step {(self.step or 0) + 1}: {self.change}"


class AnswerReady(EventBase):
    type: Literal["answer_ready"] = "answer_ready"
    answer: str
    citations: list[dict[str, Any]] = Field(default_factory=list)
    invalid_markers: list[str] = Field(default_factory=list)
    not_found: list[str] = Field(default_factory=list)
    stop_reason: str
    stop_message: str
    source: Literal["llm", "offline"]
    checks: list[dict[str, Any]] = Field(
        default_factory=list, description="Self-check verdict per claim (SentenceCheck).")
    figures: list[dict[str, Any]] = Field(
        default_factory=list, description="The figures the answer states (FigureResult).")


class Warning(EventBase):  # noqa: A001 - the event's name in the protocol
    type: Literal["warning"] = "warning"
    message: str
    role: str | None = None

    def line(self) -> str:
        return f"  ! {self.message}"


class Error(EventBase):
    type: Literal["error"] = "error"
    message: str

    def line(self) -> str:
        return f"✗ {self.message}"


RUN_EVENTS: tuple[type[EventBase], ...] = (RouteChosen, PlanProposed, PlanApproved,
                                           AnswerReady, Warning, Error)
"""Events of the outer graph and of any node; a step stage's are in its registration."""


def emit(event: EventBase) -> EventBase:
    """Send ``event`` on LangGraph's custom stream (no-op outside a graph run)."""
    from langgraph.config import get_stream_writer

    try:
        writer = get_stream_writer()
    except RuntimeError:
        return event
    writer(event)
    return event


class Clock:
    """Milliseconds since a node started, for ``elapsed_ms``."""

    def __init__(self) -> None:
        self.t0 = time.perf_counter()

    @property
    def ms(self) -> float:
        return round((time.perf_counter() - self.t0) * 1000, 1)
