"""How a test waits for what another thread or process does: on its state (an event set, a
job done, a line printed), with a ceiling far above what it takes on a busy machine.
Reaching the ceiling is the failure (a hang); no test measures time with one, and no test
waits a fixed time for something to happen (CI runs on a 2-core machine that others share).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

CEILING_S = 300.0
"""The longest a test waits for a state that should come (seconds, quiet: well under one)."""
GATE_S = 2 * CEILING_S
"""The longest a fake holds a thread at a gate the test opens: longer than any wait of the
test's own, so the gate never opens by itself while the test still looks."""


def until(predicate: Callable[[], object], ceiling_s: float = CEILING_S,
          poll_s: float = 0.02) -> bool:
    """Wait until ``predicate()`` is true (True) or ``ceiling_s`` passed (False)."""
    deadline = time.monotonic() + ceiling_s
    while not predicate():
        if time.monotonic() > deadline:
            return False
        threading.Event().wait(poll_s)
    return True
