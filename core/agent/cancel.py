"""Cancel a running research graph between stages, never by closing its stream mid-branch.

``request(thread_id)`` marks the run; every step stage and the dispatcher check
``cancelled()`` (the thread id comes from the running node's LangGraph config) and stop
at the next boundary, so parallel branches finish their current call and the stream ends
on its own. Closing the stream generator instead hangs while a branch is blocked in a
slow call (a web search, an LLM request).
"""

from __future__ import annotations

import threading

_LOCK = threading.Lock()
_REQUESTED: set[str] = set()


def request(thread_id: str) -> None:
    """Ask the run ``thread_id`` to stop at its next stage boundary."""
    with _LOCK:
        _REQUESTED.add(thread_id)


def clear(thread_id: str) -> None:
    with _LOCK:
        _REQUESTED.discard(thread_id)


def is_requested(thread_id: str | None) -> bool:
    with _LOCK:
        return thread_id in _REQUESTED


def cancelled() -> bool:
    """True when the run this node belongs to was asked to stop (False outside a run)."""
    from langgraph.config import get_config

    try:
        thread_id = get_config().get("configurable", {}).get("thread_id")
    except RuntimeError:
        return False
    return is_requested(thread_id)
