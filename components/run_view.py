"""Draw a run from its events, live or replayed: the same code path for both.

``RunView.add(event)`` routes each typed event to its renderer: step cards,
the graph (current node highlighted), the usage meter, the answer. The Research
page feeds it events as the graph streams them; the Runs page feeds it a stored
run's events in order, so a past run looks exactly as it did live.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from components.answer import render_answer
from components.graph_view import render_graph
from components.step_card import StepCard
from components.text import md_escape
from components.usage_meter import render_usage, usage_from_events
from core.agent import events as ev
from core.agent.graph import picture


def figure_fields(step: Any) -> str:
    """A figure step's fields in one cell: 'revenue · FY2022, FY2023 · USD millions', the
    formula, or an analyze step's settings ('compare · operating margin · higher'); '' for
    a text step."""
    spec = getattr(step, "analysis", None)
    if spec is not None:
        how = spec.direction if spec.kind in ("compare", "rank", "pick") else (
            f"{spec.test or ''}" + (f" {spec.threshold:g}" if spec.threshold is not None
                                    else "")).strip()
        return " · ".join(p for p in (spec.kind, spec.name, how) if p)
    parts = [getattr(step, "formula", None) or getattr(step, "metric", None) or "",
             ", ".join(getattr(step, "periods", None) or []),
             getattr(step, "member", None) or "",
             getattr(step, "unit", None) or ""]
    decimals = getattr(step, "decimals", None)
    if decimals is not None:
        parts.append(f"{decimals} decimal(s)")
    return " · ".join(p for p in parts if p)


def plan_frame(plan: Sequence[Any]) -> pd.DataFrame:
    """Read-only table of a plan (PlanStep list); figure steps show metric, periods, formula."""
    rows = [{"#": i + 1, "sub-question": s.sub_question, "tool": s.tool,
             "section": s.section or "(any)", "keywords": ", ".join(s.keywords),
             "figure": figure_fields(s),
             "uses steps": ", ".join(str(d + 1) for d in getattr(s, "depends_on", []) or [])}
            for i, s in enumerate(plan)]
    frame = pd.DataFrame(rows)
    if not frame.empty and not frame["figure"].any():
        frame = frame.drop(columns=["figure"])
    return frame


GRAPH_EVERY_S = 2.0
"""The live graph's shortest redraw interval."""


class RunView:
    """Placeholders for one run on screen; feed it events with ``add``."""

    def __init__(
        self,
        *,
        key: str,
        graph_area=None,
        graph: tuple[list[str], list[tuple[str, str, bool]]] | None = None,
        offline: bool = True,
        show_plan: bool = True,
        open_citation: Callable[[dict[str, Any]], None] | None = None,
        live: bool = False,
        wall_s: float | None = None,
        t0: float | None = None,
        answer_slot=None,
        on_answer: Callable[[ev.AnswerReady], None] | None = None,
        graph_on_demand: bool = False,
    ):
        self.key = key
        self.offline = offline
        self.show_plan = show_plan
        self.open_citation = open_citation
        self.live = live
        self.wall_s = wall_s
        self.nodes, self.edges = graph or picture()  # the compiled graph's structure
        self.events: list[ev.EventBase] = []
        self.visited: list[str] = []
        self.cards: dict[tuple[int, int], StepCard] = {}
        self.t0 = time.perf_counter() if t0 is None else t0
        # A finished run's graph is drawn when asked for: the browser lays a graph out in
        # ~1-2 s, which held a finished answer off the screen that long (a live run's graph
        # is the point of watching it).
        self.show_graph = not graph_on_demand or (graph_area or st).toggle(
            "Show the research graph", key=f"{key}_graph_on",
            help="The agent's graph, with the nodes this run went through marked.")
        self.graph_slot = (graph_area or st).empty()
        self.usage_slot = st.empty()
        self.plan_slot = st.empty()
        self.notes = st.container()
        self.steps_area = st.container()
        self.answer_slot = answer_slot if answer_slot is not None else st.empty()
        self.on_answer = on_answer  # draws the answer where the page wants it (answer first)
        self._drawn_node: str | None = None
        self._drawn_usage_at = 0.0
        self._drawn_graph_at = 0.0
        self._draw_graph(None)

    # --- routing -------------------------------------------------------------
    def add(self, event: ev.EventBase, *, redraw: bool = True) -> None:
        """Draw one event (``redraw``: also refresh the graph and the cost meter)."""
        self.events.append(event)
        if event.node and event.node not in self.visited:
            self.visited.append(event.node)
        kind = event.type
        if kind in ("plan_proposed", "plan_approved") and self.show_plan:
            self._draw_plan(event)
        elif kind == "step_started":
            key = f"{self.key}_s{event.step}_a{event.attempt}"
            if (event.step or 0, event.attempt) in self.cards:  # re-run after a restart
                key += f"_r{sum(1 for e in self.events if e.type == 'step_started')}"
            with self.steps_area:
                card = StepCard(event, key=key)
            self.cards[(event.step or 0, event.attempt)] = card
        elif kind == "answer_ready":
            self._draw_answer(event)
        elif event.step is not None and self._card(event.step) is not None:
            self._card(event.step).update(event)
        elif kind == "route_chosen":
            with self.notes:
                st.caption(md_escape(f"Router: {event.reason}"))
        elif kind in ("warning", "error"):
            with self.notes:
                (st.error if kind == "error" else st.warning)(md_escape(event.message))
        if redraw:  # the answer redraws no graph: the page reruns with the finished run
            self.refresh(force=kind == "error", graph=kind != "answer_ready")

    def add_all(self, events: Iterable[ev.EventBase]) -> None:
        """Replay events in order, then draw the graph and the meter once."""
        for e in events:
            self.add(e, redraw=False)
        self.refresh(force=True)

    def refresh(self, *, force: bool = False, graph: bool = True) -> None:
        """Redraw the graph when the current node changed (at most every ``GRAPH_EVERY_S``)
        and the meter (at most every 0.5 s).

        Throttled because every redraw is laid out again in the browser (~1 s of its main
        thread on two busy cores: drawn every 0.5 s, the layouts queued up and held the
        finished answer off the screen for seconds); a run emits dozens of events a second
        offline.
        """
        node = self.events[-1].node if self.events else None
        now = time.perf_counter()
        if graph and (force or (node != self._drawn_node
                                and now - self._drawn_graph_at >= GRAPH_EVERY_S)):
            self._draw_graph(node)
            self._drawn_graph_at = now
        if force or now - self._drawn_usage_at >= 0.5:
            self._draw_usage()
            self._drawn_usage_at = now

    def _card(self, step: int) -> StepCard | None:
        attempts = [a for (s, a) in self.cards if s == step]
        return self.cards[(step, max(attempts))] if attempts else None

    # --- drawing -------------------------------------------------------------
    def _draw_plan(self, e) -> None:
        """The proposed plan, replaced by the approved one once the analyst approves."""
        with self.plan_slot.container():
            if e.type == "plan_approved":
                how = "edited by the analyst" if e.edited else "approved as proposed"
                st.markdown(f"**Approved plan** ({how}, {len(e.plan)} steps)")
            else:
                who = "LLM" if e.source == "llm" else "offline engine"
                st.markdown(f"**Proposed plan** ({who}, {len(e.plan)} steps)")
            st.dataframe(plan_frame(e.plan), hide_index=True, width="stretch")
            for note in getattr(e, "notes", []):
                st.caption(md_escape(note))

    def _draw_graph(self, node: str | None) -> None:
        self._drawn_node = node
        if not self.show_graph:
            return
        with self.graph_slot.container():
            render_graph(self.nodes, self.edges, current=node, visited=self.visited)

    def _draw_usage(self) -> None:
        wall = time.perf_counter() - self.t0 if self.live else self.wall_s
        with self.usage_slot.container():
            render_usage(usage_from_events(self.events), offline=self.offline, wall_s=wall)

    def _draw_answer(self, e: ev.AnswerReady) -> None:
        for card in self.cards.values():
            card.finish()
        if self.on_answer is not None:
            with self.answer_slot.container():
                self.on_answer(e)
            return
        with self.answer_slot.container():
            render_answer(
                e.answer, e.citations, key=f"{self.key}_cite", stop_reason=e.stop_reason,
                stop_message=e.stop_message, source=e.source,
                invalid_markers=e.invalid_markers, not_found=e.not_found,
                open_citation=self.open_citation, checks=getattr(e, "checks", []),
                figures=getattr(e, "figures", None) or [],
                analyses=getattr(e, "analyses", None) or [],
            )
