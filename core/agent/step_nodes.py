"""Per-step nodes: rewrite, search (filings or web), rerank, distill, reflect, policy;
synthesis.

Each node takes ``(state, deps)``, emits typed events and returns only the keys
it changes. Role logic lives in the role modules; this file moves data between
the state and the roles and reports what happened.
"""

from __future__ import annotations

import re
from dataclasses import replace

from core.agent.common import (
    call_usage,
    call_warnings,
    current_step,
    filter_terms,
    usage_update,
    warn,
)
from core.agent.deps import AgentDeps
from core.agent.events import (
    AnswerReady,
    Clock,
    ContextDistilled,
    HitsReranked,
    HitsRetrieved,
    HitView,
    PolicyDecided,
    QueryRewritten,
    StepReflected,
    StrategyChosen,
    emit,
)
from core.agent.policy.learned import consult as consult_learned
from core.agent.policy.rule import bound_reached, decide
from core.agent.roles.answer import final_answer
from core.agent.roles.distill import distill
from core.agent.roles.quality import step_quality
from core.agent.roles.reflect import offline_finding, offline_link_finding
from core.agent.roles.retrieval import (
    UNDATED_RETRY,
    hit_to_evidence,
    rerank_hits,
    search_filings,
    search_web,
)
from core.agent.roles.rewriter import rewrite
from core.agent.roles.web_dates import web_after
from core.agent.state import Answer, ResearchState, StepRecord, StopReason
from core.reading.model import Reading, as_reading
from core.retrieval.web_about import about


def _budget_deps(state: ResearchState, deps: AgentDeps, node: str) -> tuple[AgentDeps, list]:
    """``deps`` without the LLM once the token or time budget is spent (offline rules then)."""
    if deps.llm is None:
        return deps, []
    bound = bound_reached(state, deps)
    if bound is None:
        return deps, []
    msg = f"{node}: {bound.message}; using the offline rule for this call"
    return replace(deps, llm=None), warn(node, state.get("step_index"), msg)


def rewrite_node(state: ResearchState, deps: AgentDeps) -> dict:
    clock = Clock()
    index, step = state.get("step_index", 0), current_step(state)
    deps, warnings = _budget_deps(state, deps, "rewrite")
    query, strategy, why, source, call = rewrite(step, state.get("history", []), deps,
                                                 state.get("doc_scope") or [])
    warnings += call_warnings("rewrite", index, call, "rewriter")
    emit(QueryRewritten(node="rewrite", step=index, elapsed_ms=clock.ms, usage=call_usage(call),
                        original=step.sub_question, query=query, source=source))
    if step.tool == "web_search":
        name = getattr(deps.web, "name", "web search")
        strategy, why = None, f"web steps use the web search provider ({name}); " \
            "the retrieval strategy applies to filing search only"
    emit(StrategyChosen(node="rewrite", step=index, elapsed_ms=clock.ms,
                        strategy=strategy or "web", justification=why, source=source))
    work = state["work"].model_copy(update={"query": query, "strategy": strategy})
    return {"work": work, "warnings": warnings, **usage_update("rewriter", call)}


def search_filings_node(state: ResearchState, deps: AgentDeps) -> dict:
    clock = Clock()
    index, step, work = state.get("step_index", 0), current_step(state), state["work"]
    strategy = work.strategy or "hybrid"
    hits, filters, timings, problem = search_filings(step, work.query, strategy,
                                                     state.get("doc_scope") or [], deps)
    warnings = warn("search_filings", index, problem, "retrieval") if problem else []
    emit(HitsRetrieved(node="search_filings", step=index, elapsed_ms=clock.ms,
                       tool="filing_search", query=work.query, strategy=strategy,
                       filters=filters, hits=[HitView.from_hit(h) for h in hits],
                       timings_ms=timings))
    return {"work": work.model_copy(update={"candidates": hits}), "warnings": warnings}


def search_web_node(state: ResearchState, deps: AgentDeps) -> dict:
    clock = Clock()
    index, step, work = state.get("step_index", 0), current_step(state), state["work"]
    after, why = web_after(step, state.get("question", ""), state.get("plan", []),
                           state.get("doc_scope") or [], deps.corpus)
    hits, problem = search_web(work.query, deps, after)
    found = len(hits)
    hits, named = about(hits, step.sub_question, deps.corpus.documents)
    if found and not hits:
        problem = "; ".join(filter(None, [problem, f"none of the {found} web result(s) "
                                          f"mentions {' or '.join(named)}"]))
    warnings = warn("search_web", index, problem, "retrieval") if problem else []
    dated = after and not (problem and UNDATED_RETRY in problem)
    filters = {"after": [after], "after_reason": [why]} if dated else {}
    if named:
        filters["about"] = named
    emit(HitsRetrieved(node="search_web", step=index, elapsed_ms=clock.ms, tool="web_search",
                       query=work.query, strategy="web", filters=filters,
                       hits=[HitView.from_hit(h) for h in hits],
                       timings_ms={"total": clock.ms}))
    return {"work": work.model_copy(update={"candidates": hits}), "warnings": warnings}


def rerank_node(state: ResearchState, deps: AgentDeps) -> dict:
    clock = Clock()
    index, step, work = state.get("step_index", 0), current_step(state), state["work"]
    kept, info, problem = rerank_hits(work.query, work.candidates, step.tool, deps)
    warnings = warn("rerank", index, problem, "retrieval") if problem else []
    emit(HitsReranked(node="rerank", step=index, elapsed_ms=clock.ms, rerank_query=work.query,
                      hits=[HitView.from_hit(h) for h in kept], reranker=info))
    return {"work": work.model_copy(update={"reranked": kept, "reranker": info}),
            "warnings": warnings}


def distill_node(state: ResearchState, deps: AgentDeps) -> dict:
    clock = Clock()
    index, step, work = state.get("step_index", 0), current_step(state), state["work"]
    warnings: list[str] = []
    if not work.reranked:
        context, ids, finding, coverage, missing, source, call = \
            "", [], "", "none", "no evidence was retrieved", "offline", None
    else:
        deps, warnings = _budget_deps(state, deps, "distill")
        d = distill(step, work.query, work.reranked, filter_terms(step, deps), deps)
        context, ids, finding, coverage, missing, source, call = \
            d.context, d.evidence_ids, d.finding, d.coverage, d.missing, d.source, d.call
        warnings += call_warnings("distill", index, call, "distiller")
        if call.value is not None and source == "offline":
            warnings += warn("distill", index, "distiller: the LLM's context cited no evidence "
                             "id; used the offline rule instead", "distiller")
    emit(ContextDistilled(node="distill", step=index, elapsed_ms=clock.ms, usage=call_usage(call),
                          context=context, evidence_ids=ids, source=source))
    work = work.model_copy(update={"context": context, "evidence_ids": ids, "finding": finding,
                                   "coverage": coverage, "missing": missing})
    return {"work": work, "warnings": warnings, **usage_update("distiller", call)}


def reflect_node(state: ResearchState, deps: AgentDeps) -> dict:
    clock = Clock()
    index, step, work = state.get("step_index", 0), current_step(state), state["work"]
    record = StepRecord(
        step=index, attempt=state.get("attempt", 0), sub_question=step.sub_question,
        tool=step.tool, query=work.query, strategy=work.strategy, evidence_ids=work.evidence_ids,
        context=work.context, finding=work.finding, coverage=work.coverage,
        top_score=max((h.score for h in work.reranked), default=0.0),
    )
    if not work.finding:
        linked = offline_link_finding(record, state.get("history", []),
                                      state.get("evidence", {}), deps.corpus,
                                      state.get("question", ""))
        finding, coverage = linked or (offline_finding(step, work.context, work.coverage),
                                       work.coverage)
        record = record.model_copy(update={"finding": finding, "coverage": coverage})
    quality = step_quality(step.sub_question, work.context, filter_terms(step, deps),
                           work.query)
    record = record.model_copy(update={"quality": quality})
    kept = [h for h in work.reranked if h.chunk.chunk_id in work.evidence_ids]
    emit(StepReflected(node="reflect", step=index, elapsed_ms=clock.ms, finding=record.finding,
                       coverage=record.coverage, attempt=state.get("attempt", 0),
                       quality=quality.model_dump()))
    return {"history": [record], "evidence": {h.chunk.chunk_id: hit_to_evidence(h) for h in kept},
            "work": work.model_copy(update={"finding": record.finding,
                                            "coverage": record.coverage})}


def policy_node(state: ResearchState, deps: AgentDeps) -> dict:
    """The policy for one step of a parallel plan: REVISE or done (the dispatcher owns
    max_steps and the order of steps)."""
    index = state.get("step_index", 0)
    # max_revisions is the run's: this branch may use its share of what was left when the
    # wave started (so side-by-side steps cannot overshoot it together)
    seen = list(state.get("revisions", []))
    allowance = state.get("revision_allowance")
    if allowance is not None:
        mine = seen[state.get("revisions_before", 0):]
        seen = [None] * max(0, deps.settings.max_revisions - allowance) + mine
    view = {**state, "steps_run": 0, "revisions": seen}
    out = consult_learned(decide(view, deps), view, deps)
    reason = re.sub(r"moving on to step \d+ of \d+|all plan steps are done",
                    f"step {index + 1} is done", out.reason)
    emit(PolicyDecided(node="policy", step=index, decision=out.decision, reason=reason))
    update: dict = {"decision": out.decision, "decision_reason": reason}
    if out.limit is not None and out.limit.code != "max_steps":
        update["limit_hit"] = out.limit
    return update


def with_reading(answer: Answer, reading: Reading | None, history: list) -> Answer:
    """The answer with its reading said: under its first line ("Read as: ...") when figures
    answered it (an analysis or a figure step ran); a text answer says first what figures
    could not answer, and its reading last."""
    if reading is None or not answer.text.strip():
        return answer
    if not reading.figures or not any(r.analysis is not None or r.figure is not None
                                      for r in history):
        if reading.figures:  # read as figures, answered from text: the reading would mislead
            reading = reading.model_copy(update={"kind": "text"})
        head = f"{reading.not_answered()}\n\n" if reading.unread else ""
        text = f"{head}{answer.text}\n\n{reading.summary()}"
        return answer.model_copy(update={"text": text, "reading": reading})
    first, _, rest = answer.text.partition("\n")
    said = "\n".join(x for x in (reading.summary(), reading.not_answered()) if x)
    text = f"{first}\n{said}" + (f"\n{rest}" if rest else "")
    return answer.model_copy(update={"text": text, "reading": reading})


def unasked_parts(question: str, plan: list, documents=()) -> list[str]:
    """The question's clauses no plan step asks (``plan_rules.unasked_clauses``)."""
    from core.agent.roles.plan_rules import unasked_clauses

    return unasked_clauses(question, plan, documents) if plan else []


def synthesize_node(state: ResearchState, deps: AgentDeps) -> dict:
    clock = Clock()
    history = state.get("history", [])
    missing = unasked_parts(state["question"], state.get("plan", []), deps.corpus.documents)
    stop = state.get("limit_hit") or StopReason(code="completed", message=(
        "all plan steps were researched" if not missing else
        f"the plan's steps were researched; no step asked {len(missing)} part(s) of the "
        "question: " + "; ".join(f'"{c}"' for c in missing)))
    deps, warnings = _budget_deps(state, deps, "synthesize")
    final = final_answer(state["question"], history, state.get("evidence", {}), stop, deps)
    answer, invalid = with_reading(final.answer, as_reading(state.get("reading")), history), \
        final.answer.invalid_markers
    if missing and answer.text.strip():  # said in the answer, never left out in silence
        answer = answer.model_copy(update={"text": f"{answer.text}\n\nNot researched (no "
                                           "step of the plan asked it): " + "; ".join(
                                               f'"{c}"' for c in missing) + "."})
    warnings += [w for msg in final.warnings for w in warn("synthesize", None, msg, "synthesizer")]
    if invalid:
        warnings += warn("synthesize", None, f"synthesis: removed {len(invalid)} citation "
                         f"marker(s) not in the run's evidence: {', '.join(invalid)}",
                         "synthesizer")
    emit(AnswerReady(node="synthesize", elapsed_ms=clock.ms, usage=call_usage(final.call),
                     answer=answer.text, citations=[c.model_dump() for c in answer.citations],
                     invalid_markers=invalid, not_found=answer.not_found,
                     stop_reason=stop.code, stop_message=stop.message, source=answer.source,
                     checks=[c.model_dump() for c in answer.checks],
                     figures=[f.model_dump() for f in answer.figures]))
    return {"answer": answer, "stop": stop, "warnings": warnings,
            "usage": {role: u for role, u in final.usage.items()}}
