"""Background jobs of this server process: research runs, ingest batches, comparisons and
evaluations.

A ``Job`` runs its work in a daemon thread and keeps what the work reports (events,
a progress snapshot), so a page can follow it, be left, and re-attach later (a
browser refresh or another page). ``cancel`` asks the work to stop at its next
checkpoint (research: the next event; ingest: the next file; compare: the next stage;
evaluation: the next question). Jobs live in memory: a restarted server has none, and
what they produced is read from the saved records.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from core.foundation.errors import AppError

log = logging.getLogger(__name__)

Kind = Literal["research", "ingest", "compare", "evaluate", "baseline"]
KEEP_FINISHED = 50  # finished jobs kept for re-attaching pages, newest last


class Cancelled(Exception):  # noqa: N818 - a request, not a failure
    """Raised by a job's work when it stops because cancel was asked (``Job.check``)."""


@dataclass
class Progress:
    """A progress snapshot of a compare or evaluation job: ``done`` of ``total``, what now."""

    done: float
    total: float
    text: str

    @property
    def share(self) -> float:
        """0..1, for a progress bar."""
        return min(1.0, max(0.0, self.done / self.total)) if self.total > 0 else 0.0

    def line(self) -> str:
        return self.text


@dataclass
class Job:
    """One piece of background work and what it reported so far."""

    id: str
    kind: Kind
    label: str = ""
    events: list[Any] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    """What the work said it did, one line per stage (compare, evaluate)."""
    progress: Any = None
    result: Any = None
    error: str | None = None
    done: bool = False
    cancelled: bool = False
    started: float = field(default_factory=time.perf_counter)
    finished: float | None = None
    cancel_event: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def seconds(self) -> float:
        """Seconds since the job started (until it finished)."""
        return (self.finished or time.perf_counter()) - self.started

    @property
    def cancel_requested(self) -> bool:
        return self.cancel_event.is_set()

    @property
    def running(self) -> bool:
        return not self.done

    def report(self, text: str, done: float = 0.0, total: float = 0.0, *,
               line: bool = True) -> None:
        """Set the progress snapshot; ``line`` also appends ``text`` to ``lines`` (what a page
        lists under its progress bar)."""
        self.progress = Progress(done, total, text)
        if line:
            self.lines.append(text)

    def check(self) -> None:
        """Raise ``Cancelled`` when cancel was asked (call it between stages)."""
        if self.cancel_requested:
            raise Cancelled(f"{self.label or self.id}: cancelled")


_jobs: dict[str, Job] = {}
_lock = threading.Lock()


def start(job_id: str, kind: Kind, work: Callable[[Job], Any], *, label: str = "",
          progress: Any = None) -> Job:
    """Run ``work(job)`` in a daemon thread; its return value becomes ``job.result``.

    Raises ``ValueError`` when a job with this id is still running."""
    with _lock:
        old = _jobs.get(job_id)
        if old is not None and not old.done:
            raise ValueError(f"job {job_id} is already running")
        job = Job(job_id, kind, label, progress=progress)
        _jobs[job_id] = job
        _trim()

    def run() -> None:
        try:
            job.result = work(job)
        except Cancelled:
            job.cancelled = True
        except AppError as exc:  # a message for the user (empty corpus, bad set...)
            log.warning("job %s stopped: %s", job_id, exc)
            job.error = str(exc)
        except Exception as exc:  # noqa: BLE001 - reported on the job, shown by the page
            log.exception("job %s stopped", job_id)
            job.error = f"{type(exc).__name__}: {exc}"
        finally:
            job.finished = time.perf_counter()
            job.done = True

    threading.Thread(target=run, name=f"{kind}-{job_id}", daemon=True).start()
    return job


def _trim() -> None:
    finished = [j for j in _jobs.values() if j.done]
    for j in finished[: max(0, len(finished) - KEEP_FINISHED)]:
        _jobs.pop(j.id, None)


def get(job_id: str) -> Job | None:
    """The job ``job_id`` of this process, if any."""
    return _jobs.get(job_id)


def active(kind: Kind | None = None) -> list[Job]:
    """Jobs still running (of ``kind``), oldest first."""
    with _lock:
        return [j for j in _jobs.values() if not j.done and (kind is None or j.kind == kind)]


def latest(kind: Kind) -> Job | None:
    """The most recently started job of ``kind``, running or finished."""
    with _lock:
        found = [j for j in _jobs.values() if j.kind == kind]
    return max(found, key=lambda j: j.started) if found else None


def cancel(job_id: str) -> bool:
    """Ask a running job to stop; False when there is no such running job."""
    job = _jobs.get(job_id)
    if job is None or job.done:
        return False
    job.cancel_event.set()
    return True


def forget(job_id: str) -> None:
    """Drop a finished job (what it produced is saved elsewhere)."""
    with _lock:
        job = _jobs.get(job_id)
        if job is not None and job.done:
            del _jobs[job_id]


def wait(job: Job, timeout_s: float = 600.0, poll_s: float = 0.05) -> bool:
    """Block until ``job`` is done (True) or ``timeout_s`` passed (False); for CLI and tests."""
    deadline = time.monotonic() + timeout_s
    while not job.done:
        if time.monotonic() > deadline:
            return False
        time.sleep(poll_s)
    return True
