"""The research graph, wiring only.

    route -> plan -> review (interrupt; skipped on the fast path unless asked) -> dispatch
    dispatch -> Send(research_step) for each ready step, side by side -> dispatch (next wave)
             | synthesize -> END (all steps done, or a bound)
             | END (cancelled)

``research_step`` is one step's subgraph (``step_graph.py``: start_step, rewrite, search
filings or web, rerank, distill, reflect, policy; revise -> start_step while the policy
says REVISE; figure steps: figure_lookup or compute, figure_record); a step that depends on
others waits for them. Nothing goes back to ``plan``: progress and history are kept. Node
logic lives in ``control.py``, ``dispatch.py``, ``step_nodes.py`` and ``figure_steps.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import lru_cache

from langgraph.graph import END, START, StateGraph

from core.agent import control, dispatch, step_nodes
from core.agent.deps import AgentDeps
from core.agent.stages import STAGES
from core.agent.state import ResearchState
from core.agent.step_graph import research_step_node

NODES: dict[str, Callable] = {
    "route": control.route_node,
    "plan": control.plan_node,
    "review": control.review_node,
    "dispatch": dispatch.dispatch_node,
    "synthesize": step_nodes.synthesize_node,
}


def _bind(name: str, fn: Callable, deps: AgentDeps | None) -> Callable[[ResearchState], dict]:
    """The node with its deps bound; adds its run time to ``timings_ms``."""

    def node(state: ResearchState) -> dict:
        t0 = time.perf_counter()
        update = fn(state, deps)
        ms = (time.perf_counter() - t0) * 1000
        return {**update, "timings_ms": {name: round(ms, 1)}}

    node.__name__ = name
    return node


def build_graph(deps: AgentDeps | None, checkpointer=None):
    """Compile the research graph for ``deps`` (pass a checkpointer to pause and resume;
    ``deps=None`` compiles it for drawing only)."""
    g = StateGraph(ResearchState)
    for name, fn in NODES.items():
        g.add_node(name, _bind(name, fn, deps))
    g.add_node("research_step", research_step_node(deps))  # a step times its own stages
    g.add_edge(START, "route")
    g.add_edge("route", "plan")
    g.add_conditional_edges("plan", control.route_after_plan, ["review", "dispatch"])
    g.add_edge("review", "dispatch")
    g.add_conditional_edges("dispatch", dispatch.route_dispatch,
                            ["research_step", "synthesize", END])
    g.add_edge("research_step", "dispatch")
    g.add_edge("synthesize", END)
    return g.compile(checkpointer=checkpointer)


def picture() -> tuple[tuple[str, ...], tuple[tuple[str, str, bool], ...]]:
    """(nodes, edges) of the compiled graph with its step subgraph drawn inside
    (``get_graph(xray=True)``: a step's stages are ``research_step:<stage>``); edges carry
    their conditional flag. Drawn again when a stage is registered."""
    return _picture(tuple((s.name, s.follows) for s in STAGES))


@lru_cache(maxsize=4)
def _picture(stages: tuple) -> tuple[tuple[str, ...], tuple[tuple[str, str, bool], ...]]:
    drawable = build_graph(None).get_graph(xray=True)
    nodes = tuple(str(n) for n in drawable.nodes)
    edges = tuple((str(e.source), str(e.target), bool(e.conditional)) for e in drawable.edges)
    return nodes, edges
