"""Research runs in a background thread, so leaving the page or refreshing does not stop them.

A ``RunJob`` drains a ``RunStream`` (core's typed events) in a worker thread and
keeps every event. The page follows it: it draws the events already there, then
each new one as it arrives (append-only, so nothing on screen is redrawn), and
ticks an elapsed-time line so the script notices clicks while the agent waits
on a slow LLM. A browser refresh or another session re-attaches by thread id.
Jobs live in this server process (``st.cache_resource``); a finished run is read
back from its saved record.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

log = logging.getLogger(__name__)


@dataclass
class RunJob:
    """One research run being drained by a worker thread."""

    thread_id: str
    events: list[Any] = field(default_factory=list)
    done: bool = False
    error: str | None = None
    started: float = field(default_factory=time.perf_counter)
    finished: float | None = None

    @property
    def seconds(self) -> float:
        """Seconds since the run started (until it finished)."""
        return (self.finished or time.perf_counter()) - self.started


@st.cache_resource(show_spinner=False)
def _registry() -> dict[str, RunJob]:
    return {}


def get(thread_id: str) -> RunJob | None:
    """The job of ``thread_id`` in this process, if any."""
    return _registry().get(thread_id)


def forget(thread_id: str) -> None:
    """Drop a finished job (its record is saved; the events live there)."""
    job = _registry().get(thread_id)
    if job is not None and job.done:
        del _registry()[thread_id]


def start(stream: Iterable[Any], thread_id: str) -> RunJob:
    """Drain ``stream`` in a daemon thread; returns the job at once."""
    job = RunJob(thread_id)
    _registry()[thread_id] = job

    def work() -> None:
        try:
            for event in stream:
                job.events.append(event)
        except Exception as exc:  # noqa: BLE001 - the service reports its own failures
            log.exception("run %s stopped", thread_id)
            job.error = f"The run stopped unexpectedly: {type(exc).__name__}: {exc}"
        finally:
            job.finished = time.perf_counter()
            job.done = True

    threading.Thread(target=work, name=f"research-{thread_id}", daemon=True).start()
    return job


def follow(job: RunJob, view, ticker, *, poll_s: float = 0.05, tick_s: float = 0.5) -> None:
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
            ticker.caption(f"Running… {job.seconds:.0f} s · {shown} events so far. You can "
                           "leave this page: the run continues and this page re-attaches.")
            last_tick = now
        time.sleep(poll_s)
    ticker.empty()
