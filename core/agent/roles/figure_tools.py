"""The look-up and compute tools offered to the LLM synthesiser (tool calls).

With an LLM configured and figure steps in the run, the synthesiser is first offered two
tools (``core.llm.tools.call_with_tools``): ``figure_lookup(metric, period, company)`` and
``compute(formula, unit, decimals)``. They run exactly as the plan's figure steps do
(``figure_steps``: facts, arithmetic, no text, no LLM); each call is reported by the same
typed events (``FactsFound``, ``FigureComputed``), the chunks of the facts it used join the
numbered evidence, and its result is handed to the answer call as an authoritative figure
with its ``[n]`` markers. What the tools return is data from the filings, never
instructions; a failed call degrades to the answer without it, with a warning.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from core.agent.deps import AgentDeps, to_role_usage
from core.agent.events import FactsFound, FigureComputed, emit
from core.agent.figure_steps import answer, fact_evidence, fact_views, lookup_request
from core.agent.plan_edit import MAX_DECIMALS, PERIOD
from core.agent.roles.figure_answer import citer, company_of
from core.agent.roles.figure_catalog import formula_name, formula_refs, known_metrics
from core.agent.state import Evidence, PlanStep, RoleUsage, StepRecord
from core.figures.model import FigureRequest, FigureResult
from core.retrieval.scope import match_companies

ROLE = "figure_tools"
TOOL_PROMPT = ("Before you write the answer: if it needs a figure that the computed figures "
               "above do not give, call figure_lookup (one metric, one fiscal period) or "
               "compute (a formula over metrics with absolute periods, e.g. "
               "revenue[FY2023] / revenue[FY2022] - 1). Reply with the single word DONE when "
               "you have every figure you need.")
TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {
        "name": "figure_lookup",
        "description": "A metric's reported figure for one fiscal period, read from the "
                       "filings' financial statements (exact facts, with the evidence to cite).",
        "parameters": {"type": "object", "properties": {
            "metric": {"type": "string", "description": "Metric catalogue key, e.g. revenue."},
            "period": {"type": "string", "description": "Fiscal period: FY2023 or FY2024-Q1."},
            "company": {"type": "string", "description": "The company, as the question names "
                                                         "it (optional)."}},
            "required": ["metric", "period"]}}},
    {"type": "function", "function": {
        "name": "compute",
        "description": "Evaluate a formula over reported figures, in the unit asked.",
        "parameters": {"type": "object", "properties": {
            "formula": {"type": "string", "description": "e.g. revenue[FY2023] - "
                                                         "revenue[FY2022] (absolute periods)."},
            "unit": {"type": "string", "description": "Unit to state it in (optional)."},
            "decimals": {"type": "integer", "description": "Decimal places (optional)."},
            "company": {"type": "string", "description": "The company (optional)."}},
            "required": ["formula"]}}},
]


@dataclass
class ToolFigures:
    """What the tool calls added: figures, evidence (renumbered), usage, a warning."""

    results: list[FigureResult] = field(default_factory=list)
    numbered: dict[int, Evidence] = field(default_factory=dict)
    calls: int = 0
    usage: RoleUsage = field(default_factory=RoleUsage)
    warning: str | None = None


def _doc_ids(args: dict[str, Any], records: list[StepRecord], deps: AgentDeps) -> list[str]:
    company = str(args.get("company") or "").strip()
    docs = deps.corpus.documents
    if company:
        ids = [i for _, (_, found) in match_companies(company, docs).items() for i in found]
        if ids:
            return list(dict.fromkeys(ids))
    ids = [d for r in records if r.figure is not None for d in r.figure.request.doc_ids]
    return list(dict.fromkeys(ids)) or [d.doc_id for d in docs]


def _unit_problem(unit: Any, decimals: Any) -> str | None:
    """What is wrong with a compute call's ``unit`` or ``decimals`` (the plan's bounds)."""
    from core.agent.roles.figure_catalog import unit_names

    if decimals is not None and (type(decimals) is not int or
                                 not 0 <= decimals <= MAX_DECIMALS):
        return f"decimals must be a whole number from 0 to {MAX_DECIMALS} (got {decimals!r})"
    if unit is not None and unit not in unit_names():
        return f"unknown unit {unit!r}; use one of {', '.join(unit_names())}"
    return None


class _Runner:
    """Runs the tools for one answer, numbering the evidence their facts add."""

    def __init__(self, question: str, records: list[StepRecord], numbered: dict[int, Evidence],
                 deps: AgentDeps):
        self.question, self.records, self.deps = question, records, deps
        self.numbered = dict(numbered)
        self.results: list[FigureResult] = []

    def __call__(self, name: str, args: dict[str, Any]) -> str:
        doc_ids = _doc_ids(args, self.records, self.deps)
        if name == "figure_lookup":
            metric = str(args.get("metric", "")).strip()
            period = str(args.get("period", "")).strip().upper()
            if metric not in known_metrics():
                return json.dumps({"error": f"unknown metric {metric!r}; use a catalogue key"})
            if not PERIOD.fullmatch(period):
                return json.dumps({"error": f"period {period!r} not understood; write fiscal "
                                            "periods as FY2023 or FY2024-Q1"})
            step = PlanStep(sub_question=f"{metric} {period}", tool="figure_lookup",
                            metric=metric, periods=[period], doc_ids=doc_ids)
            result = answer(lookup_request(step, self.deps, []), self.deps)
            emit(FactsFound(node="synthesize", metric=metric, periods=step.periods,
                            facts=fact_views(result.inputs), inputs=result.inputs,
                            missing=result.missing))
        elif name == "compute":
            from core.figures.formula import FormulaError

            formula = str(args.get("formula", ""))
            try:
                refs = formula_refs(formula)
            except FormulaError as exc:
                return json.dumps({"error": f"bad formula: {exc}"})
            problem = _unit_problem(args.get("unit") or None, args.get("decimals"))
            if problem:
                return json.dumps({"error": problem})
            request = FigureRequest(name=formula_name(formula), formula=formula,
                                    aggregate="formula",
                                    formula_source="question", doc_ids=doc_ids,
                                    periods=sorted({p for _, p in refs}),
                                    unit=args.get("unit") or None,
                                    decimals=args.get("decimals"))
            result = answer(request, self.deps)
            emit(FigureComputed(node="synthesize", formula=formula, result=result))
        else:
            return json.dumps({"error": f"no tool {name!r}"})
        return self._reply(result)

    def _reply(self, result: FigureResult) -> str:
        from core.figures.statement import figure_sentence, missing_sentence

        self.results.append(result)
        ids = [i.fact.chunk_id for i in result.inputs if i.fact is not None and i.fact.chunk_id]
        known = {ev.id for ev in self.numbered.values()}
        for cid, ev in fact_evidence([i for i in ids if i not in known], result.inputs,
                                     self.deps).items():
            self.numbered[len(self.numbered) + 1] = ev
            known.add(cid)
        cite = citer(self.numbered)
        company = company_of(result, self.question, self.deps)
        said = figure_sentence(result, company, cite) if result.ok else missing_sentence(result)
        return json.dumps({"figure": said, "value": result.display, "unit": result.unit,
                           "work": result.work, "missing": result.missing,
                           "inputs": [{"input": i.label, "value": i.value,
                                       "cite": cite(i.fact.chunk_id) if i.fact and
                                       i.fact.chunk_id else ""} for i in result.inputs]})


def offer_figure_tools(question: str, records: list[StepRecord],
                       numbered: dict[int, Evidence], messages: list[Any],
                       deps: AgentDeps) -> ToolFigures:
    """Offer the tools to the LLM before it answers (see the module docstring)."""
    from core.llm.tools import ToolCallError, call_with_tools

    runner = _Runner(question, records, numbered, deps)
    out = ToolFigures(numbered=dict(numbered))
    try:
        run = call_with_tools(deps.llm, [*messages, ("user", TOOL_PROMPT)], TOOLS, runner,
                              deps.settings, role=ROLE, guard=deps.llm_guard())
        usage = run.usage
    except ToolCallError as exc:
        usage = exc.usage
        out.warning = (f"{ROLE}: the look-up and compute tools could not be offered "
                       f"({exc}); answered from the plan's figures")
    out.results, out.numbered, out.usage = runner.results, runner.numbered, \
        to_role_usage(usage)
    out.calls = len(runner.results)
    return out


def tool_block(tools: ToolFigures, question: str, deps: AgentDeps) -> str:
    """The tool calls' figures for the answer call (authoritative, with their [n])."""
    from core.figures.statement import figure_sentence, missing_sentence

    cite = citer(tools.numbered)
    lines = [figure_sentence(r, company_of(r, question, deps), cite) if r.ok
             else missing_sentence(r) for r in tools.results]
    return "\n".join(f"- {ln}" for ln in lines)
