"""Running cost of a run: LLM calls, tokens, and seconds per node, from its events."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import pandas as pd
import streamlit as st

from core.agent.events import EventBase
from core.agent.roles.retrieval import CACHE_HIT


@dataclass
class UsageTotals:
    """Cost so far: calls and tokens (all roles), seconds per node, offline fallbacks."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    fallbacks: int = 0
    skipped: int = 0
    """Calls not sent: the run's LLM breaker was open or no run time was left."""
    cache_hits: int = 0
    """LLM calls answered from the cache (no call made)."""
    retrieval_cache_hits: int = 0
    """Filing searches answered from the cache."""
    seconds_by_node: dict[str, float] = field(default_factory=dict)
    calls_by_node: dict[str, int] = field(default_factory=dict)
    tokens_by_node: dict[str, int] = field(default_factory=dict)

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def seconds(self) -> float:
        return sum(self.seconds_by_node.values())


def usage_from_events(events: Iterable[EventBase]) -> UsageTotals:
    """Add up the usage attached to events and each node run's longest ``elapsed_ms``.

    A node run is identified by (node, step, attempt): its events report the
    time spent so far, so the last/maximum value is the node's time for that run.
    """
    totals = UsageTotals()
    longest: dict[tuple[str, int | None, int], float] = {}
    attempt: dict[int | None, int] = {}
    for ev in events:
        if getattr(ev, "type", "") == "step_started":
            attempt[ev.step] = getattr(ev, "attempt", 0)
        key = (ev.node, ev.step, attempt.get(ev.step, 0))
        longest[key] = max(longest.get(key, 0.0), float(ev.elapsed_ms or 0.0))
        if (getattr(ev, "timings_ms", None) or {}).get(CACHE_HIT):
            totals.retrieval_cache_hits += 1
        u = ev.usage
        if u is not None:
            totals.cache_hits += u.cache_hits
            totals.calls += u.calls
            totals.prompt_tokens += u.prompt_tokens
            totals.completion_tokens += u.completion_tokens
            totals.fallbacks += u.fallbacks
            totals.skipped += getattr(u, "skipped", 0)
            totals.calls_by_node[ev.node] = totals.calls_by_node.get(ev.node, 0) + u.calls
            totals.tokens_by_node[ev.node] = totals.tokens_by_node.get(ev.node, 0) + u.total
    for (node, _, _), ms in longest.items():
        totals.seconds_by_node[node] = totals.seconds_by_node.get(node, 0.0) + ms / 1000
    return totals


def run_totals(record) -> UsageTotals:
    """A saved run's cost, from its events: the one count the trace's summary line and its
    body both show (each LLM call's usage rides on the event of the node that made it; the
    synthesis node's event carries all of its calls: answer, re-ask, self-check, tools)."""
    return usage_from_events(getattr(record, "events", None) or [])


def render_usage(totals: UsageTotals, *, offline: bool, wall_s: float | None = None) -> None:
    """Metrics row plus a per-node table."""
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("LLM calls", totals.calls, help="0 with the offline engine (rules, no LLM).",
              delta=f"{totals.cache_hits} cached" if totals.cache_hits else None,
              delta_color="off")
    c2.metric("Tokens", f"{totals.tokens:,}",
              help=f"prompt {totals.prompt_tokens:,} + completion {totals.completion_tokens:,}")
    c3.metric("Node seconds", f"{totals.seconds:.1f}", help="Time spent inside graph nodes.")
    c4.metric("Wall seconds", f"{wall_s:.1f}" if wall_s is not None else "–")
    if totals.cache_hits or totals.retrieval_cache_hits:
        st.caption(f"Served from the cache: {totals.cache_hits} LLM call(s), "
                   f"{totals.retrieval_cache_hits} filing search(es) (no new cost).")
    if offline:
        st.caption("Offline engine: every role ran its deterministic rule; no tokens spent.")
    elif totals.fallbacks:
        not_sent = (f" ({totals.skipped} not sent: the endpoint had failed or the run's time "
                    "was up)") if totals.skipped else ""
        st.caption(f"{totals.fallbacks} LLM call(s) fell back to the offline rule{not_sent}.")
    if totals.seconds_by_node:
        table = pd.DataFrame([
            {"node": n, "seconds": round(s, 3), "LLM calls": totals.calls_by_node.get(n, 0),
             "tokens": totals.tokens_by_node.get(n, 0)}
            for n, s in sorted(totals.seconds_by_node.items(), key=lambda kv: -kv[1])
        ])
        with st.expander("Cost per node"):
            st.dataframe(table, hide_index=True, width="stretch")
