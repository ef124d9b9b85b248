"""The learned policy's features, the same live (``live_features``, from the graph state) and
from a run record's events (``core.evaluation.policy_training``, which reads stored runs and
evaluations to label them): the reflection's coverage (one-hot), the best and mean reranked
score and the number of hits kept, the step's quality dimensions (``quality.py``: relevance,
term coverage, consistency; 0.5/0.5/1.0 when a step has none), the step's position (index /
plan length, steps left), the revisions left, the attempt number and whether the step
searched the web.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from core.foundation.config import Settings

FEATURES = ("coverage_answered", "coverage_partial", "coverage_none", "top_score", "mean_score",
            "hits", "relevance", "term_coverage", "consistency", "position", "steps_left",
            "revisions_left", "attempt", "web")
LABELS = ("CONTINUE", "REVISE", "FINISH")


@dataclass
class Example:
    """One decision: its run, features, the rule's decision and the corrected label."""

    run_id: str
    features: list[float]
    rule: str
    label: str


def feature_vector(*, coverage: str, scores: list[float], step: int, plan_len: int,
                   revisions_left: int, attempt: int, web: bool,
                   quality: dict | None = None) -> list[float]:
    top = max(scores) if scores else 0.0
    mean = float(np.mean(scores)) if scores else 0.0
    q = quality or {}
    consistency = q.get("consistency")
    return [float(coverage == "answered"), float(coverage == "partial"),
            float(coverage not in ("answered", "partial")), float(top), mean,
            float(len(scores)), float(q.get("relevance", 0.5)), float(q.get("coverage", 0.5)),
            1.0 if consistency is None else float(consistency),
            step / max(plan_len, 1), float(max(plan_len - step - 1, 0)),
            float(revisions_left), float(attempt), float(web)]


def live_features(state: Any, settings: Settings) -> list[float]:
    """The features of the step just reflected, from the graph state."""
    index = state.get("step_index", 0)
    plan, work = state["plan"], state["work"]
    history = state.get("history") or []
    last = history[-1] if history and history[-1].step == index else None
    quality = getattr(last, "quality", None)
    return feature_vector(coverage=work.coverage, scores=[h.score for h in work.reranked],
                          step=index, plan_len=len(plan),
                          revisions_left=settings.max_revisions - len(state.get("revisions", [])),
                          attempt=state.get("attempt", 0), web=plan[index].tool == "web_search",
                          quality=quality.model_dump() if quality is not None else None)
