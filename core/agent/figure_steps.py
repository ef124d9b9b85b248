"""Figure steps run: a look-up reads facts, a compute step does the arithmetic. No LLM.

Both ask ``core.figures.compute.answer_figure``: every input of the step's request is
looked up among the step's filings' facts (the best fact of the metric; one filing for
every period of a computation when one holds them all; a catalogue fallback for a line not
printed), then evaluated in the unit and rounding asked. A look-up's request is the
question's own when the step still asks what it was planned for ("X in FY2023 and how it
changed from FY2022": both periods), else its metric for its periods; a compute step's is
the question's when its formula is unchanged, else its (edited) formula. ``FactsFound``
reports every fact used and the alternatives that disagree, with source and page;
``FigureComputed`` the arithmetic. A missing input is said, never guessed; a filing in
scope that holds no financial statements (an 8-K) is named. ``record_node`` keeps the
step's record: the figure, and the chunks its facts are printed in as its evidence (cited
like any other).
"""

from __future__ import annotations

import re

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
from core.agent.roles.figure_catalog import formula_inputs, formula_name, formula_refs, metric_label
from core.agent.roles.figure_plan import named_company, parse_request
from core.agent.roles.retrieval import hit_to_evidence, removed_filings
from core.agent.state import Evidence, PlanStep, ResearchState, StepRecord
from core.figures.model import FigureInput, FigureRequest, FigureResult
from core.figures.question import fiscal_quarters
from core.foundation.pages import label_for
from core.foundation.types import Hit


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def lookup_request(step: PlanStep, deps: AgentDeps, scope: list[str]) -> FigureRequest:
    """What a look-up step asks (see the module docstring)."""
    metric = step.metric or ""
    member = " ".join((step.member or "").split()) or None
    periods = sorted(dict.fromkeys(p.strip().upper() for p in step.periods if p.strip()))
    update = {"unit": step.unit, "decimals": step.decimals, "doc_ids": list(step.doc_ids)}
    base = parse_request(step.sub_question, deps, scope)
    if base is not None and base.aggregate == "value":
        refs = formula_inputs(base.formula)
        if len(refs) == 1 and refs[0][0] == metric and refs[0][1] in periods \
                and set(base.periods) <= set(periods) and refs[0][2] == member:
            return base.model_copy(update={**update, "periods": periods})
    own = f"{{{member}}}" if member else ""
    name = f"{member} {metric_label(metric)}" if member else metric_label(metric)
    return FigureRequest(name=name, metric=metric,
                         formula=f"{metric}{own}[{periods[-1] if periods else ''}]",
                         formula_source="lookup", periods=periods, aggregate="value",
                         member=member, fiscal_quarters=fiscal_quarters(step.sub_question),
                         **update)


def compute_request(step: PlanStep, deps: AgentDeps, scope: list[str]) -> FigureRequest:
    """What a compute step asks (see the module docstring)."""
    formula = " ".join((step.formula or "").split())
    update = {"unit": step.unit, "decimals": step.decimals, "doc_ids": list(step.doc_ids)}
    base = parse_request(step.sub_question, deps, scope)
    if base is not None and _same(base.formula, formula):
        return base.model_copy(update=update)
    return FigureRequest(name=formula_name(formula), metric=None, formula=formula,
                         formula_source="question",
                         periods=sorted({p for _, p in formula_refs(formula)}),
                         aggregate="formula", fiscal_quarters=fiscal_quarters(step.sub_question),
                         **update)



def answer(request: FigureRequest, deps: AgentDeps) -> FigureResult:
    """The request looked up and computed over the corpus's facts (``answer_figure``)."""
    from core.figures.compute import answer_figure
    from core.figures.formula import FormulaError

    if deps.facts is None:
        return FigureResult(request=request, missing=["no facts are available in this "
                                                      "corpus (no fact store)"])
    try:
        return answer_figure(request, deps.facts)
    except FormulaError as exc:
        return FigureResult(request=request, missing=[f"cannot compute {request.name}: {exc}"])


PERIODIC = re.compile(r"^(?:10-?K|10-?Q|20-?F|40-?F)", re.IGNORECASE)
"""Forms that carry financial statements: zero facts read from one means its tables were
not recognised, not that it has none."""


def _name(doc_id: str, deps: AgentDeps) -> str:
    doc = deps.corpus.doc(doc_id)
    what = [doc.company, doc.form_type, doc.period] if doc else [doc_id]
    return " ".join(w for w in what if w and w != "unknown") or doc_id


def no_statements(doc_ids: list[str], deps: AgentDeps) -> list[str]:
    """Filings among ``doc_ids`` whose facts were read and hold none, and that are not
    periodic reports (an 8-K, a letter): they hold no financial statements."""
    counts = deps.corpus.fact_counts or {}
    out = []
    for doc_id in doc_ids:
        doc = deps.corpus.doc(doc_id)
        if counts.get(doc_id, -1) == 0 and not (doc and PERIODIC.match(doc.form_type or "")):
            out.append(_name(doc_id, deps))
    return out


def unread(doc_ids: list[str], deps: AgentDeps) -> list[str]:
    """Periodic reports among ``doc_ids`` from which no fact could be read."""
    counts = deps.corpus.fact_counts or {}
    return [_name(d, deps) for d in doc_ids if counts.get(d, -1) == 0
            and (doc := deps.corpus.doc(d)) is not None and PERIODIC.match(doc.form_type or "")]


def not_extracted(doc_ids: list[str], deps: AgentDeps) -> list[str]:
    """Filings among ``doc_ids`` ingested before facts existed (no facts read yet)."""
    counts = deps.corpus.fact_counts or {}
    return [d for d in doc_ids if d not in counts]


def fact_views(inputs: list[FigureInput]) -> list[FactView]:
    """Every fact of ``inputs`` as a step card shows it: the one used, then alternatives."""
    out = []
    for inp in inputs:
        if inp.fact is not None:
            out.append(FactView.from_fact(inp.fact, inp.ref, inp.period))
        out += [FactView.from_fact(f, inp.ref, inp.period, used=False)
                for f in inp.alternatives]
    return out


def _with_scope_notes(result: FigureResult, step: PlanStep, deps: AgentDeps) -> FigureResult:
    """The result with the filings in scope that hold no statements or no facts yet named."""
    empty = no_statements(step.doc_ids, deps)
    if not empty and result.no_statements and not unread(step.doc_ids, deps):
        empty = list(result.no_statements)
    old = not_extracted(step.doc_ids, deps)
    notes = list(result.notes)
    if old:
        notes.append(f"{len(old)} filing(s) in scope were ingested before facts existed "
                     "(`python -m core facts --rebuild` reads them)")
    notes += [f"No figures could be read from the financial statements of {n} (its tables "
              "were not recognised)." for n in unread(step.doc_ids, deps)]
    missing = list(result.missing)
    gone = removed_filings(step.doc_ids, deps)
    if gone:  # deleted while the plan waited (or the run went): said as such, never "none"
        names = "; ".join(_name(d, deps) for d in gone)
        was = "was" if len(gone) == 1 else "were"
        left = [d for d in step.doc_ids if d not in gone]
        notes.append(f"{names} {was} deleted from the corpus after the plan was made; "
                     + ("this step looks in the rest of its filings." if left else
                        "this step has no filing left to look its figures up in."))
        if not left:
            empty = [n for n in empty if n not in names]
            missing = [m.replace(" in the filings loaded", f": {names} {was} deleted after "
                                 "the plan was made") for m in missing]
    return result.model_copy(update={"no_statements": list(empty), "notes": notes,
                                     "missing": missing})


def lookup_node(state: ResearchState, deps: AgentDeps) -> dict:
    """Look up the step's metric for each of its periods (see the module docstring)."""
    clock = Clock()
    index, step = state.get("step_index", 0), current_step(state)
    result = _with_scope_notes(answer(lookup_request(step, deps, state.get("doc_scope") or []),
                                      deps), step, deps)
    emit(FactsFound(node="figure_lookup", step=index, elapsed_ms=clock.ms,
                    metric=step.metric or "", periods=list(result.request.periods),
                    facts=fact_views(result.inputs), inputs=result.inputs, missing=result.missing,
                    no_statements=result.no_statements, notes=result.notes))
    return _figure_update(state, step, result)


def _figure_update(state: ResearchState, step: PlanStep, result: FigureResult) -> dict:
    """The step's figure so far; an input not found (in filings that hold statements) also
    sets the text search for its nearest lines (``weak_search_step``)."""
    update: dict = {"work": state["work"].model_copy(update={
        "figure": result, "fact_ids": fact_chunk_ids(result.inputs)})}
    if result.missing and not result.no_statements and step.doc_ids:
        update["weak_step"] = weak_search_step(step)
    return update


def dependency_inputs(state: ResearchState, step: PlanStep) -> dict[str, FigureInput]:
    """The inputs the look-ups this step depends on found, by reference."""
    out: dict[str, FigureInput] = {}
    for rec in state.get("history", []):
        if rec.step in step.depends_on and rec.figure is not None:
            out.update({inp.ref: inp for inp in rec.figure.inputs})
    return out


def compute_node(state: ResearchState, deps: AgentDeps) -> dict:
    """Evaluate the step's formula (see the module docstring); the inputs its look-ups did
    not show as used here (another fact, or not looked up) are reported too."""
    clock = Clock()
    index, step = state.get("step_index", 0), current_step(state)
    request = compute_request(step, deps, state.get("doc_scope") or [])
    result = _with_scope_notes(answer(request, deps), step, deps)
    shown = dependency_inputs(state, step)
    new = [i for i in result.inputs if i.ref not in shown or (
        i.fact is not None and (shown[i.ref].fact is None
                                or shown[i.ref].fact.fact_id != i.fact.fact_id))]
    if new:
        emit(FactsFound(node="compute", step=index, elapsed_ms=clock.ms,
                        metric=", ".join(dict.fromkeys(i.metric for i in new)),
                        periods=sorted({i.period for i in new}), facts=fact_views(new),
                        inputs=new, missing=[i.note for i in new if i.value is None],
                        no_statements=result.no_statements,
                        notes=[n for n in result.notes if "filing" in n.lower()]))
    emit(FigureComputed(node="compute", step=index, elapsed_ms=clock.ms,
                        formula=request.formula, result=result))
    return _figure_update(state, step, result)


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
    facts = {inp.fact.chunk_id: inp.fact for inp in inputs
             if inp.fact is not None and inp.fact.chunk_id and inp.fact.page}
    out = {}
    for chunk in deps.facts.get_chunks(chunk_ids):
        fact = facts.get(chunk.chunk_id)
        if fact is not None and fact.page != chunk.page:
            # the page and its printed number move together: a label left at the chunk's
            # first page said "page 53" in Sources for a row the peer table put on p. 54
            label = fact.page_label or label_for(fact.page, chunk.page, chunk.page_label)
            chunk = chunk.model_copy(update={"page": fact.page, "page_label": label})
        hit = Hit(chunk=chunk, document=deps.corpus.doc(chunk.doc_id), rank=1, score=1.0)
        out[chunk.chunk_id] = hit_to_evidence(hit)
    return out


def finding(result: FigureResult, company: str) -> str:
    """The step's finding: the figure stated (no markers), or what is missing."""
    from core.figures.statement import figure_sentence, missing_sentence

    if result.ok:
        return figure_sentence(result, company, lambda _cid: "")
    return missing_sentence(result)


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
    found = result.ok
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
