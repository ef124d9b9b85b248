"""Analysis planning: a question that combines figures becomes figure steps and an analyze step.

``core.analysis.question.parse_analysis`` reads the question (companies in the order named,
each company's latest fiscal year unless a year is named; the measures; compare, rank, a
verdict or several figures). Each figure it needs is one plan step that asks the plain
figure question it was read from ("What was Acme's operating margin?"): a ``figure_lookup``
for a reported line, a ``compute`` for a derived one (the compute step looks up its own
inputs). The ``analyze`` step depends on them and carries the ``AnalysisSpec``; every step
stays editable in review. Clauses that ask why stay text steps.
"""

from __future__ import annotations

import logging

from core.agent.deps import AgentDeps
from core.agent.roles.figure_catalog import formula_refs, metric_label
from core.agent.state import ANALYZE, PlanStep
from core.analysis.declared import KINDS
from core.analysis.question import AnalysisPlan
from core.figures.formula import FormulaError
from core.figures.model import FigureRequest

log = logging.getLogger(__name__)



def analysis_part(question: str, deps: AgentDeps, scope: list[str]) -> AnalysisPlan | None:
    """The analysis ``question`` asks for (None: not an analysis question, or no facts)."""
    parts = analysis_parts(question, deps, scope)
    return parts[0] if parts else None


def analysis_parts(question: str, deps: AgentDeps, scope: list[str]) -> list[AnalysisPlan]:
    """Every analysis ``question`` asks for: one per measure asked of several companies
    (``core.reading.read.read_plans``); [] when it asks none or there are no facts."""
    if deps.facts is None or deps.corpus.fact_counts is None:
        return []
    docs = [d for d in deps.corpus.documents if not scope or d.doc_id in scope]
    from core.reading.read import read_plans

    try:
        return read_plans(question, docs, deps.facts)[1]
    except (ValueError, KeyError, IndexError, FormulaError) as exc:  # a reader's fault must
        log.warning("analysis reading failed (%s): planned without it", exc)  # not end a run
        return []


def plan_doc_ids(plan: AnalysisPlan) -> list[str]:
    """Every filing the analysis reads."""
    return list(dict.fromkeys(i for r in plan.requests for i in r.doc_ids))


def figure_step(request: FigureRequest, text: str) -> PlanStep:
    """The one step that finds ``request``: a look-up of a reported line, or a compute step
    (which looks up its own inputs) for a derived figure."""
    refs = formula_refs(request.formula)
    company = ", ".join(request.companies) or "the company"
    if len(refs) == 1 and request.aggregate == "value":
        metric, period = refs[0]
        return PlanStep(
            sub_question=text, tool="figure_lookup", keywords=[metric_label(metric), period],
            doc_ids=list(request.doc_ids), metric=metric, periods=[period],
            unit=request.unit, decimals=request.decimals, member=request.member,
            justification=f"An input of the analysis: {company}'s reported "
                          f"{metric_label(metric)} for {period}, from its filings' facts.")
    return PlanStep(
        sub_question=text, tool="compute", keywords=[request.name], doc_ids=list(request.doc_ids),
        formula=request.formula, unit=request.unit, decimals=request.decimals,
        justification=f"An input of the analysis: {company}'s {request.name} = "
                      f"{request.formula}, its inputs looked up in the filings' facts.")


def analysis_steps(plan: AnalysisPlan, question: str, first: int) -> list[PlanStep]:
    """The figure steps and the analyze step of ``plan``; ``first`` is the plan index of the
    first step (for ``depends_on``)."""
    steps = [figure_step(r, q) for r, q in zip(plan.requests, plan.questions, strict=True)]
    spec = plan.spec
    who = ", ".join(dict.fromkeys(plan.who))
    decl = KINDS.get(spec.kind)
    how = decl.verb if decl is not None else "combines"
    test = f" ({spec.test})" if spec.test else ""
    steps.append(PlanStep(
        sub_question=question, tool=ANALYZE, keywords=[spec.name],
        doc_ids=plan_doc_ids(plan),
        depends_on=list(range(first, first + len(steps))), analysis=spec.model_copy(),
        justification=f"{spec.kind}{test}: {how} the {spec.name} of {who} from the figure "
                      "steps above (no text search, no LLM)."))
    return steps


def reading_steps(reading, documents) -> list[PlanStep] | None:
    """The figure steps (and analyze step) a reading's slots ask for, as ``analysis_steps``
    plans them (``core.reading.requests.plan_from_reading``); None when the slots make no
    answerable reading (no company or measure, a measure outside the catalogue)."""
    from core.analysis.question import _figure_question
    from core.analysis.subjects import short_name
    from core.reading.requests import plan_from_reading

    made = plan_from_reading(reading, documents)
    if made is None:
        return None
    if isinstance(made, FigureRequest):
        subject = reading.companies[0]
        from core.analysis.subjects import Subject

        who = Subject(short_name(subject.name), subject.name, list(subject.doc_ids))
        return [figure_step(made, _figure_question(who, made.name, made.periods[-1]))]
    from core.reading.requests import asked

    return analysis_steps(made, asked(reading) if reading.source == "analyst" else
                          reading.question, 0)
