"""The dispatcher: which plan steps run next, side by side.

``dispatch_node`` picks the steps whose dependencies are done (at most ``max_steps``
started in the run) and ``route_dispatch`` fans them out with LangGraph ``Send`` to the
step subgraph (``step_graph.py``): steps that do not depend on each other run side by side,
a dependent step waits for the steps it uses (their findings are in the history it
receives). Each step returns only what it adds: history, evidence, revisions, warnings,
usage, timings and its plan changes.

Cancel (``core.agent.cancel``) is checked here and before every stage of a step, so a
cancelled run stops at the next boundary in every branch and goes to END without an answer.
"""

from __future__ import annotations

from langgraph.constants import END
from langgraph.types import Send

from core.agent.cancel import cancelled
from core.agent.common import warn
from core.agent.deps import AgentDeps
from core.agent.policy.rule import bound_reached
from core.agent.state import ResearchState, StopReason

_RUN_BOUNDS = ("max_wall_s", "max_tokens")


def dispatch_node(state: ResearchState, deps: AgentDeps) -> dict:
    """The next wave of ready steps, or FINISH (all done, a bound) or CANCEL."""
    if cancelled():
        return {"decision": "CANCEL", "wave": []}
    plan = state["plan"]
    started = set(state.get("started", []))
    done = set(state.get("done", []))
    limit = state.get("limit_hit")
    bound = limit if limit is not None and limit.code in _RUN_BOUNDS else \
        bound_reached(state, deps)
    if bound is not None and len(done) < len(plan):
        warn("dispatch", None, f"stopping: {bound.message}")
        return {"decision": "FINISH", "wave": [], "limit_hit": bound,
                "warnings": [bound.message]}
    ready = [i for i in range(len(plan)) if i not in started
             and all(d in done or d >= len(plan) for d in plan[i].depends_on)]
    # max_steps bounds the searches; figure steps (facts and arithmetic) are not counted
    budget = deps.settings.max_steps - len([i for i in started if not plan[i].is_figure])
    search = [i for i in ready if not plan[i].is_figure]
    if search and budget <= 0 and len(search) == len(ready):
        left = len(plan) - len(started)
        stop = StopReason(code="max_steps", message=f"max_steps ({deps.settings.max_steps}) "
                          f"reached: {left} plan step(s) not run")
        warn("dispatch", None, f"stopping: {stop.message}")
        return {"decision": "FINISH", "wave": [], "limit_hit": stop,
                "warnings": [stop.message]}
    allowed = set(search[:max(budget, 0)])
    wave = [i for i in ready if plan[i].is_figure or i in allowed][:deps.settings.parallel_steps]
    if not wave:
        return {"decision": "FINISH", "wave": []}
    return {"decision": "CONTINUE", "wave": wave, "started": wave,
            "steps_run": len(started) + len(wave), "max_revisions": deps.settings.max_revisions}


def route_dispatch(state: ResearchState):
    """``Send`` one branch per step of the wave; synthesize when finished; END on cancel."""
    decision = state.get("decision")
    if decision == "CANCEL":
        return END
    if decision != "CONTINUE" or not state.get("wave"):
        return "synthesize"
    wave = state["wave"]
    left = max(0, state.get("max_revisions", 0) - len(state.get("revisions", [])))
    return [Send("research_step", {**state, "step_index": i, "attempt": 0,
                                   "revision_allowance": left // len(wave)
                                   + (1 if k < left % len(wave) else 0),
                                   "revisions_before": len(state.get("revisions", []))})
            for k, i in enumerate(wave)]
