"""The stages of a plan step, each declared once: the registry the step subgraph, the event
union, the LLM reply bounds, the step card and the CLI read.

A stage is a node of the step subgraph (``step_graph.py`` builds it from ``STAGES``), its
edges out, the events it emits (each event class says how it reads in the CLI and in the
card: ``EventBase.line`` / ``card``), the LLM role it calls under and that role's default
reply bound. A role's prompt, schema and offline rule live in its module under
``roles/``; its node (``(state, deps) -> update``) is what the stage names.

Adding a role: write its module (node, event class, prompt, offline rule) and register a
``Stage`` for it, here in ``STAGES`` or with ``register(stage)`` from anywhere before the
graph is built. ``follows="reflect"`` splices it into the step after an existing stage
(the stage that came next follows it), so nothing else changes: the picture, the
timings, the run record, the card and the CLI pick it up. Its outputs go in
``StepWork.extra[<stage name>]`` unless it adds a channel of its own to the state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Annotated, Any, Union

from langgraph.graph import END
from pydantic import BeforeValidator, Field, SerializeAsAny, TypeAdapter

from core.agent import analysis_steps, control, figure_steps, step_nodes
from core.agent import events as ev
from core.agent import step_routes as routes
from core.foundation.config import ROLE_REPLY_BOUNDS

Node = Callable[[Any, Any], dict]
"""A stage's node: ``(state, deps) -> the keys it changes``."""


@dataclass(frozen=True)
class Route:
    """A conditional edge: ``choose(state)`` names the next stage, one of ``to``."""

    choose: Callable[[Any], str]
    to: tuple[str, ...]


@dataclass(frozen=True)
class Stage:
    """One stage of a plan step, declared once."""

    name: str
    """Its node's name in the step subgraph (and the ``node`` of the events it emits)."""
    node: Node
    then: str | Route = END
    """The next stage, or a ``Route`` choosing it."""
    events: tuple[type[ev.EventBase], ...] = ()
    """The events it emits (beyond warnings and errors)."""
    role: str | None = None
    """The LLM role it calls under (usage is counted and bounded by that name)."""
    max_tokens: int | None = None
    """The role's default reply bound (``DTR_LLM_MAX_TOKENS='{"role": n}'`` overrides it);
    None: the role's own setting, or ``llm_max_tokens_other``."""
    text: bool = False
    """A text stage: a figure step's weak text search runs it with no LLM."""
    follows: str | None = None
    """Splice in after this stage: the stage takes over its ``then``, and it goes here."""


STAGES: list[Stage] = [
    Stage("start_step", control.start_step_node, events=(ev.StepStarted,),
          then=Route(routes.after_start, ("rewrite", "figure_lookup", "compute", "analyze",
                                            END))),
    Stage("rewrite", step_nodes.rewrite_node, text=True, role="rewriter",
          events=(ev.QueryRewritten, ev.StrategyChosen),
          then=Route(routes.after_rewrite, ("search_filings", "search_web", END))),
    Stage("search_filings", step_nodes.search_filings_node, text=True,
          events=(ev.HitsRetrieved,), then="rerank"),
    Stage("search_web", step_nodes.search_web_node, text=True,
          events=(ev.HitsRetrieved,), then="rerank"),
    Stage("rerank", step_nodes.rerank_node, text=True, role="reranker",
          events=(ev.HitsReranked,), then="distill"),
    Stage("distill", step_nodes.distill_node, text=True, role="distiller",
          events=(ev.ContextDistilled,),
          then=Route(routes.after_distill, ("reflect", "figure_record", END))),
    Stage("reflect", step_nodes.reflect_node, text=True, events=(ev.StepReflected,),
          then="policy"),
    Stage("policy", step_nodes.policy_node, events=(ev.PolicyDecided,),
          then=Route(routes.after_policy, ("revise", END))),
    Stage("revise", control.revise_node, events=(ev.PlanRevised,), then="start_step"),
    Stage("figure_lookup", figure_steps.lookup_node, events=(ev.FactsFound,),
          then=Route(routes.after_figure, ("rewrite", "figure_record", END))),
    Stage("compute", figure_steps.compute_node, events=(ev.FactsFound, ev.FigureComputed),
          then=Route(routes.after_figure, ("rewrite", "figure_record", END))),
    Stage("figure_record", figure_steps.record_node,
          events=(ev.StepReflected, ev.PolicyDecided)),
    Stage("analyze", analysis_steps.analyze_node,
          events=(analysis_steps.AnalysisDone, ev.StepReflected, ev.PolicyDecided)),
]
"""The step's stages; ``start_step`` is its entry."""


def register(stage: Stage) -> Stage:
    """Add ``stage`` (a role added later) to the step; graphs built from now on run it."""
    if any(s.name == stage.name for s in STAGES):
        raise ValueError(f"a stage named {stage.name!r} is registered already")
    if stage.follows is not None and all(s.name != stage.follows for s in STAGES):
        raise ValueError(f"{stage.name!r} follows {stage.follows!r}, which is no stage")
    STAGES.append(stage)
    _declare_bounds()
    return stage


def unregister(name: str) -> None:
    """Remove the stage ``name`` (tests that registered one)."""
    STAGES[:] = [s for s in STAGES if s.name != name]
    _declare_bounds()


def wiring() -> list[Stage]:
    """The stages with splices applied: a stage that ``follows`` another takes over its
    edge out, and the other goes to it (in registration order, so two roles that follow
    one stage run one after the other)."""
    by_name = {s.name: s for s in STAGES if s.follows is None}
    order = [s.name for s in STAGES if s.follows is None]
    for s in STAGES:
        if s.follows is None:
            continue
        before = by_name[s.follows]
        by_name[s.name] = replace(s, then=before.then)
        by_name[s.follows] = replace(before, then=s.name)
        order.append(s.name)
    return [by_name[n] for n in order]


def event_types() -> tuple[type[ev.EventBase], ...]:
    """Every event a run can record: the outer graph's and each stage's."""
    seen = dict.fromkeys([*ev.RUN_EVENTS, *(e for s in STAGES for e in s.events)])
    return tuple(seen)


@lru_cache(maxsize=8)
def _adapter(types: tuple[type[ev.EventBase], ...]) -> TypeAdapter[Any]:
    union = Annotated[Union[types], Field(discriminator="type")]  # noqa: UP007 - a tuple
    return TypeAdapter(union)


def parse_event(data: Any) -> ev.EventBase:
    """Rebuild a typed event from its JSON dict (an event passes through)."""
    if isinstance(data, ev.EventBase):
        return data
    return _adapter(event_types()).validate_python(data)


def _parse_events(data: Any) -> Any:
    return [parse_event(d) for d in data] if isinstance(data, list) else data


RecordedEvents = Annotated[list[SerializeAsAny[ev.EventBase]], BeforeValidator(_parse_events)]
"""A run record's events: each rebuilt as its registered type, each saved whole."""


def _declare_bounds() -> None:
    """The registered roles' default reply bounds, where Settings reads them."""
    ROLE_REPLY_BOUNDS.clear()
    ROLE_REPLY_BOUNDS.update({s.role: s.max_tokens for s in STAGES if s.role and s.max_tokens})


_declare_bounds()
