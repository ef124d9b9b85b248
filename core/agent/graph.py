"""The research graph, wiring only.

    route -> plan -> review (interrupt; skipped on the fast path unless asked) -> dispatch
    dispatch -> Send(research_step) for each ready step, side by side -> dispatch (next wave)
             | synthesize -> END (all steps done, or a bound)
             | END (cancelled)

``research_step`` is one step's stages (start, rewrite, search filings or web, rerank,
distill, reflect, policy; revise -> retry while the policy says REVISE); a step that
depends on others waits for them. Nothing goes back to ``plan``: progress and history
are kept. Node logic lives in ``control.py``, ``step_runner.py`` and ``step_nodes.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from langgraph.graph import END, START, StateGraph

from core.agent import control, step_nodes, step_runner
from core.agent.deps import AgentDeps
from core.agent.state import ResearchState

NODES: dict[str, Callable] = {
    "route": control.route_node,
    "plan": control.plan_node,
    "review": control.review_node,
    "dispatch": step_runner.dispatch_node,
    "research_step": step_runner.research_step_node,
    "synthesize": step_nodes.synthesize_node,
}
STEP_STAGES = ["start_step", "rewrite", "search_filings", "search_web", "rerank", "distill",
               "reflect", "policy", "revise"]
"""The stages ``research_step`` runs (their events and timings carry these names)."""
FIGURE_STAGES = ["start_step", "figure_lookup", "compute", "figure_record"]
"""The stages of a figure step (a text search for a missing input adds rewrite ... distill)."""


def _bind(name: str, fn: Callable, deps: AgentDeps) -> Callable[[ResearchState], dict]:
    """The node with its deps bound; adds its run time to ``timings_ms`` (a step branch
    times its own stages)."""

    def node(state: ResearchState) -> dict:
        t0 = time.perf_counter()
        update = fn(state, deps)
        if name == "research_step":
            return update
        ms = (time.perf_counter() - t0) * 1000
        return {**update, "timings_ms": {name: round(ms, 1)}}

    node.__name__ = name
    return node


def build_graph(deps: AgentDeps, checkpointer=None):
    """Compile the research graph for ``deps`` (pass a checkpointer to pause and resume)."""
    g = StateGraph(ResearchState)
    for name, fn in NODES.items():
        g.add_node(name, _bind(name, fn, deps))
    g.add_edge(START, "route")
    g.add_edge("route", "plan")
    g.add_conditional_edges("plan", control.route_after_plan, ["review", "dispatch"])
    g.add_edge("review", "dispatch")
    g.add_conditional_edges("dispatch", step_runner.route_dispatch,
                            ["research_step", "synthesize", END])
    g.add_edge("research_step", "dispatch")
    g.add_edge("synthesize", END)
    return g.compile(checkpointer=checkpointer)
