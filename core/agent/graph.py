"""The research graph, wiring only.

    route -> plan -> review (interrupt; skipped on the fast path unless asked)
    -> start_step -> rewrite -> (by tool) search_filings | search_web
    -> rerank -> distill -> reflect -> policy -> start_step (CONTINUE, next step)
                                               | revise -> start_step (retry the same step)
                                               | synthesize -> END (FINISH or a bound)

CONTINUE goes to ``start_step``, never back to ``plan``: progress and history
are kept. Node logic lives in ``control.py`` and ``step_nodes.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from langgraph.graph import END, START, StateGraph

from core.agent import control, step_nodes
from core.agent.deps import AgentDeps
from core.agent.state import ResearchState

NODES: dict[str, Callable] = {
    "route": control.route_node,
    "plan": control.plan_node,
    "review": control.review_node,
    "start_step": control.start_step_node,
    "rewrite": step_nodes.rewrite_node,
    "search_filings": step_nodes.search_filings_node,
    "search_web": step_nodes.search_web_node,
    "rerank": step_nodes.rerank_node,
    "distill": step_nodes.distill_node,
    "reflect": step_nodes.reflect_node,
    "policy": control.policy_node,
    "revise": control.revise_node,
    "synthesize": step_nodes.synthesize_node,
}


def _bind(name: str, fn: Callable, deps: AgentDeps) -> Callable[[ResearchState], dict]:
    """The node with its deps bound; adds its run time to ``timings_ms``."""

    def node(state: ResearchState) -> dict:
        t0 = time.perf_counter()
        update = fn(state, deps)
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
    g.add_conditional_edges("plan", control.route_after_plan, ["review", "start_step"])
    g.add_edge("review", "start_step")
    g.add_conditional_edges("start_step", control.route_after_start, ["rewrite", "synthesize"])
    g.add_conditional_edges("rewrite", control.route_by_tool, ["search_filings", "search_web"])
    g.add_edge("search_filings", "rerank")
    g.add_edge("search_web", "rerank")
    g.add_edge("rerank", "distill")
    g.add_edge("distill", "reflect")
    g.add_edge("reflect", "policy")
    g.add_conditional_edges("policy", control.route_after_policy,
                            ["start_step", "revise", "synthesize"])
    g.add_edge("revise", "start_step")
    g.add_edge("synthesize", END)
    return g.compile(checkpointer=checkpointer)
