"""The state a plan step's subgraph carries, what a stage reads of it, and the routers
that choose the next stage (the conditional edges the stage registry names)."""

from __future__ import annotations

import typing
from collections.abc import Callable

from langgraph.graph import END

from core.agent.cancel import cancelled
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
