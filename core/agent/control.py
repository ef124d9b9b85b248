"""Control nodes: plan, review (interrupt), start of a step, policy and revision.

Each node takes ``(state, deps)``, emits typed events and returns only the state
keys it changes. Continuing moves ``step_index`` forward; nothing here ever
re-runs the planner or resets the research history.
"""

from __future__ import annotations

from langgraph.types import interrupt

from core.agent.common import call_usage, current_step, usage_update, warn
from core.agent.deps import AgentDeps
from core.agent.events import (
    Clock,
    PlanApproved,
    PlanProposed,
    PlanRevised,
    PolicyDecided,
    StepStarted,
    emit,
)
from core.agent.learned_policy import consult as consult_learned
from core.agent.plan_edit import check_plan
from core.agent.planner import make_plan
from core.agent.policy import bound_reached, carry_forward, decide, revision_for
from core.agent.state import ResearchState, Revision, StepWork, StopReason


def plan_node(state: ResearchState, deps: AgentDeps) -> dict:
    """Propose the plan (LLM or offline rule), within max_steps."""
    clock = Clock()
    scope = state.get("doc_scope") or []
    steps, source, notes, call = make_plan(state["question"], deps, scope)
    warnings = [call.warning] if call.warning else []
    if len(steps) > deps.settings.max_steps:
        notes.append(f"plan cut from {len(steps)} to max_steps={deps.settings.max_steps} steps")
        steps = steps[: deps.settings.max_steps]
    for w in warnings:
        warn("plan", None, w, "planner")
    emit(PlanProposed(node="plan", elapsed_ms=clock.ms, usage=call_usage(call), plan=steps,
                      source=source, notes=notes))
    return {"plan": steps, "plan_source": source, "step_index": 0, "attempt": 0,
            "steps_run": 0, "warnings": warnings, **usage_update("planner", call)}


def review_node(state: ResearchState, deps: AgentDeps) -> dict:
    """Pause for the analyst; resume with None/True (accept) or an edited plan."""
    value = interrupt({"question": state["question"],
                       "plan": [s.model_dump() for s in state["plan"]]})
    edited = value not in (None, True, "approve", "accept")
    plan = state["plan"]
    if edited:
        plan = check_plan(value, deps.corpus.sections, web_available=deps.web_available)
    emit(PlanApproved(node="review", plan=plan, edited=edited))
    started = deps.clock()
    deps.llm_guard().begin(started, deps.settings.max_wall_s)  # LLM calls end by the wall bound
    return {"plan": plan, "started_at": started, "step_index": 0, "attempt": 0}


def start_step_node(state: ResearchState, deps: AgentDeps) -> dict:
    """Check the bounds, then announce the step (a retry after a revision is not a new step)."""
    index = state.get("step_index", 0)
    retry = state.get("attempt", 0) > 0
    bound = bound_reached(state, deps)
    if bound is None and not retry and state.get("steps_run", 0) >= deps.settings.max_steps:
        left = len(state["plan"]) - index
        bound = StopReason(code="max_steps", message=f"max_steps ({deps.settings.max_steps}) "
                           f"reached: {left} plan step(s) not run")
    if bound is not None:
        warn("start_step", index, f"stopping: {bound.message}")
        return {"limit_hit": bound, "decision": "FINISH", "decision_reason": bound.message,
                "warnings": [bound.message]}
    step = current_step(state)
    emit(StepStarted(node="start_step", step=index, sub_question=step.sub_question,
                     tool=step.tool, attempt=state.get("attempt", 0), section=step.section,
                     doc_ids=step.doc_ids, companies=company_names(step.doc_ids, deps),
                     depends_on=step.depends_on))
    return {"work": StepWork(), "steps_run": state.get("steps_run", 0) + (0 if retry else 1),
            "decision": "CONTINUE"}


def company_names(doc_ids: list[str], deps: AgentDeps) -> list[str]:
    """How the step's filings are shown: company and period, never hex ids."""
    out = []
    for doc_id in doc_ids:
        doc = deps.corpus.doc(doc_id)
        out.append(f"{doc.company} {doc.form_type} {doc.period}".strip() if doc else doc_id)
    return list(dict.fromkeys(out))


def policy_node(state: ResearchState, deps: AgentDeps) -> dict:
    """CONTINUE, REVISE or FINISH with a reason (rule over coverage and bounds)."""
    clock = Clock()
    index = state.get("step_index", 0)
    out = consult_learned(decide(state, deps), state, deps)
    emit(PolicyDecided(node="policy", step=index, elapsed_ms=clock.ms, decision=out.decision,
                       reason=out.reason))
    update: dict = {"decision": out.decision, "decision_reason": out.reason}
    if out.limit is not None:
        update["limit_hit"] = out.limit
    if out.decision == "CONTINUE":
        update.update(step_index=index + 1, attempt=0)
    return update


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


def route_after_start(state: ResearchState) -> str:
    return "synthesize" if state.get("decision") == "FINISH" else "rewrite"


def route_by_tool(state: ResearchState) -> str:
    return "search_web" if current_step(state).tool == "web_search" else "search_filings"


def route_after_policy(state: ResearchState) -> str:
    return {"CONTINUE": "start_step", "REVISE": "revise"}.get(state.get("decision"), "synthesize")
