"""A run-level circuit breaker for the LLM endpoint, and the run's LLM deadline.

A broken endpoint (HTTP 5xx, 429, an HTML page instead of JSON, no answer) must not
cost every role its full retries. ``LLMGuard`` counts failures by class over a whole
run; once one class has been seen ``threshold`` times (2) the guard opens: no further
request is sent in this run, every role uses its offline rule, and the run says so once.
It also remembers a structured-output method that had to be switched to (so each role
does not rediscover that the server rejects ``json_schema``) and the run's deadline,
which bounds every request's timeout so a hanging endpoint cannot overrun ``max_wall_s``.

Counting: a transport failure (``server``, ``rate_limit``, ``timeout``, ``connection``,
``garbage``, ``auth``...) counts per request; unusable output from a working endpoint
(``output``) counts once per role call, after that call's own retries, so one bad
reply that a retry repairs never opens the breaker.

``GuardBook`` keeps one guard per run (thread id), bounded, so a long-lived service
never shares a guard between runs. Code that calls the LLM without the agent's
``ask_llm`` (the LLM reranker) is run inside ``guarding(guard)``; ``call_structured``
then uses that guard (``active_guard()``) when none is passed.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

THRESHOLD = 2
KIND_LABELS = {
    "server": "HTTP 5xx server errors",
    "rate_limit": "HTTP 429 rate limits",
    "timeout": "no answer within the timeout",
    "connection": "connection failures",
    "garbage": "replies that are not an OpenAI-compatible response",
    "output": "unusable structured output",
    "auth": "authentication failures",
    "forbidden": "access denied",
    "not_found": "unknown model or endpoint",
    "bad_request": "rejected requests",
    "deadline": "no run time left",
}


@dataclass
class LLMGuard:
    """Failure counts, the open state, skipped calls and the deadline of one run."""

    threshold: int = THRESHOLD
    clock: Callable[[], float] = time.time
    deadline: float | None = None
    """Epoch seconds after which no request is sent (None: only the per-call timeout)."""
    method: str | None = None
    """Structured-output method this run switched to (None: the configured one)."""
    counts: dict[str, int] = field(default_factory=dict)
    opened_by: str | None = None
    """The failure class that opened the breaker (None: closed)."""
    last_message: str = ""
    skipped: int = 0
    announced: bool = False
    ignore: frozenset[str] = frozenset()
    """Failure classes this guard does not count (the judge ignores ``output``)."""

    @property
    def is_open(self) -> bool:
        return self.opened_by is not None

    def begin(self, started_at: float, max_wall_s: float) -> None:
        """Set the deadline to ``started_at + max_wall_s`` (a phase of the run starts)."""
        self.deadline = started_at + max_wall_s

    def remaining(self) -> float | None:
        """Seconds left before the deadline (None: no deadline)."""
        if self.deadline is None:
            return None
        return self.deadline - self.clock()

    def timeout(self, per_call_s: float) -> float:
        """The timeout for the next request: the per-call one, cut to the time left."""
        left = self.remaining()
        return per_call_s if left is None else max(0.0, min(per_call_s, left))

    def record(self, kind: str, message: str) -> bool:
        """Count one failure of class ``kind``; True when this opened the breaker."""
        if kind in self.ignore:
            return False
        self.counts[kind] = self.counts.get(kind, 0) + 1
        self.last_message = message
        if not self.is_open and self.counts[kind] >= self.threshold:
            self.opened_by = kind
            return True
        return False

    def skip(self) -> None:
        """Count one call not sent because the breaker is open."""
        self.skipped += 1

    def open_message(self) -> str:
        """What the user reads once, when the breaker opens."""
        label = KIND_LABELS.get(self.opened_by or "", self.opened_by or "failures")
        return (f"The LLM endpoint failed {self.counts.get(self.opened_by or '', 0)} times with "
                f"{label}; it is not called again in this run and the remaining roles use the "
                f"offline engine. Last error: {self.last_message}")

    def announce(self) -> str | None:
        """``open_message()`` the first time it is asked for, then None (say it once)."""
        if not self.is_open or self.announced:
            return None
        self.announced = True
        return self.open_message()


class GuardBook:
    """One ``LLMGuard`` per run id, the oldest forgotten beyond ``size`` runs."""

    def __init__(self, size: int = 64, clock: Callable[[], float] = time.time,
                 threshold: int = THRESHOLD):
        self._guards: OrderedDict[str, LLMGuard] = OrderedDict()
        self._size = size
        self._clock = clock
        self._threshold = threshold

    def get(self, run_id: str) -> LLMGuard:
        guard = self._guards.get(run_id)
        if guard is None:
            guard = self._guards[run_id] = LLMGuard(self._threshold, self._clock)
            while len(self._guards) > self._size:
                self._guards.popitem(last=False)
        self._guards.move_to_end(run_id)
        return guard


_ACTIVE: ContextVar[LLMGuard | None] = ContextVar("llm_guard", default=None)


@contextmanager
def guarding(guard: LLMGuard | None) -> Iterator[None]:
    """Make ``guard`` the one ``call_structured`` uses inside this block (context-local)."""
    token = _ACTIVE.set(guard)
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def active_guard() -> LLMGuard | None:
    """The guard set by the innermost ``guarding`` block, if any."""
    return _ACTIVE.get()
