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

The guard also keeps the run's account (``LLMAccount``): requests the endpoint answered,
requests that failed, calls not sent, and the last failure in a few words ("HTTP 500"), so
a run can say what answered it ("offline engine (LLM failed: HTTP 500)") instead of the
configured model's name when no request got a reply.

``GuardBook`` keeps one guard per run (thread id), bounded, so a long-lived service
never shares a guard between runs. Code that calls the LLM without the agent's
``ask_llm`` (the LLM reranker) is run inside ``guarding(guard)``; ``call_structured``
then uses that guard (``active_guard()``) when none is passed.
"""

from __future__ import annotations

import re
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from core.llm.usage import LLMAccount

THRESHOLD = 2
RESERVE_SHARE = 0.2
RESERVE_MAX_S = 15.0


def offline_reserve(max_wall_s: float) -> float:
    """Seconds at the end of a run in which no LLM request is sent: a fifth of the bound, at
    most 15 s (the offline engine researches a step and writes an answer in a few seconds;
    20 s -> the LLM may use the first 16 s, 300 s -> the first 285 s)."""
    return min(max_wall_s * RESERVE_SHARE, RESERVE_MAX_S)

KIND_LABELS = {
    "server": "HTTP 5xx server errors",
    "rate_limit": "HTTP 429 rate limits",
    "timeout": "no answer within the timeout",
    "connection": "connection failures",
    "garbage": "replies that are not an OpenAI-compatible response",
    "output": "unusable structured output",
    "cut_off": "replies cut off at the token limit",
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
    started_at: float | None = None
    """Epoch seconds the run's clock started (``begin``): the wall-time bound counts from it."""
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
    replies: int = 0
    """Requests the endpoint answered (usable or not) since the last ``take_account``."""
    failed: int = 0
    """Requests that got no reply (HTTP error, timeout, ...) since the last ``take_account``."""
    reason: str = ""
    """The last failure in a few words ("HTTP 500", "no reply within 19.5 s")."""
    usable: int = 0
    """Role calls answered with a usable reply since the last ``take_account``."""
    unusable: int = 0
    """Role calls whose replies were all unusable (prose, wrong schema), ditto."""
    unusable_reason: str = ""
    taken: LLMAccount = field(default_factory=LLMAccount)
    """The accounts already taken (``take_account``): with the current one, the whole run's."""

    @property
    def is_open(self) -> bool:
        return self.opened_by is not None

    def begin(self, started_at: float, max_wall_s: float) -> None:
        """Set the deadline for a run that started at ``started_at`` (epoch seconds) and must
        end by ``started_at + max_wall_s``: LLM requests end ``offline_reserve(max_wall_s)``
        earlier, so an endpoint that never answers leaves the offline engine time to
        research and write the answer within the bound."""
        self.started_at = started_at
        self.deadline = started_at + max_wall_s - offline_reserve(max_wall_s)

    def remaining(self) -> float | None:
        """Seconds left before the deadline (None: no deadline)."""
        if self.deadline is None:
            return None
        return self.deadline - self.clock()

    def timeout(self, per_call_s: float) -> float:
        """The timeout for the next request: the per-call one, cut to the time left."""
        left = self.remaining()
        return per_call_s if left is None else max(0.0, min(per_call_s, left))

    def answered(self) -> None:
        """Count one request the endpoint answered."""
        self.replies += 1
        _touch(self)

    def failed_request(self, kind: str, message: str) -> None:
        """Count one request that got no reply (for the account; ``record`` counts classes)."""
        self.failed += 1
        self.reason = short_reason(kind, message)
        _touch(self)

    def used(self, ok: bool, why: str = "") -> None:
        """Count one role call whose reply was usable (``ok``) or not (``why``)."""
        if ok:
            self.usable += 1
        else:
            self.unusable += 1
            self.unusable_reason = why
        _touch(self)

    def _current(self) -> LLMAccount:
        return LLMAccount(replies=self.replies, failed=self.failed, skipped=self.skipped,
                          reason=self.reason, usable=self.usable, unusable=self.unusable,
                          unusable_reason=self.unusable_reason)

    def take_account(self) -> LLMAccount:
        """The account since the last call (then zeroed; the breaker and deadline stay)."""
        out = self._current()
        self.taken = self.taken + out
        self.replies = self.failed = self.skipped = self.usable = self.unusable = 0
        return out

    def whole_account(self) -> LLMAccount:
        """The run's account so far: every account taken plus the current one."""
        return self.taken + self._current()

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
        _touch(self)

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


_LATEST: list[tuple[float, LLMGuard]] = []
"""The guard that last counted a request, a role call or a skip in this process, and when."""


def _touch(guard: LLMGuard) -> None:
    _LATEST[:] = [(time.time(), guard)]


def latest_account() -> tuple[float, LLMAccount] | None:
    """(epoch seconds, the run's whole account) of the latest run in this process that used
    or tried to use the LLM (None: none did): what the endpoint really did last, for the
    sidebar ("the last run was answered by the offline engine (HTTP 500)")."""
    held = list(_LATEST)
    if not held:
        return None
    at, guard = held[0]
    return at, guard.whole_account()


_SHORT = {"timeout": "no reply", "connection": "could not connect",
          "garbage": "not an OpenAI-compatible reply", "deadline": "no run time left",
          "output": "unusable replies", "cut_off": "replies cut off at the token limit"}


def short_reason(kind: str, message: str) -> str:
    """A failure in a few words: "HTTP 500", "no reply within 19.5 s", "could not connect"."""
    status = re.search(r"\(HTTP (\d{3})\)", message)
    if status:
        return f"HTTP {status.group(1)}"
    if kind == "timeout":
        within = re.search(r"within ([\d.]+ s)", message)
        return f"no reply within {within.group(1)}" if within else "no reply"
    return _SHORT.get(kind, kind or "error")


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
