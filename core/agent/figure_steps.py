"""Figure steps run: a look-up reads facts, a compute step does the arithmetic. No LLM.

``lookup_node``: for each period of the step, ``core.figures.compute.lookup`` picks the best
fact of the metric among the step's filings (``FactsFound`` reports every fact used, and the
alternatives that disagree, with source and page). ``compute_node``: the inputs come from the
look-ups the step depends on (an input no look-up fetched is looked up here), and
``core.figures.compute.compute`` evaluates the formula in the unit asked (``FigureComputed``
shows the arithmetic). A missing input is said, never guessed; a filing in scope that holds
no financial statements (an 8-K) is named. ``record_node`` keeps the step's record: the
figure, and the chunks the facts are printed in as its evidence (cited like any other).
"""

from __future__ import annotations

from core.agent.common import current_step
from core.agent.deps import AgentDeps
from core.agent.events import (
    Clock,
    FactsFound,
    FactView,
    FigureComputed,
    PolicyDecided,
    StepReflected,
    emit,
)
from core.agent.figure_plan import formula_refs, metric_label, named_company
from core.agent.retrieval import hit_to_evidence
from core.agent.state import Evidence, PlanStep, ResearchState, StepRecord
from core.figures.model import FigureInput, FigureRequest, FigureResult
from core.types import Hit


def lookup_request(step: PlanStep, period: str | None = None) -> FigureRequest:
    """What a look-up step asks: its metric for one period (or for all of its periods)."""
    metric = step.metric or ""
    periods = [period] if period else list(step.periods)
    return FigureRequest(name=metric_label(metric), metric=metric,
                         formula=f"{metric}[{periods[-1] if periods else ''}]",
                         formula_source="lookup", periods=periods, aggregate="value",
                         unit=step.unit, decimals=step.decimals, doc_ids=list(step.doc_ids))


def compute_request(step: PlanStep, deps: AgentDeps, scope: list[str]) -> FigureRequest:
    """What a compute step asks: the question's own request when the step's formula is still
    the one it was planned with (its aggregate and name kept), else the step's formula."""
    from core.agent.figure_plan import parse_request

    formula = step.formula or ""
    periods = sorted({p for _, p in formula_refs(formula)})
    base = parse_request(step.sub_question, deps, scope)
    update = {"unit": step.unit, "decimals": step.decimals, "doc_ids": list(step.doc_ids)}
    if base is not None and " ".join(base.formula.split()) == " ".join(formula.split()):
        return base.model_copy(update=update)
    name = base.name if base is not None else "the figure"
    return FigureRequest(name=name, metric=base.metric if base is not None else None,
                         formula=formula, formula_source="question", periods=periods,
                         aggregate="formula", **update)


def no_statements(doc_ids: list[str], deps: AgentDeps) -> list[str]:
    """Filings among ``doc_ids`` whose facts were read and hold none (an 8-K, a letter)."""
    counts = deps.corpus.fact_counts or {}
    out = []
    for doc_id in doc_ids:
        if counts.get(doc_id, -1) == 0:
            doc = deps.corpus.doc(doc_id)
            out.append(f"{doc.company} {doc.form_type} {doc.period}".strip() if doc else doc_id)
    return out


def not_extracted(doc_ids: list[str], deps: AgentDeps) -> list[str]:
    """Filings among ``doc_ids`` ingested before facts existed (no facts read yet)."""
    counts = deps.corpus.fact_counts or {}
    return [d for d in doc_ids if d not in counts]


def lookup_inputs(step: PlanStep, deps: AgentDeps, refs: list[tuple[str, str]] | None = None
                  ) -> list[FigureInput]:
    """One ``FigureInput`` per (metric, period) of the step (or of ``refs``)."""
    from core.figures.compute import lookup

    wanted = refs if refs is not None else [(step.metric or "", p) for p in step.periods]
    if deps.facts is None:
        return [FigureInput(ref=f"{m}[{p}]", label=f"{metric_label(m)}, {p}", metric=m,
                            period=p, note="no facts are available in this corpus")
                for m, p in wanted]
    return [lookup(deps.facts, m, p, list(step.doc_ids)) for m, p in wanted]


def _views(inputs: list[FigureInput]) -> list[FactView]:
    out = []
    for inp in inputs:
        if inp.fact is not None:
            out.append(FactView.from_fact(inp.fact, inp.ref, inp.period))
        out += [FactView.from_fact(f, inp.ref, inp.period, used=False)
                for f in inp.alternatives]
    return out


def _with_scope_notes(result: FigureResult, step: PlanStep, deps: AgentDeps) -> FigureResult:
    """The result with the filings in scope that hold no statements or no facts yet named."""
    empty = [n for n in no_statements(step.doc_ids, deps) if n not in result.no_statements]
    old = not_extracted(step.doc_ids, deps)
    notes = list(result.notes)
    if old:
        notes.append(f"{len(old)} filing(s) in scope were ingested before facts existed "
                     "(`python -m core facts --rebuild` reads them)")
    return result.model_copy(update={"no_statements": result.no_statements + empty,
                                     "notes": notes})


def lookup_result(step: PlanStep, inputs: list[FigureInput]) -> FigureResult:
    """The look-up as a result: the figure itself for one period (in the unit asked); for
    several periods, the inputs and their rows (a compute step or the answer states them)."""
    from core.figures.compute import compute

    if len(inputs) == 1:
        return compute(lookup_request(step, inputs[0].period), inputs)
    parts = [compute(lookup_request(step, inp.period), [inp]) for inp in inputs]
    return FigureResult(request=lookup_request(step), inputs=inputs,
                        unit=parts[-1].unit if parts else "",
                        rows=[r for p in parts for r in p.rows],
                        missing=[m for p in parts for m in p.missing],
                        notes=list(dict.fromkeys(n for p in parts for n in p.notes)))


def lookup_node(state: ResearchState, deps: AgentDeps) -> dict:
    """Look up the step's metric for each of its periods (see the module docstring)."""
    clock = Clock()
    index, step = state.get("step_index", 0), current_step(state)
    inputs = lookup_inputs(step, deps)
    result = _with_scope_notes(lookup_result(step, inputs), step, deps)
    emit(FactsFound(node="figure_lookup", step=index, elapsed_ms=clock.ms,
                    metric=step.metric or "", periods=list(step.periods), facts=_views(inputs),
                    inputs=inputs, missing=result.missing, no_statements=result.no_statements,
                    notes=result.notes))
    return {"work": state["work"].model_copy(update={
        "figure": result, "fact_ids": fact_chunk_ids(inputs)})}


def dependency_inputs(state: ResearchState, step: PlanStep) -> list[FigureInput]:
    """The inputs the look-ups this step depends on found (their latest records)."""
    out: dict[str, FigureInput] = {}
    for rec in state.get("history", []):
        if rec.step in step.depends_on and rec.figure is not None:
            out.update({inp.ref: inp for inp in rec.figure.inputs})
    return list(out.values())


def compute_node(state: ResearchState, deps: AgentDeps) -> dict:
    """Evaluate the step's formula over its inputs (see the module docstring)."""
    from core.figures.compute import compute

    clock = Clock()
    index, step = state.get("step_index", 0), current_step(state)
    request = compute_request(step, deps, state.get("doc_scope") or [])
    have = {inp.ref: inp for inp in dependency_inputs(state, step)}
    refs = formula_refs(request.formula)
    todo = [(m, p) for m, p in refs if f"{m}[{p}]" not in have]
    for inp in lookup_inputs(step, deps, todo) if todo else []:
        have[inp.ref] = inp
    inputs = [have[f"{m}[{p}]"] for m, p in refs if f"{m}[{p}]" in have]
    result = _with_scope_notes(compute(request, inputs), step, deps)
    if todo:
        emit(FactsFound(node="compute", step=index, elapsed_ms=clock.ms,
                        metric=", ".join(dict.fromkeys(m for m, _ in todo)),
                        periods=sorted({p for _, p in todo}),
                        facts=_views([have[f"{m}[{p}]"] for m, p in todo
                                      if f"{m}[{p}]" in have]),
                        inputs=inputs, missing=result.missing,
                        no_statements=result.no_statements))
    emit(FigureComputed(node="compute", step=index, elapsed_ms=clock.ms,
                        formula=request.formula, result=result))
    return {"work": state["work"].model_copy(update={
        "figure": result, "fact_ids": fact_chunk_ids(result.inputs)})}


def fact_chunk_ids(inputs: list[FigureInput]) -> list[str]:
    """Chunks the facts used are printed in, in input order, once each."""
    return list(dict.fromkeys(inp.fact.chunk_id for inp in inputs
                              if inp.fact is not None and inp.fact.chunk_id))


def fact_evidence(chunk_ids: list[str], inputs: list[FigureInput], deps: AgentDeps
                  ) -> dict[str, Evidence]:
    """Evidence for the chunks facts are printed in (labelled like any search hit, at the
    page of the fact)."""
    if not chunk_ids or deps.facts is None:
        return {}
    pages = {inp.fact.chunk_id: inp.fact.page for inp in inputs
             if inp.fact is not None and inp.fact.chunk_id and inp.fact.page}
    out = {}
    for chunk in deps.facts.get_chunks(chunk_ids):
        if pages.get(chunk.chunk_id):
            chunk = chunk.model_copy(update={"page": pages[chunk.chunk_id]})
        hit = Hit(chunk=chunk, document=deps.corpus.doc(chunk.doc_id), rank=1, score=1.0)
        out[chunk.chunk_id] = hit_to_evidence(hit)
    return out


def stated_results(result: FigureResult) -> list[FigureResult]:
    """The figures a result states: itself, or one per period for a look-up of several."""
    from core.figures.compute import compute

    req = result.request
    if req.formula_source != "lookup" or len(req.periods) <= 1:
        return [result]
    out = []
    for inp in result.inputs:
        one = req.model_copy(update={"periods": [inp.period],
                                     "formula": f"{req.metric}[{inp.period}]"})
        out.append(compute(one, [inp]))
    return out


def finding(result: FigureResult, company: str) -> str:
    """The step's finding: the figure stated (no markers), or what is missing."""
    from core.figures.statement import figure_sentence, missing_sentence

    if result.no_statements and not any(i.value is not None for i in result.inputs):
        return (f"{'; '.join(result.no_statements)}: no financial statements in this filing, "
                f"so no figure for {result.request.name} can be read from it.")
    parts = [figure_sentence(r, company, lambda _cid: "") if r.ok else missing_sentence(r)
             for r in stated_results(result)]
    return " ".join(parts)


def record_node(state: ResearchState, deps: AgentDeps) -> dict:
    """The figure step's record and evidence (the facts' chunks first, then any weak lines
    a text search found for a missing input)."""
    clock = Clock()
    index, step, work = state.get("step_index", 0), current_step(state), state["work"]
    result = work.figure
    assert result is not None
    company = named_company(state.get("question", ""), list(step.doc_ids), deps)
    evidence = fact_evidence(work.fact_ids, result.inputs, deps)
    kept = [h for h in work.reranked if h.chunk.chunk_id in work.evidence_ids]
    evidence.update({h.chunk.chunk_id: hit_to_evidence(h) for h in kept
                     if h.chunk.chunk_id not in evidence})
    found = all(r.ok for r in stated_results(result))
    text = finding(result, company)
    record = StepRecord(step=index, attempt=state.get("attempt", 0),
                        sub_question=step.sub_question, tool=step.tool,
                        query=step.formula or f"{step.metric} {' '.join(step.periods)}",
                        evidence_ids=[i for i in work.fact_ids if i in evidence]
                        + [i for i in work.evidence_ids if i not in work.fact_ids],
                        context=work.context, finding=text,
                        coverage="answered" if found else "none",
                        top_score=1.0 if found else 0.0, figure=result)
    emit(StepReflected(node="figure_record", step=index, elapsed_ms=clock.ms,
                       finding=record.finding, coverage=record.coverage,
                       attempt=record.attempt))
    emit(PolicyDecided(node="policy", step=index, decision="CONTINUE",
                       reason=f"step {index + 1} is done (a figure step: facts and "
                              "arithmetic, nothing to revise)"))
    return {"history": [record], "evidence": evidence, "decision": "CONTINUE",
            "work": work.model_copy(update={"finding": text, "coverage": record.coverage})}


def weak_search_step(step: PlanStep) -> PlanStep:
    """The text search a missing input falls back to: the nearest lines, weak evidence."""
    words = [metric_label(step.metric)] if step.metric else []
    words += [w for w in step.periods]
    return PlanStep(sub_question=step.sub_question if step.tool == "compute"
                    else f"{' '.join(words)}", tool="filing_search", keywords=words,
                    doc_ids=list(step.doc_ids))
