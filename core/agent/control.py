"""Control nodes: route, plan, review (interrupt), start of a step and revision.

Each node takes ``(state, deps)``, emits typed events and returns only the state
keys it changes. Nothing here ever re-runs the planner or resets the research
history; ``dispatch`` sends the steps out, ``step_graph`` wires each one's stages.
"""

from __future__ import annotations

import logging

from langgraph.types import interrupt

from core.agent.common import call_usage, current_step, usage_update, warn
from core.agent.deps import AgentDeps
from core.agent.events import (
    Clock,
    PlanApproved,
    PlanProposed,
    PlanRevised,
    RouteChosen,
    StepStarted,
    emit,
)
from core.agent.plan_edit import check_plan
from core.agent.policy.rule import bound_reached, carry_forward, revision_for
from core.agent.roles.planner import make_plan
from core.agent.roles.router import route_question
from core.agent.state import ResearchState, Revision, StepWork
from core.reading.model import as_reading

log = logging.getLogger(__name__)


def route_node(state: ResearchState, deps: AgentDeps) -> dict:
    """Fast path (one step) for a simple factual question, else the deep plan."""
    clock = Clock()
    started = state.get("started_at") or deps.clock()  # max_wall_s counts planning too, and
    # the command's start-up when the caller gives the time it started (``started_at``)
    deps.llm_guard().begin(started, deps.settings.max_wall_s)
    reading = read_for(state["question"], deps, state.get("doc_scope") or [])
    text = reading.text if reading is not None else state["question"]
    route = route_question(text, deps, state.get("doc_scope") or [])
    review = route.path == "deep" or state.get("review", "always") == "always"
    reason = route.reason + ("" if review else "; no plan review (ask for it to review "
                                               "every plan)")
    emit(RouteChosen(node="route", elapsed_ms=clock.ms, path=route.path, reason=reason,
                     review=review))
    return {"route": route.path, "route_reason": reason, "started_at": started,
            "reading": reading}


def read_for(question: str, deps: AgentDeps, scope: list[str]):
    """The question read once (``core.reading.read_question``) over the filings in scope;
    None without facts (a corpus of text only)."""
    from core.reading import read_plans

    if deps.facts is None or deps.corpus.fact_counts is None:
        return None
    docs = [d for d in deps.corpus.documents if not scope or d.doc_id in scope]
    try:
        return read_plans(question, docs, deps.facts, embedder=deps.text_embedder)[0]
    except Exception as exc:  # noqa: BLE001 - the reading is said, never ends a run
        log.warning("the question could not be read (%s): planned from its words", exc)
        return None


def plan_node(state: ResearchState, deps: AgentDeps) -> dict:
    """Propose the plan (LLM or offline rule), within max_steps (one step on the fast path)."""
    clock = Clock()
    scope = state.get("doc_scope") or []
    reading = as_reading(state.get("reading"))
    text = reading.text if reading is not None and reading.text else state["question"]
    steps, source, notes, call = make_plan(text, deps, scope)
    if call.value is not None and getattr(call.value, "reading", None) is not None:
        from core.reading.llm import merged

        docs = [d for d in deps.corpus.documents if not scope or d.doc_id in scope]
        reading, more = merged(reading, call.value.reading, state["question"], docs)
        notes += more
    warnings = [call.warning] if call.warning else []
    limit = 1 if state.get("route") == "fast" else deps.settings.max_steps
    search = [i for i, s in enumerate(steps) if not s.is_figure]
    if len(search) > limit:  # figure steps cost no search and no LLM: they are kept
        notes.append(f"plan cut from {len(steps)} to {len(steps) - len(search) + limit} "
                     "step(s)" + (" (fast path)" if limit == 1 else f" (max_steps={limit})"))
        keep = [i for i, s in enumerate(steps) if s.is_figure or i in search[:limit]]
        new = {old: k for k, old in enumerate(keep)}
        steps = [steps[i].model_copy(update={"depends_on": [new[d] for d in steps[i].depends_on
                                                             if d in new and new[d] < k]})
                 for k, i in enumerate(keep)]
    for w in warnings:
        warn("plan", None, w, "planner")
    emit(PlanProposed(node="plan", elapsed_ms=clock.ms, usage=call_usage(call), plan=steps,
                      source=source, notes=notes, reading=reading))
    return {"plan": steps, "plan_source": source, "step_index": 0, "attempt": 0,
            "reading": reading,
            "steps_run": 0, "warnings": warnings,
            "planning_s": deps.clock() - state.get("started_at", deps.clock()),
            **usage_update("planner", call)}


def review_node(state: ResearchState, deps: AgentDeps) -> dict:
    """Pause for the analyst; resume with None/True (accept) or an edited plan."""
    value = interrupt({"question": state["question"],
                       "plan": [s.model_dump() for s in state["plan"]]})
    edited = value not in (None, True, "approve", "accept")
    plan = state["plan"]
    reading = as_reading(state.get("reading"))
    if edited:
        plan = check_plan(value, deps.corpus.sections, web_available=deps.web_available)
        if reading is not None and reading.source != "analyst":  # steps edited by hand: the
            reading = reading.model_copy(update={"plan_edited": True})  # reading may not hold
    emit(PlanApproved(node="review", plan=plan, edited=edited))
    started = deps.clock() - state.get("planning_s", 0.0)  # the wait for review excluded
    deps.llm_guard().begin(started, deps.settings.max_wall_s)  # LLM calls end by the wall bound
    return {"plan": plan, "started_at": started, "step_index": 0, "attempt": 0,
            "reading": reading}


def start_step_node(state: ResearchState, deps: AgentDeps) -> dict:
    """Check the run's bounds, then announce the step (a retry after a revision is the
    same step; ``max_steps`` is the dispatcher's)."""
    index = state.get("step_index", 0)
    bound = bound_reached(state, deps)
    if bound is not None:
        warn("start_step", index, f"stopping: {bound.message}")
        return {"limit_hit": bound, "decision": "FINISH", "decision_reason": bound.message,
                "warnings": [bound.message]}
    step = current_step(state)
    emit(StepStarted(node="start_step", step=index, sub_question=step.sub_question,
                     tool=step.tool, attempt=state.get("attempt", 0), section=step.section,
                     doc_ids=step.doc_ids, companies=company_names(step.doc_ids, deps),
                     depends_on=step.depends_on))
    return {"work": StepWork(), "decision": "CONTINUE"}


def company_names(doc_ids: list[str], deps: AgentDeps) -> list[str]:
    """How the step's filings are shown: company and period, never hex ids."""
    out = []
    for doc_id in doc_ids:
        doc = deps.corpus.doc(doc_id)
        out.append(f"{doc.company} {doc.form_type} {doc.period}".strip() if doc else doc_id)
    return list(dict.fromkeys(out))


def revise_node(state: ResearchState, deps: AgentDeps) -> dict:
    """Apply the next revision to the current step and retry it; a section filter that
    returned nothing is also dropped from later steps on the same section and documents."""
    index = state.get("step_index", 0)
    before = current_step(state)
    after, change = revision_for(before, state, deps)
    plan = list(state["plan"])
    plan[index] = after
    work = state.get("work")
    carried = carry_forward(plan, index, before, change,
                            found_nothing=work is not None and not work.candidates)
    if carried:
        change += f"; also dropped from step(s) {', '.join(str(j + 1) for j, _, _ in carried)}"
    used = len(state.get("revisions", [])) + 1
    emit(PlanRevised(node="revise", step=index, change=change, before=before, after=after,
                     revisions_used=used))
    for j, new, why in carried:
        emit(PlanRevised(node="revise", step=j, change=why, before=plan[j], after=new,
                         revisions_used=used))
        plan[j] = new
    revision = Revision(step=index, reason=state.get("decision_reason", ""), change=change,
                        before=before, after=after)
    return {"plan": plan, "revisions": [revision], "attempt": state.get("attempt", 0) + 1}


def route_after_plan(state: ResearchState) -> str:
    """Review the plan, unless the fast path was taken and review was not asked for."""
    if state.get("route") == "fast" and state.get("review", "always") == "auto":
        return "dispatch"
    return "review"
