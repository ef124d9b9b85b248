"""Cost of a run: wall time, LLM calls and tokens, read from its ``RunRecord``."""

from __future__ import annotations

from typing import Any

from core.evaluation.results import Cost


def run_cost(record: Any) -> Cost:
    """Wall time and the summed usage of every role of ``record``
    (a ``core.app.runs.RunRecord``)."""
    u = record.total_usage
    return Cost(wall_s=float(record.wall_s or 0.0), llm_calls=u.calls,
                prompt_tokens=u.prompt_tokens, completion_tokens=u.completion_tokens)
