"""One plan step as a LangGraph subgraph, wiring only.

    text step:   start_step -> rewrite -> search_filings | search_web -> rerank -> distill
                 -> reflect -> policy -> END, or -> revise -> start_step (the policy said
                 REVISE)
    figure step: start_step -> figure_lookup | compute -> figure_record -> END, or (an input
                 missing) -> rewrite -> search_filings -> rerank -> distill -> figure_record
                 (the nearest lines of the text, offline rules, kept as weak evidence)

A bound reached at ``start_step`` or a cancel (``core.agent.cancel``, checked before every
stage) ends the step. The dispatcher reaches the step with ``Send("research_step", ...)``;
``research_step_node`` hands the subgraph the run's state with what the run had gathered so
far set apart (``prior``), so the step's reducers (``state.py``) collect only what the step
adds, and returns that with the plan changes as a patch. Node logic lives in
``control.py``, ``step_nodes.py`` and ``figure_steps.py``.
"""

from __future__ import annotations

import time
import typing
from collections.abc import Callable
from dataclasses import replace

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph

from core.agent import control, figure_steps, step_nodes
from core.agent.cancel import cancelled
from core.agent.deps import AgentDeps
from core.agent.state import PlanStep, ResearchState


class StepState(ResearchState, total=False):
    """The state of one step's subgraph: the run's state as the step received it, with
    what the run had gathered before the step set apart in ``prior``."""

    prior: dict
    """The run's ``PRIOR`` channels when the step started; a node sees them merged with
    what the step added (``step_view``)."""
    weak_step: PlanStep | None
    """A figure step with an input missing: the text search its text stages run instead of
    the step (offline rules; the lines found are weak evidence)."""


class StepResult(typing.TypedDict, total=False):
    """What a step returns to the run (its own additions only)."""

    plan: list[PlanStep]
    history: list
    evidence: dict
    revisions: list
    warnings: list
    usage: dict
    timings_ms: dict
    limit_hit: object


PRIOR = ("history", "evidence", "revisions", "warnings", "usage", "timings_ms", "limit_hit")
"""Channels a step adds to (their reducers are ``ResearchState``'s)."""
_REDUCERS: dict[str, Callable] = {
    key: typing.get_args(hint)[1]
    for key, hint in typing.get_type_hints(ResearchState, include_extras=True).items()
    if key in PRIOR}
TEXT_STAGES = ("rewrite", "search_filings", "search_web", "rerank", "distill", "reflect")


def step_view(state: StepState, *, text: bool = False) -> ResearchState:
    """What a node of the step reads: the run's channels as they stand in this branch
    (``prior`` reduced with the step's own additions); for a text stage of a figure step's
    weak search, that search's step in place of the figure step."""
    prior = state.get("prior") or {}
    view: dict = {k: v for k, v in state.items() if k not in ("prior", "weak_step")}
    for key, reduce in _REDUCERS.items():
        if key in prior or key in state:
            view[key] = reduce(prior.get(key), state.get(key)) if key in prior \
                else state.get(key)
    weak = state.get("weak_step")
    if text and weak is not None:
        plan = list(view["plan"])
        plan[view.get("step_index", 0)] = weak
        view["plan"] = plan
    return view  # type: ignore[return-value]


def _stage(name: str, fn: Callable, deps: AgentDeps) -> Callable[[StepState], dict]:
    """The stage with its deps bound; nothing once the run is cancelled; adds its run time
    to ``timings_ms``. A figure step's weak search runs its text stages with no LLM."""
    text = name in TEXT_STAGES

    def node(state: StepState) -> dict:
        if cancelled():
            return {}
        bound = replace(deps, llm=None) if text and state.get("weak_step") is not None \
            else deps
        t0 = time.perf_counter()
        update = fn(step_view(state, text=text), bound)
        ms = round((time.perf_counter() - t0) * 1000, 1)
        return {**update, "timings_ms": {**update.get("timings_ms", {}), name: ms}}

    node.__name__ = name
    return node


NODES: dict[str, Callable] = {
    "start_step": control.start_step_node,
    "rewrite": step_nodes.rewrite_node,
    "search_filings": step_nodes.search_filings_node,
    "search_web": step_nodes.search_web_node,
    "rerank": step_nodes.rerank_node,
    "distill": step_nodes.distill_node,
    "reflect": step_nodes.reflect_node,
    "policy": step_nodes.policy_node,
    "revise": control.revise_node,
    "figure_lookup": figure_steps.lookup_node,
    "compute": figure_steps.compute_node,
    "figure_record": figure_steps.record_node,
}


def after_start(state: StepState) -> str:
    """The step's first stage by its tool, or END (a bound reached, cancelled)."""
    if cancelled() or state.get("decision") == "FINISH":
        return END
    step = step_view(state)["plan"][state.get("step_index", 0)]
    return step.tool if step.is_figure else "rewrite"


def after_rewrite(state: StepState) -> str:
    """Search the filings or the web, by the step's tool."""
    if cancelled():
        return END
    step = step_view(state, text=True)["plan"][state.get("step_index", 0)]
    return "search_web" if step.tool == "web_search" else "search_filings"


def after_figure(state: StepState) -> str:
    """A missing input: search the text for its nearest lines; else record the figure."""
    if cancelled():
        return END
    return "rewrite" if state.get("weak_step") is not None else "figure_record"


def after_distill(state: StepState) -> str:
    """Reflect on a text step; a figure step's weak search goes back to its record."""
    if cancelled():
        return END
    return "figure_record" if state.get("weak_step") is not None else "reflect"


def after_policy(state: StepState) -> str:
    """Revise and retry while the policy says REVISE; else the step is done."""
    return "revise" if state.get("decision") == "REVISE" and not cancelled() else END


class _NoCheckpoints(BaseCheckpointSaver):
    """The step keeps no checkpoints of its own: the run's checkpoint after the step is the
    unit of restart (a step cut short runs again from its start). Not ``checkpointer=False``:
    LangGraph leaves such a subgraph out of ``get_graph(xray=True)``."""

    def get_tuple(self, config):
        return None

    def list(self, config, **kwargs):
        return iter(())

    def put(self, config, checkpoint, metadata, new_versions):
        return {"configurable": {**config["configurable"], "checkpoint_id": checkpoint["id"]}}

    def put_writes(self, config, writes, task_id, task_path=""):
        return None

    def delete_thread(self, thread_id):
        return None


def build_step_graph(deps: AgentDeps | None):
    """Compile one step's subgraph for ``deps`` (None: for drawing only)."""
    g = StateGraph(StepState, output_schema=StepResult)
    for name, fn in NODES.items():
        g.add_node(name, _stage(name, fn, deps))  # type: ignore[arg-type]
    g.add_edge(START, "start_step")
    g.add_conditional_edges("start_step", after_start,
                            ["rewrite", "figure_lookup", "compute", END])
    g.add_conditional_edges("rewrite", after_rewrite, ["search_filings", "search_web", END])
    g.add_edge("search_filings", "rerank")
    g.add_edge("search_web", "rerank")
    g.add_edge("rerank", "distill")
    g.add_conditional_edges("distill", after_distill, ["reflect", "figure_record", END])
    g.add_edge("reflect", "policy")
    g.add_conditional_edges("policy", after_policy, ["revise", END])
    g.add_edge("revise", "start_step")
    g.add_conditional_edges("figure_lookup", after_figure, ["rewrite", "figure_record", END])
    g.add_conditional_edges("compute", after_figure, ["rewrite", "figure_record", END])
    g.add_edge("figure_record", END)
    return g.compile(checkpointer=_NoCheckpoints())


def research_step_node(deps: AgentDeps | None) -> Callable[[ResearchState], dict]:
    """The outer graph's ``research_step``: one ``Send`` payload (the run's state with its
    ``step_index``) through the step subgraph; returns what the step added, ``done`` and its
    plan changes as a ``patch`` (steps side by side each send only their own)."""
    step_graph = build_step_graph(deps)

    def research_step(state: ResearchState) -> dict:
        inputs = {k: v for k, v in state.items() if k not in PRIOR}
        inputs["prior"] = {k: state[k] for k in PRIOR if k in state}
        # durability "exit": the step's saver keeps nothing, and saving after every stage
        # (the default) cost ~80 ms a step in LangGraph's checkpoint bookkeeping
        out = dict(step_graph.invoke(inputs, durability="exit"))
        before, after = state["plan"], out.pop("plan", state["plan"])
        patch = [[i, s] for i, (old, s) in enumerate(zip(before, after, strict=True))
                 if old != s]
        out = {k: v for k, v in out.items() if v is not None}
        out["done"] = [state.get("step_index", 0)]
        if patch:
            out["plan"] = {"patch": patch}
        return out

    return research_step
