"""Running plan steps: the dispatcher and one step's whole research as one graph branch.

``dispatch_node`` picks the steps whose dependencies are done (at most ``max_steps``
started in the run) and ``route_dispatch`` fans them out with LangGraph ``Send``: steps
that do not depend on each other run side by side, a dependent step waits for the steps
it uses (their findings are in the history it receives). ``research_step_node`` runs one
step's stages (start, rewrite, search, rerank, distill, reflect, policy, and revise ->
retry while the policy says REVISE) on a private copy of the state, and returns only what
it adds: history, evidence, revisions, warnings, usage, timings and its plan changes.

Cancel (``core.agent.cancel``) is checked before every stage, so a cancelled run stops
at the next boundary in every branch and goes to END without an answer.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import replace

from langgraph.constants import END
from langgraph.types import Send

from core.agent import control, figure_steps, step_nodes
from core.agent.cancel import cancelled
from core.agent.common import current_step, warn
from core.agent.deps import AgentDeps
from core.agent.events import PolicyDecided, emit
from core.agent.learned_policy import consult as consult_learned
from core.agent.policy import bound_reached, decide
from core.agent.state import (
    ResearchState,
    StopReason,
    add_numbers,
    add_usage,
    merge_dict,
)

_REDUCE: dict[str, Callable] = {
    "history": lambda a, b: a + b, "revisions": lambda a, b: a + b,
    "warnings": lambda a, b: a + b, "evidence": merge_dict, "usage": add_usage,
    "timings_ms": add_numbers,
}
_RUN_BOUNDS = ("max_wall_s", "max_tokens")
STAGES: list[tuple[str, Callable]] = [
    ("rewrite", step_nodes.rewrite_node),
    ("search_filings", step_nodes.search_filings_node),  # or search_web, by the step's tool
    ("rerank", step_nodes.rerank_node),
    ("distill", step_nodes.distill_node),
    ("reflect", step_nodes.reflect_node),
]


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


class _Branch:
    """A private copy of the state for one step, and what the branch added to it."""

    def __init__(self, state: ResearchState):
        self.local = dict(state)
        self.added: dict = {}

    def apply(self, name: str, update: dict, ms: float) -> None:
        update = {**update, "timings_ms": {**update.get("timings_ms", {}), name: round(ms, 1)}}
        for key, value in update.items():
            if key in _REDUCE:
                empty = {} if key in ("evidence", "usage", "timings_ms") else []
                self.local[key] = _REDUCE[key](self.local.get(key) or empty, value)
                self.added[key] = _REDUCE[key](self.added.get(key) or empty, value)
            else:
                self.local[key] = value

    def run(self, name: str, fn: Callable, deps: AgentDeps) -> None:
        t0 = time.perf_counter()
        update = fn(self.local, deps)
        self.apply(name, update, (time.perf_counter() - t0) * 1000)


def _policy(state: ResearchState, deps: AgentDeps) -> dict:
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


def research_step_node(state: ResearchState, deps: AgentDeps) -> dict:
    """One step's research, revisions included (see the module docstring)."""
    index = state.get("step_index", 0)
    if state["plan"][index].is_figure:
        return figure_step(state, deps)
    branch = _Branch(state)
    before = list(state["plan"])
    while not cancelled():
        branch.run("start_step", control.start_step_node, deps)
        if branch.local.get("decision") == "FINISH":
            break
        for name, fn in STAGES:
            if cancelled():
                break
            if name == "search_filings" and current_step(branch.local).tool == "web_search":
                name, fn = "search_web", step_nodes.search_web_node
            branch.run(name, fn, deps)
        if cancelled():
            break
        branch.run("policy", _policy, deps)
        if branch.local.get("decision") != "REVISE":
            break
        branch.run("revise", control.revise_node, deps)
    after = branch.local["plan"]
    patch = [[i, s] for i, (old, s) in enumerate(zip(before, after, strict=True)) if old != s]
    out = {**branch.added, "done": [index]}
    if patch:
        out["plan"] = {"patch": patch}
    return _with_limit(out, branch, state)


def _with_limit(out: dict, branch: _Branch, state: ResearchState) -> dict:
    limit = branch.local.get("limit_hit")
    if limit is not None and limit is not state.get("limit_hit"):
        out["limit_hit"] = limit
    return out


def figure_step(state: ResearchState, deps: AgentDeps) -> dict:
    """A look-up or compute step (``figure_steps``): facts and arithmetic, no LLM. An input
    not found is said; the nearest lines of the text are then searched for (offline rules)
    and kept as weak evidence."""
    index = state.get("step_index", 0)
    branch = _Branch(state)
    branch.run("start_step", control.start_step_node, deps)
    if branch.local.get("decision") == "FINISH" or cancelled():
        return _with_limit({**branch.added, "done": [index]}, branch, state)
    step = current_step(branch.local)
    node = figure_steps.lookup_node if step.tool == "figure_lookup" else \
        figure_steps.compute_node
    branch.run(step.tool, node, deps)
    result = branch.local["work"].figure
    if result is not None and result.missing and not result.no_statements \
            and step.doc_ids and not cancelled():
        plan = list(branch.local["plan"])
        plan[index] = figure_steps.weak_search_step(step)
        branch.local["plan"] = plan
        offline = replace(deps, llm=None)  # figure steps never call the LLM
        for name, fn in STAGES[:-1]:  # rewrite, search, rerank, distill (no reflect)
            if not cancelled():
                branch.run(name, fn, offline)
        branch.local["plan"] = list(state["plan"])
    if cancelled():
        return _with_limit({**branch.added, "done": [index]}, branch, state)
    branch.run("figure_record", figure_steps.record_node, deps)
    return _with_limit({**branch.added, "done": [index]}, branch, state)
