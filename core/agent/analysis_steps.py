"""The analyze step: figures of earlier steps combined into a verdict. No LLM, no search.

An ``analyze`` step depends on the figure steps that look up its inputs (one per company and
measure) and carries an ``AnalysisSpec`` (compare, rank, verdict, several figures). It reads
their records' ``FigureResult``s in ``depends_on`` order and calls
``core.analysis.combine.analyze``; the record keeps the ``AnalysisResult`` and, as its
evidence, the chunks every input figure is printed in (so the answer can cite each). The
``AnalysisDone`` event shows the verdict, the rows and the basis.
"""

from __future__ import annotations

from typing import Literal

from core.agent.common import current_step
from core.agent.deps import AgentDeps
from core.agent.events import Clock, EventBase, PolicyDecided, StepReflected, emit
from core.agent.figure_steps import fact_chunk_ids, fact_evidence
from core.agent.roles.figure_plan import named_company
from core.agent.state import ResearchState, StepRecord
from core.analysis.model import AnalysisResult
from core.figures.model import FigureResult


class AnalysisDone(EventBase):
    """An analyze step's result: the verdict, each row, and what decided it."""

    type: Literal["analysis_done"] = "analysis_done"
    result: AnalysisResult

    def line(self) -> str:
        r = self.result
        rows = "".join(f"\n    {row.label}, {row.period or '-'}: {row.display}"
                       + (f" ({row.missing})" if row.missing else "") for row in r.rows)
        basis = f"\n    basis: {r.basis}" if r.basis else ""
        notes = "".join(f"\n    note: {n}" for n in r.notes)
        return f"  {r.spec.kind}: {r.verdict or 'undecided'}{rows}{basis}{notes}"


def dependency_figures(state: ResearchState, depends_on: list[int]) -> list[FigureResult | None]:
    """The figure each step of ``depends_on`` found (its latest attempt), in that order."""
    latest: dict[int, StepRecord] = {}
    for rec in state.get("history", []):
        if rec.step in depends_on and rec.figure is not None:
            if rec.step not in latest or rec.attempt >= latest[rec.step].attempt:
                latest[rec.step] = rec
    return [latest[i].figure if i in latest else None for i in depends_on]


def subjects_of(figures: list[FigureResult], question: str, deps: AgentDeps) -> list[str]:
    """The company of each figure, as the question names it."""
    return [named_company(question, list(f.request.doc_ids), deps) for f in figures]


def analyze_node(state: ResearchState, deps: AgentDeps) -> dict:
    """Combine the figures of the steps this one depends on (see the module docstring)."""
    from core.analysis.combine import analyze

    clock = Clock()
    index, step = state.get("step_index", 0), current_step(state)
    spec = step.analysis
    found = dependency_figures(state, list(step.depends_on))
    figures = [f for f in found if f is not None]
    question = state.get("question", "")
    if spec is None or not figures:
        why = "the step has no analysis settings" if spec is None else \
            "none of the steps it depends on found a figure"
        text = f"Nothing to combine: {why}."
        record = StepRecord(step=index, attempt=state.get("attempt", 0),
                            sub_question=step.sub_question, tool="analyze", query="",
                            finding=text, coverage="none")
        emit(StepReflected(node="analyze", step=index, elapsed_ms=clock.ms, finding=text,
                           coverage="none", attempt=record.attempt))
        return {"history": [record], "decision": "CONTINUE"}
    result = analyze(spec, figures, subjects_of(figures, question, deps), deps.facts)
    inputs = [i for f in figures for i in f.inputs]
    ids = fact_chunk_ids(inputs)
    # a pick's lines are read by the analysis itself (not a step's figures): cited too
    ids += [c for row in result.rows for c in row.chunk_ids if c not in ids]
    evidence = fact_evidence(ids, inputs, deps)
    record = StepRecord(step=index, attempt=state.get("attempt", 0),
                        sub_question=step.sub_question, tool="analyze", query=spec.kind,
                        evidence_ids=[i for i in ids if i in evidence], finding=result.lead,
                        coverage="answered" if result.decided else "partial",
                        top_score=1.0 if result.decided else 0.0, analysis=result)
    emit(AnalysisDone(node="analyze", step=index, elapsed_ms=clock.ms, result=result))
    emit(PolicyDecided(node="policy", step=index, decision="CONTINUE",
                       reason=f"step {index + 1} is done (an analysis of the figures found: "
                              "nothing to revise)"))
    return {"history": [record], "evidence": evidence, "decision": "CONTINUE"}
