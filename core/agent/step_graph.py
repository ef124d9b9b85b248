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
adds, and returns that with the plan changes as a patch. The stages and their edges are
declared once, in ``stages.py``; their logic lives in ``control.py``, ``step_nodes.py``
and ``figure_steps.py``, the routers in ``step_routes.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import START, StateGraph

from core.agent.cancel import cancelled
from core.agent.deps import AgentDeps
from core.agent.stages import Route, Stage, wiring
from core.agent.state import ResearchState
from core.agent.step_routes import PRIOR, StepResult, StepState, step_view


def _stage(stage: Stage, deps: AgentDeps | None) -> Callable[[StepState], dict]:
    """The stage with its deps bound; nothing once the run is cancelled; adds its run time
    to ``timings_ms``. A figure step's weak search runs its text stages with no LLM."""
    name, fn, text = stage.name, stage.node, stage.text

    def node(state: StepState) -> dict:
        if cancelled():
            return {}
        bound = replace(deps, llm=None) if text and state.get("weak_step") is not None \
            and deps is not None else deps
        t0 = time.perf_counter()
        update = fn(step_view(state, text=text), bound)
        ms = round((time.perf_counter() - t0) * 1000, 1)
        return {**update, "timings_ms": {**update.get("timings_ms", {}), name: ms}}

    node.__name__ = name
    return node


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
    """Compile one step's subgraph for ``deps`` (None: for drawing only) from the stage
    registry (``core.agent.stages``): a node per stage, its edges out as declared."""
    g = StateGraph(StepState, output_schema=StepResult)
    stages = wiring()
    for stage in stages:
        g.add_node(stage.name, _stage(stage, deps))  # type: ignore[arg-type]
    g.add_edge(START, stages[0].name)
    for stage in stages:
        if isinstance(stage.then, Route):
            g.add_conditional_edges(stage.name, stage.then.choose, list(stage.then.to))
        else:
            g.add_edge(stage.name, stage.then)
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
