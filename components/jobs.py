"""Follow a background research job on screen (the jobs themselves live in ``core.app.jobs``).

The page draws the events already there, then each new one as it arrives
(append-only, so nothing on screen is redrawn), and ticks a progress line so the
script notices clicks (Cancel, another page) while the agent waits on a slow LLM.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from components.sidebar import tick_activity
from components.text import md_escape
from core.app.jobs import Job


def steps_planned(events: Sequence[Any], plan_steps: int = 0) -> int:
    """How many steps the run has now: the plan as approved (the analyst may add steps at
    review), else ``plan_steps``, and never fewer than the steps already started."""
    approved = [e for e in events if getattr(e, "type", "") == "plan_approved"]
    total = len(approved[-1].plan) if approved else plan_steps
    started = [getattr(e, "step", None) or 0 for e in events
               if getattr(e, "type", "") == "step_started"]
    return max([total, *(s + 1 for s in started)]) if (total or started) else 0


def progress_line(events: Sequence[Any], seconds: float, plan_steps: int) -> str:
    """'Researching step 2 of 3 (rerank) · 14 s' from the events so far (the total counts
    steps added after the plan was drawn: never 'step 4 of 3')."""
    started = [e for e in events if getattr(e, "type", "") == "step_started"]
    node = getattr(events[-1], "node", "") if events else ""
    if started:
        last = started[-1]
        n = steps_planned(events, plan_steps)
        total = f" of {n}" if n else ""
        retry = f", retry {last.attempt}" if last.attempt else ""
        where = f"step {(last.step or 0) + 1}{total}{retry}"
    else:
        where = "starting"
    if events and getattr(events[-1], "type", "") == "answer_ready":
        where = "writing the answer"
    node_part = f" ({node})" if node and node not in where else ""
    return f"Researching {where}{node_part} · {seconds:.0f} s"


def follow(job: Job, view, ticker, *, plan_steps: int = 0, poll_s: float = 0.05,
           tick_s: float = 0.5) -> None:
    """Feed ``view`` every event of ``job`` until it is done; tick ``ticker`` meanwhile."""
    shown = 0
    last_tick = 0.0
    while True:
        available = len(job.events)
        while shown < available:
            view.add(job.events[shown])
            shown += 1
        if job.done and shown >= len(job.events):
            break
        now = time.perf_counter()
        if now - last_tick >= tick_s:
            cancelling = " · cancelling at the next event…" if job.cancel_requested else ""
            ticker.caption(progress_line(job.events, job.seconds, plan_steps) + cancelling
                           + " · you can leave this page: the run continues and this page "
                             "re-attaches.")
            tick_activity()
            refresh = getattr(view, "refresh", None)
            if refresh is not None:  # draw a node the throttle held back while events wait
                refresh()
            last_tick = now
        time.sleep(poll_s)
    ticker.empty()


def follow_progress(job: Job, bar, lines, ticker, *, poll_s: float = 0.05,
                    tick_s: float = 0.5) -> None:
    """Draw a compare or evaluation job until it is done: ``bar`` (an ``st.progress``) from
    its progress snapshot, each new line of ``job.lines`` into ``lines`` (a container, append
    only), and the elapsed time in ``ticker`` (so the script notices clicks meanwhile)."""
    shown = 0
    last_tick = 0.0
    while True:
        while shown < len(job.lines):
            lines.caption(md_escape(job.lines[shown]))
            shown += 1
        now = time.perf_counter()
        if job.done or now - last_tick >= tick_s:
            p = job.progress
            if p is not None:
                bar.progress(p.share, text=f"{md_escape(p.line())} · {job.seconds:.0f} s")
            cancelling = " · cancelling at the next stage…" if job.cancel_requested else ""
            ticker.caption(f"Running for {job.seconds:.0f} s{cancelling} · you can leave or "
                           "refresh this page: the work continues and this page re-attaches.")
            tick_activity()
            last_tick = now
        if job.done and shown >= len(job.lines):
            break
        time.sleep(poll_s)
    ticker.empty()
