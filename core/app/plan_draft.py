"""The plan under review as the analyst edits it, one draft per step (pure functions).

A ``StepDraft`` is a plan step plus what the review screen needs: a stable ``uid`` (so
dependencies survive reordering), the step the planner proposed (``origin``: an edited
step says so and its justification stops claiming the planner's reason), and the
analyst's own note. ``to_plan`` turns drafts into ``PlanStep``s; ``plan_problems``
explains, per step, what stops the plan from running. Drafts are JSON-safe so they
can be saved with the run (``core.app.run_index``) and survive a browser refresh.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from core.agent.plan_edit import validate_plan
from core.agent.state import PlanStep, Tool
from core.analysis.model import AnalysisSpec

EDITABLE = ("sub_question", "tool", "doc_ids", "section", "keywords", "depends_on", "metric",
            "periods", "formula", "unit", "decimals", "member", "analysis")
FIGURE_FIELDS = ("metric", "periods", "formula", "unit", "decimals", "member", "analysis")
"""Fields of figure steps: a look-up's metric, periods and member (a segment), a compute
step's formula, the unit and rounding either states its figure in, and an analyze step's
settings (how the figures it depends on combine)."""


def _uid() -> str:
    return uuid.uuid4().hex[:8]


def supports_dependencies(step_cls: type[BaseModel] = PlanStep) -> bool:
    """Whether plan steps carry ``depends_on`` (0-based indices of earlier steps)."""
    return "depends_on" in step_cls.model_fields


class StepDraft(BaseModel):
    """One step as edited on the review screen."""

    uid: str = Field(default_factory=_uid, description="Stable id of the step in this draft.")
    sub_question: str = ""
    tool: Tool = "filing_search"
    doc_ids: list[str] = Field(default_factory=list, description="Filings searched (empty: all).")
    section: str | None = None
    keywords: list[str] = Field(default_factory=list)
    depends_on: list[str] = Field(default_factory=list, description="uids of earlier steps.")
    metric: str | None = Field(default=None, description="figure_lookup: the metric key.")
    periods: list[str] = Field(default_factory=list, description="figure_lookup: periods.")
    formula: str | None = Field(default=None, description="compute: the formula.")
    unit: str | None = Field(default=None, description="figure steps: the unit asked.")
    decimals: int | None = Field(default=None, description="figure steps: decimals asked.")
    member: str | None = Field(default=None, description="figure_lookup: the segment, "
                               "product line or region looked up (None: the entity total).")
    analysis: AnalysisSpec | None = Field(default=None, description="analyze: how the "
                                          "figures of the steps it depends on combine.")
    justification: str = Field(default="", description="The planner's reason for the step.")
    note: str = Field(default="", description="The analyst's own reason, if any.")
    origin: dict[str, Any] | None = Field(
        default=None, description="The step as proposed (None: added by the analyst).")
    read: dict[str, Any] = Field(default_factory=dict, description="The fields an added "
                                 "step took from its question (``read_into``), so reading "
                                 "a new question replaces them, never the analyst's own.")

    def fields(self) -> dict[str, Any]:
        """The editable fields, normalised for comparison."""
        return {"sub_question": self.sub_question.strip(), "tool": self.tool,
                "doc_ids": sorted(self.doc_ids),
                "section": (self.section or None) if self.tool == "filing_search" else None,
                "keywords": [k.strip() for k in self.keywords if k.strip()],
                "depends_on": sorted(self.depends_on), **self.figure_fields()}

    def figure_fields(self) -> dict[str, Any]:
        """The figure fields that apply to this step's tool (empty for a text step)."""
        if self.tool == "figure_lookup":
            return {"metric": (self.metric or "").strip() or None,
                    "periods": [p.strip().upper() for p in self.periods if p.strip()],
                    "unit": self.unit or None, "decimals": self.decimals,
                    "member": (self.member or "").strip() or None}
        if self.tool == "compute":
            return {"formula": " ".join((self.formula or "").split()) or None,
                    "unit": self.unit or None, "decimals": self.decimals}
        if self.tool == "analyze":
            return {"analysis": self.analysis.model_dump() if self.analysis else None}
        return {}

    @property
    def edited(self) -> bool:
        """True when the analyst changed the proposed step (or added it)."""
        if self.origin is None:
            return True
        return self.fields() != self.origin


def drafts_from_plan(plan: Sequence[PlanStep]) -> list[StepDraft]:
    """Drafts of a proposed plan (each remembers its proposed form)."""
    drafts = [StepDraft(sub_question=s.sub_question, tool=s.tool, doc_ids=list(s.doc_ids),
                        section=s.section, keywords=list(s.keywords),
                        justification=s.justification,
                        **{k: getattr(s, k) for k in FIGURE_FIELDS if hasattr(s, k)})
              for s in plan]
    for d, s in zip(drafts, plan, strict=True):
        deps = getattr(s, "depends_on", None) or []
        d.depends_on = [drafts[i].uid for i in deps if isinstance(i, int) and 0 <= i < len(drafts)]
    for d in drafts:
        d.origin = d.fields()
    return drafts


def justification_text(d: StepDraft) -> str:
    """The step's reason as the run should record it (never a stale planner reason)."""
    note = d.note.strip()
    if d.origin is None:
        return f"Added by the analyst: {note}" if note else "Added by the analyst."
    if not d.edited:
        return note or d.justification
    base = f"Edited by the analyst: {note}" if note else "Edited by the analyst."
    if d.justification:
        base += f" (The planner's reason, for the step as proposed: {d.justification})"
    return base


def parse_keywords(text: str) -> list[str]:
    """'a, b ,, c' -> ['a', 'b', 'c']."""
    return [k.strip() for k in re.split(r"[,;\n]", text or "") if k.strip()]


def to_plan(drafts: Sequence[StepDraft], step_cls: type[BaseModel] = PlanStep) -> list[Any]:
    """The drafts as plan steps, in order; dependencies become 0-based indices of earlier
    steps (when the step model carries them)."""
    position = {d.uid: i for i, d in enumerate(drafts)}
    steps = []
    for i, d in enumerate(drafts):
        web = d.tool == "web_search"
        data: dict[str, Any] = {
            "sub_question": d.sub_question.strip(), "tool": d.tool,
            "doc_ids": [] if web else list(d.doc_ids),
            "section": None if web else (d.section or None),
            "keywords": [k.strip() for k in d.keywords if k.strip()],
            "justification": justification_text(d),
        }
        data.update({k: v for k, v in d.figure_fields().items() if k in step_cls.model_fields})
        if supports_dependencies(step_cls):
            data["depends_on"] = sorted(position[u] for u in d.depends_on
                                        if u in position and position[u] < i)
        steps.append(step_cls(**data))
    return steps


def dependency_problems(drafts: Sequence[StepDraft]) -> list[str]:
    """Steps that depend on a step running after them (or on a deleted one)."""
    position = {d.uid: i for i, d in enumerate(drafts)}
    problems = []
    for i, d in enumerate(drafts):
        for u in d.depends_on:
            if u not in position:
                problems.append(f"step {i + 1}: it depends on a step that was deleted; remove "
                                "the dependency")
            elif position[u] >= i:
                problems.append(f"step {i + 1}: it depends on step {position[u] + 1}, which runs "
                                "after it; move that step up or remove the dependency")
    return problems


def plan_problems(drafts: Sequence[StepDraft], corpus_sections: Mapping[str, Sequence[str]], *,
                  web_available: bool = True, max_steps: int | None = None
                  ) -> dict[int | None, list[str]]:
    """What stops the plan from running: step index (0-based) -> problems; None: the plan's."""
    out: dict[int | None, list[str]] = {}
    if not drafts:
        return {None: ["The plan has no steps: add at least one."]}
    steps = to_plan(drafts)
    found = validate_plan(steps, corpus_sections, web_available=web_available)
    found += dependency_problems(drafts)
    if max_steps and len(drafts) > max_steps:
        found.append(f"the plan has {len(drafts)} steps but a run may research at most "
                     f"{max_steps} (Settings → Max steps): remove some")
    for problem in found:
        m = re.match(r"step (\d+): (.*)", problem, re.S)
        where = int(m.group(1)) - 1 if m else None
        text = m.group(2) if m else problem
        out.setdefault(where, []).append(text[:1].upper() + text[1:].rstrip(".") + ".")
    return out


def move(drafts: list[StepDraft], index: int, to: int) -> list[StepDraft]:
    """A copy with step ``index`` moved to ``to`` (clamped)."""
    out = list(drafts)
    if not 0 <= index < len(out):
        return out
    step = out.pop(index)
    out.insert(max(0, min(to, len(out))), step)
    return out


def remove(drafts: list[StepDraft], index: int) -> list[StepDraft]:
    """A copy without step ``index``; dependencies on it are dropped."""
    if not 0 <= index < len(drafts):
        return list(drafts)
    gone = drafts[index].uid
    out = [d.model_copy(update={"depends_on": [u for u in d.depends_on if u != gone]})
           for i, d in enumerate(drafts) if i != index]
    return out


def add(drafts: list[StepDraft], tool: Tool = "filing_search") -> list[StepDraft]:
    """A copy with a blank step (added by the analyst) at the end."""
    return [*drafts, StepDraft(tool=tool)]


FIGURE_TOOLS = ("figure_lookup", "compute", "analyze")


def with_reading_steps(drafts: Sequence[StepDraft], steps: Sequence[PlanStep]
                       ) -> list[StepDraft]:
    """The plan after the analyst corrected the reading: the figure, compute and analyze
    steps replaced by ``steps`` (made from the corrected reading), the text and web steps
    kept after them (a dependency on a replaced step dropped)."""
    new = drafts_from_plan(steps)
    kept = [d.model_copy(deep=True) for d in drafts if d.tool not in FIGURE_TOOLS]
    gone = {d.uid for d in drafts if d.tool in FIGURE_TOOLS}
    for d in kept:
        d.depends_on = [u for u in d.depends_on if u not in gone]
    return new + kept


def step_doc_ids(draft: StepDraft, documents: Sequence[Any]) -> list[str]:
    """The filings a step reads: those chosen, else those of the companies its question
    names, else none (every filing)."""
    if draft.doc_ids:
        return list(draft.doc_ids)
    from core.retrieval.scope import match_companies

    named = match_companies(draft.sub_question, list(documents))
    return list(dict.fromkeys(i for _, ids in named.values() for i in ids))


def read_into(draft: StepDraft, documents: Sequence[Any], store: Any = None) -> StepDraft:
    """An added step's fields read from the question typed into it (``core.reading``): its
    filings (the companies it names) and, for a look-up, the metric, periods and segment;
    for a compute step the formula. A field the analyst set is kept; a field an earlier
    question filled is replaced."""
    if draft.origin is not None:
        return draft
    upd: dict[str, Any] = {}
    filled = dict(draft.read)

    def take(name: str, value: Any) -> None:
        current = getattr(draft, name)
        if current not in (None, [], "") and current != filled.get(name):
            return  # the analyst's own
        if value != current:
            upd[name] = value
        filled[name] = value

    draft_ids = draft.model_copy(update={"doc_ids": [] if draft.doc_ids == filled.get(
        "doc_ids") else draft.doc_ids})
    request, named = _request(draft.sub_question, documents, store) \
        if draft.tool != "web_search" else (None, [])
    if draft.tool != "web_search":
        take("doc_ids", step_doc_ids(draft_ids, documents) or named)
    if request is not None and draft.tool in ("figure_lookup", "compute"):
        from core.agent.roles.figure_catalog import formula_inputs
        from core.metrics import get_metric

        refs = formula_inputs(request.formula)
        if draft.tool == "compute":
            take("formula", request.formula)
        elif refs:
            key = request.metric if get_metric(request.metric or "") else refs[0][0]
            take("metric", key)
            take("periods", sorted(set(request.periods) or {p for _, p, _ in refs}))
            take("member", request.member)
    if not upd:
        return draft
    return draft.model_copy(update={**upd, "read": filled})


_IMPERATIVE = re.compile(r"^\s*(?:please\s+)?(?:look\s+up|find|get|show|give|fetch|pull)\s+"
                         r"(?:me\s+)?(?:the\s+)?", re.I)


def _request(text: str, documents: Sequence[Any], store: Any) -> tuple[Any, list[str]]:
    """``(the figure text asks for or None, the filings of the companies it names)``, as
    ``core.reading.read.read_question`` reads it (lower case names and tickers too)."""
    if not text.strip():
        return None, []
    from core.reading.read import read_question

    text = _IMPERATIVE.sub("What was ", text.strip()).rstrip(" .") if _IMPERATIVE.match(
        text) else text  # "Look up Acme's revenue for FY2024": asked as a question
    try:
        reading, plan, request = read_question(text, list(documents), store)
    except (ValueError, KeyError, IndexError):
        return None, []
    if request is None and plan is not None and plan.requests:
        request = plan.requests[0]
    named = [i for c in reading.companies for i in c.doc_ids]
    if request is not None and not named:
        named = list(request.doc_ids)
    return request, list(dict.fromkeys(named))
