"""Typed progress events: the only thing a UI needs to render a run, live or replayed.

Nodes emit them through LangGraph's stream writer (``stream_mode="custom"``);
``AgentEvent`` is the discriminated union (by ``type``) and ``parse_event``
rebuilds one from JSON (run records store them as dicts).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

from core.agent.state import Coverage, Decision, PlanStep, RoleUsage, Strategy, Tool
from core.figures.model import FigureInput, FigureResult
from core.foundation.types import Fact, Hit, RerankerInfo, StageScore

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
                   page=c.page, text=c.text[:PREVIEW_CHARS])


class RouteChosen(EventBase):
    type: Literal["route_chosen"] = "route_chosen"
    path: Literal["fast", "deep"] = Field(description="fast: one step; deep: a full plan.")
    reason: str
    review: bool = Field(default=True, description="Whether the plan pauses for review.")


class PlanProposed(EventBase):
    type: Literal["plan_proposed"] = "plan_proposed"
    plan: list[PlanStep]
    source: Literal["llm", "offline"]
    notes: list[str] = Field(default_factory=list, description="Adjustments made to the plan.")


class PlanApproved(EventBase):
    type: Literal["plan_approved"] = "plan_approved"
    plan: list[PlanStep]
    edited: bool = Field(description="True when the analyst changed the proposed plan.")


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


class QueryRewritten(EventBase):
    type: Literal["query_rewritten"] = "query_rewritten"
    original: str
    query: str
    source: Literal["llm", "offline"]


class StrategyChosen(EventBase):
    type: Literal["strategy_chosen"] = "strategy_chosen"
    strategy: Strategy | Literal["web"]
    justification: str
    source: Literal["llm", "offline"]


class HitsRetrieved(EventBase):
    type: Literal["hits_retrieved"] = "hits_retrieved"
    tool: Tool
    query: str
    strategy: Strategy | Literal["web"]
    filters: dict[str, list[str]] = Field(default_factory=dict)
    hits: list[HitView]
    timings_ms: dict[str, float] = Field(default_factory=dict)


class HitsReranked(EventBase):
    type: Literal["hits_reranked"] = "hits_reranked"
    rerank_query: str
    hits: list[HitView]
    reranker: RerankerInfo | None = None


class ContextDistilled(EventBase):
    type: Literal["context_distilled"] = "context_distilled"
    context: str
    evidence_ids: list[str]
    source: Literal["llm", "offline"]


class StepReflected(EventBase):
    type: Literal["step_reflected"] = "step_reflected"
    finding: str
    coverage: Coverage
    attempt: int = 0
    quality: dict[str, Any] | None = Field(
        default=None, description="StepQuality: relevance, coverage, consistency, notes.")


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
    chunk_id: str | None = None
    row: str = Field(default="", description="The row as printed.")

    @classmethod
    def from_fact(cls, fact: Fact, ref: str = "", period: str = "",
                  used: bool = True) -> FactView:
        when = period or (f"FY{fact.fiscal_year}" if fact.fiscal_year else fact.end or "")
        return cls(ref=ref, used=used, label=fact.label, metric=fact.metric, period=when,
                   value=fact.value, printed=fact.printed, unit=fact.unit, source=fact.source,
                   concept=fact.concept, dims=fact.dims, doc_id=fact.doc_id, page=fact.page,
                   chunk_id=fact.chunk_id, row=fact.row)


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


class FigureComputed(EventBase):
    """A figure step's result: the value in the unit asked, the arithmetic, the table."""

    type: Literal["figure_computed"] = "figure_computed"
    formula: str
    result: FigureResult


class PolicyDecided(EventBase):
    type: Literal["policy_decided"] = "policy_decided"
    decision: Decision
    reason: str


class PlanRevised(EventBase):
    type: Literal["plan_revised"] = "plan_revised"
    change: str
    before: PlanStep
    after: PlanStep
    revisions_used: int


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


class Error(EventBase):
    type: Literal["error"] = "error"
    message: str


AgentEvent = Annotated[
    RouteChosen | PlanProposed | PlanApproved | StepStarted | QueryRewritten | StrategyChosen
    | HitsRetrieved | HitsReranked | ContextDistilled | StepReflected | PolicyDecided | PlanRevised
    | FactsFound | FigureComputed | AnswerReady
    | Warning | Error,
    Field(discriminator="type"),
]
_ADAPTER: TypeAdapter[Any] = TypeAdapter(AgentEvent)


def parse_event(data: dict[str, Any]) -> EventBase:
    """Rebuild a typed event from its JSON dict."""
    return _ADAPTER.validate_python(data)


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
