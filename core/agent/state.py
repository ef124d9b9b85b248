"""The research graph's state and the records it holds.

Records are pydantic models (validated on the way in, JSON on the way out); the
graph state is a ``TypedDict`` whose list/dict fields declare their reducers
with ``Annotated`` so a node returns only what it adds. The SQLite checkpointer
stores these records (see ``checkpoint.py`` for its allow-list of types).
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from pydantic import BaseModel, Field

from core.analysis.model import AnalysisResult, AnalysisSpec
from core.figures.model import FigureResult
from core.foundation.types import Hit, RerankerInfo
from core.reading.model import Reading

Tool = Literal["filing_search", "web_search", "figure_lookup", "compute", "analyze"]
SEARCH_TOOLS = ("filing_search", "web_search")
"""Tools that search text (retrieval, rerank, distil); the others are figure steps."""
FIGURE_TOOLS = ("figure_lookup", "compute")
"""Figure steps: look up facts (no LLM) and compute a formula over them (no LLM)."""
ANALYZE = "analyze"
"""The step that combines figure steps' results (compare, rank, a verdict; no LLM)."""
Strategy = Literal["vector", "keyword", "hybrid"]
Coverage = Literal["answered", "partial", "none"]
Decision = Literal["CONTINUE", "REVISE", "FINISH"]


class PlanStep(BaseModel):
    """One research step of the plan."""

    sub_question: str = Field(description="The narrow question this step answers.")
    justification: str = Field(default="", description="Why this step is needed.")
    tool: Tool = Field(
        default="filing_search",
        description="filing_search (the ingested filings), web_search (news, post-filing), "
        "figure_lookup (a metric's reported figures for some periods, from the filings' "
        "facts), compute (a formula over looked-up figures) or analyze (the figures of the "
        "steps it depends on compared, ranked or tested: a verdict).",
    )
    keywords: list[str] = Field(default_factory=list, description="Key terms to search for.")
    section: str | None = Field(
        default=None, description="Filing section to search, from the corpus's section list."
    )
    doc_ids: list[str] = Field(
        default_factory=list, description="Documents to search (empty: the whole scope)."
    )
    depends_on: list[int] = Field(
        default_factory=list,
        description="0-based indices of earlier steps whose findings this step uses.",
    )
    metric: str | None = Field(
        default=None, description="figure_lookup: the metric catalogue key to look up "
        "('revenue', 'capex'); null for other tools.")
    periods: list[str] = Field(
        default_factory=list, description="figure_lookup: fiscal periods to look up, "
        "'FY2023' or 'FY2024-Q1', oldest first; [] for other tools.")
    formula: str | None = Field(
        default=None, description="compute: what to compute over the looked-up metrics, with "
        "absolute periods, e.g. 'revenue[FY2023] - revenue[FY2022]'; null for other tools.")
    unit: str | None = Field(
        default=None, description="figure steps: the unit the figure is stated in ('USD "
        "millions', 'percent', 'ratio', 'days'...); null: the metric's own.")
    decimals: int | None = Field(
        default=None, description="figure steps: decimal places asked; null: the unit's "
        "usual rounding.")
    member: str | None = Field(
        default=None, description="figure_lookup: the segment, product line or region to look "
        "up ('Digital Media'); null: the entity total.")
    analysis: AnalysisSpec | None = Field(
        default=None, description="analyze: how the figures of the steps it depends on "
        "combine (compare, rank, verdict, ...); null for other tools.")

    @property
    def is_figure(self) -> bool:
        """True for a look-up, compute or analyze step (no retrieval, no LLM)."""
        return self.tool in FIGURE_TOOLS or self.tool == ANALYZE


class Evidence(BaseModel):
    """A piece of evidence kept by a step: a filing chunk or a web result."""

    id: str = Field(description="Chunk id, or the URL of a web result.")
    kind: Literal["chunk", "web"]
    text: str = Field(description="The evidence text as retrieved.")
    label: str = Field(default="", description="Human citation label (filing, section, page).")
    doc_id: str | None = None
    section: str | None = None
    page: int | None = None
    page_label: str | None = Field(default=None, description="The page number the filing "
                                   "prints on ``page`` ('53', 'F-7'), when known; "
                                   "``core.foundation.pages.page_ref`` says either.")
    url: str | None = None
    title: str | None = None
    date: str | None = None
    score: float = Field(default=0.0, description="Final (reranked) score.")


class StepQuality(BaseModel):
    """Quality dimensions of a step's evidence (offline rules, see ``quality.py``)."""

    relevance: float = Field(description="0..1: how much the kept lines are about the question.")
    coverage: float = Field(description="0..1: share of the question's terms the lines touch.")
    consistency: float | None = Field(
        default=None, description="0..1: same line items agree across sources (None: none to "
        "compare).")
    notes: list[str] = Field(default_factory=list, description="Disagreements, low relevance.")


class StepRecord(BaseModel):
    """One executed attempt of a plan step, kept in the research history."""

    step: int = Field(description="0-based index of the plan step.")
    attempt: int = Field(default=0, description="0 for the first try, n after n revisions.")
    sub_question: str
    tool: Tool
    query: str = Field(description="The rewritten retrieval query.")
    strategy: Strategy | None = Field(default=None, description="None for web search.")
    evidence_ids: list[str] = Field(default_factory=list, description="Evidence kept, best first.")
    context: str = Field(default="", description="Distilled context with [id] references.")
    finding: str = Field(default="", description="One-sentence finding (reflection).")
    coverage: Coverage = "none"
    top_score: float = Field(default=0.0, description="Best reranked score of the step.")
    quality: StepQuality | None = Field(default=None, description="Relevance, coverage, "
                                        "consistency of the step's evidence.")
    figure: FigureResult | None = Field(default=None, description="A figure step's result: "
                                        "the facts looked up, the arithmetic, what is missing.")
    analysis: AnalysisResult | None = Field(default=None, description="An analyze step's "
                                            "result: the verdict, the peer rows, the basis.")


class Revision(BaseModel):
    """A change the policy made to the current step before retrying it."""

    step: int
    reason: str
    change: str = Field(description="What changed: broaden query, drop section, switch tool...")
    before: PlanStep
    after: PlanStep


class StepWork(BaseModel):
    """Scratch data of the step in progress (replaced at every step start)."""

    query: str = ""
    strategy: Strategy | None = None
    candidates: list[Hit] = Field(default_factory=list, description="Retrieved, before rerank.")
    reranked: list[Hit] = Field(default_factory=list, description="Kept after reranking.")
    reranker: RerankerInfo | None = None
    context: str = ""
    evidence_ids: list[str] = Field(default_factory=list, description="Evidence the context cites.")
    finding: str = ""
    coverage: Coverage = "none"
    missing: str = ""
    figure: FigureResult | None = Field(default=None, description="A figure step's result so "
                                        "far (look-up or compute).")
    fact_ids: list[str] = Field(default_factory=list, description="Chunks of the facts used "
                                "by a figure step (its evidence, cited first).")
    extra: dict[str, Any] = Field(default_factory=dict, description="What a registered "
                                  "role without a field of its own keeps, by stage name.")


class RoleUsage(BaseModel):
    """LLM calls and tokens spent by one role."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    fallbacks: int = Field(default=0, description="Calls answered by the offline rule instead.")
    cache_hits: int = Field(default=0, description="Calls answered from the cache (no call).")
    skipped: int = Field(default=0, description="Calls not sent: the run's LLM breaker was "
                         "open (the endpoint had failed) or no run time was left.")
    answered: int = Field(default=0, description="Calls the LLM answered with a usable reply.")

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: RoleUsage) -> RoleUsage:
        return RoleUsage(
            calls=self.calls + other.calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            fallbacks=self.fallbacks + other.fallbacks,
            cache_hits=self.cache_hits + other.cache_hits,
            skipped=self.skipped + other.skipped,
            answered=self.answered + other.answered,
        )


class Citation(BaseModel):
    """A [n] marker of the answer and the evidence it points to."""

    n: int
    evidence_id: str
    kind: Literal["chunk", "web"]
    label: str
    url: str | None = None


class SentenceCheck(BaseModel):
    """The self-check's verdict on one sentence of the answer (see ``selfcheck.py``)."""

    sentence: str = Field(description="The sentence as written, markers included.")
    citations: list[int] = Field(default_factory=list, description="Its [n] markers.")
    verdict: Literal["supported", "unsupported", "uncited"] = Field(
        description="supported by the cited evidence, not supported by it, or citing nothing.")
    reason: str = Field(default="", description="Why, in words a reader can check.")
    kept: bool = Field(default=True, description="False when removed from the answer.")
    judge: Literal["llm", "offline"] = "offline"


class Answer(BaseModel):
    """The synthesised answer after citation validation."""

    text: str = Field(description="Multi-paragraph answer with [n] markers.")
    citations: list[Citation] = Field(default_factory=list, description="Markers used, in order.")
    invalid_markers: list[str] = Field(
        default_factory=list, description="Markers removed because no such evidence exists."
    )
    not_found: list[str] = Field(default_factory=list, description="What could not be found.")
    evidence: list[Evidence] = Field(
        default_factory=list, description="The numbered evidence: [n] is evidence[n - 1]."
    )
    source: Literal["llm", "offline"] = "offline"
    checks: list[SentenceCheck] = Field(
        default_factory=list, description="Self-check verdict per claim sentence, in order.")
    figures: list[FigureResult] = Field(
        default_factory=list, description="The figures the answer states, in order (the "
        "computation table under the answer is drawn from them).")
    analyses: list[AnalysisResult] = Field(
        default_factory=list, description="The analyses the answer states, in order (the "
        "verdict line, the peer table and the chart are drawn from them).")
    reading: Reading | None = Field(
        default=None, description="How the question was read (its 'Read as:' line is the "
        "answer's second line when figures answer it).")


class StopReason(BaseModel):
    """Why the run ended."""

    code: Literal[
        "completed", "max_steps", "max_revisions", "max_wall_s", "max_tokens"
    ]
    message: str


def merge_dict(left: dict, right: dict) -> dict:
    """Reducer: right's keys override left's."""
    return {**(left or {}), **(right or {})}


def patch_plan(left: list[PlanStep], right) -> list[PlanStep]:
    """Reducer: a list replaces the plan; ``{"patch": [[index, step], ...]}`` changes steps
    (what a parallel step branch sends after revising its own step or later ones)."""
    if isinstance(right, dict) and "patch" in right:
        out = list(left or [])
        for index, step in right["patch"]:
            if 0 <= int(index) < len(out):
                out[int(index)] = step if isinstance(step, PlanStep) \
                    else PlanStep.model_validate(step)
        return out
    return right


def first_value(left, right):
    """Reducer: the first value set is kept (a run's first bound reached)."""
    return left if left is not None else right


def add_usage(left: dict[str, RoleUsage], right: dict[str, RoleUsage]) -> dict[str, RoleUsage]:
    """Reducer: sum usage per role."""
    out = dict(left or {})
    for role, usage in (right or {}).items():
        out[role] = out[role] + usage if role in out else usage
    return out


def add_numbers(left: dict[str, float], right: dict[str, float]) -> dict[str, float]:
    """Reducer: sum timings per node."""
    out = dict(left or {})
    for key, value in (right or {}).items():
        out[key] = out.get(key, 0.0) + value
    return out


class ResearchState(TypedDict, total=False):
    """Everything a run knows; checkpointed after every node."""

    question: str
    """The analyst's question, as asked."""
    doc_scope: list[str]
    """Document ids the analyst limited the run to (empty: the whole corpus)."""
    review: Literal["always", "auto"]
    """Input: "always" pauses every plan for review; "auto" skips review on the fast path."""
    route: Literal["fast", "deep"]
    """The router's choice: fast (one step) or deep (a full plan)."""
    route_reason: str
    reading: Reading | None
    """The question read once (``core.reading``): the planner and the router read its
    ``text``; the answer says it under its first line."""
    """Why the router chose so."""
    plan: Annotated[list[PlanStep], patch_plan]
    """The plan: proposed by the planner, possibly edited at review, revised by the policy."""
    started: Annotated[list[int], operator.add]
    """Plan steps dispatched so far (bounded by max_steps)."""
    done: Annotated[list[int], operator.add]
    """Plan steps whose research is finished (their dependents may start)."""
    wave: list[int]
    """The steps the dispatcher sends out next, side by side."""
    max_revisions: int
    """The run's revision bound, as the dispatcher read it (to share among a wave)."""
    revision_allowance: int
    """In a step branch: revisions this branch may make (its share of what is left)."""
    revisions_before: int
    """In a step branch: revisions the run had made when the branch started."""
    plan_source: Literal["llm", "offline"]
    """Who wrote the plan."""
    step_index: int
    """0-based index of the step a branch researches (set per ``Send``)."""
    attempt: int
    """Revisions made to the current step so far."""
    steps_run: int
    """Plan steps started so far (bounded by max_steps)."""
    history: Annotated[list[StepRecord], operator.add]
    """Research history: every executed attempt with its evidence ids, context and finding."""
    evidence: Annotated[dict[str, Evidence], merge_dict]
    """All evidence kept by any step, by id (chunk id or URL), with its text."""
    revisions: Annotated[list[Revision], operator.add]
    """Revisions the policy made, in order (bounded by max_revisions)."""
    work: StepWork
    """Scratch data of the step in progress."""
    decision: Decision
    """The policy's last decision, used for routing."""
    decision_reason: str
    """Why the policy decided so."""
    usage: Annotated[dict[str, RoleUsage], add_usage]
    """LLM calls and tokens per role."""
    timings_ms: Annotated[dict[str, float], add_numbers]
    """Milliseconds spent per node, summed over the run."""
    warnings: Annotated[list[str], operator.add]
    """Degradations (LLM fallbacks, dropped filters...) in the order they happened."""
    started_at: float
    """Epoch seconds the run's clock started, for the wall-time bound: the route's start,
    moved at review to the research start minus ``planning_s`` (planning counts, the wait
    for review does not)."""
    planning_s: float
    """Seconds spent routing and planning (before review)."""
    answer: Answer
    """The final cited answer."""
    stop: StopReason
    """Why the run ended."""
    limit_hit: Annotated[StopReason | None, first_value]
    """A bound that was reached before the end (kept for the final stop reason)."""


def total_usage(usage: dict[str, RoleUsage] | None) -> RoleUsage:
    """Sum of every role's usage."""
    out = RoleUsage()
    for u in (usage or {}).values():
        out = out + u
    return out
