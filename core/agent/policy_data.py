"""Training data for the learned policy: one example per policy decision in stored runs.

**Features** (``FEATURES``), the same live (``live_features``, from the graph state) and from
a run record's events (``examples_from_record``): the reflection's coverage (one-hot), the best
and mean reranked score and the number of hits kept, the step's quality dimensions
(``quality.py``: relevance, term coverage, consistency; 0.5/0.5/1.0 when a step has none), the
step's position (index / plan length, steps left), the revisions left, the attempt number and
whether the step searched the web.

**Labels** are the decision the rule took, corrected by what happened next (the run's answer
and, when the run was evaluated, its outcome):

* a REVISE whose retry brought no evidence the answer cites, when this attempt's evidence
  was not cited either, was wasted: the label is CONTINUE (FINISH on the last step);
* a CONTINUE or FINISH after an attempt none of whose evidence the answer cites, with
  revisions left, in a run whose outcome was poor (evaluation score < 0.5; without an
  evaluation: coverage "none"), should have been a REVISE;
* otherwise the rule's decision stands.

The outcome is the run's ``gold_evidence_recall`` in any saved evaluation (else its
``answer_correctness``); ``revisions left`` uses the current ``max_revisions`` (records do
not store the setting they ran with).
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
POOR = 0.5


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


def _attempts(record: Any, max_revisions: int) -> list[dict]:
    """Per decision: step, features, rule decision and the evidence ids of that attempt."""
    out: list[dict] = []
    open_: dict[int | None, dict] = {}  # by step: side-by-side steps interleave their events
    used = 0
    plan_len = len(record.plan)
    for ev in record.events:
        t = ev.type
        cur = open_.get(ev.step)
        if t == "step_started":
            open_[ev.step] = {"step": ev.step, "attempt": ev.attempt,
                              "web": ev.tool == "web_search", "scores": [],
                              "coverage": "none", "ids": []}
        elif t == "hits_reranked" and cur:
            cur["scores"] = [h.score for h in ev.hits]
        elif t == "context_distilled" and cur:
            cur["ids"] = list(ev.evidence_ids)
        elif t == "step_reflected" and cur:
            cur["coverage"] = ev.coverage
            cur["quality"] = getattr(ev, "quality", None)
        elif t == "plan_revised":
            used = max(used, ev.revisions_used)
        elif t == "policy_decided" and cur:
            cur["rule"] = ev.decision
            cur["x"] = feature_vector(coverage=cur["coverage"], scores=cur["scores"],
                                      step=cur["step"], plan_len=plan_len,
                                      revisions_left=max_revisions - used,
                                      attempt=cur["attempt"], web=cur["web"],
                                      quality=cur.get("quality"))
            out.append(cur)
            del open_[ev.step]
    return out


def examples_from_record(record: Any, outcome: float | None, max_revisions: int
                         ) -> list[Example]:
    """The run's decisions as examples (see the module docstring for the labels)."""
    if record.kind != "deep" or record.status != "done" or record.answer is None:
        return []
    cited = {c.evidence_id for c in record.answer.citations}
    attempts = _attempts(record, max_revisions)
    out = []
    for i, a in enumerate(attempts):
        useful = bool(cited & set(a["ids"]))
        last = a["step"] + 1 >= len(record.plan)
        label = a["rule"]
        if a["rule"] == "REVISE":
            retry = next((b for b in attempts[i + 1:] if b["step"] == a["step"]), None)
            helped = retry is not None and bool(cited & set(retry["ids"]))
            if not helped and not useful:
                label = "FINISH" if last else "CONTINUE"
        elif not useful and a["x"][FEATURES.index("revisions_left")] > 0:
            poor = outcome < POOR if outcome is not None else a["coverage"] == "none"
            if poor:
                label = "REVISE"
        out.append(Example(record.id, a["x"], a["rule"], label))
    return out


def outcomes(settings: Settings) -> dict[str, float]:
    """Run id -> evaluation outcome (gold evidence recall, else answer correctness)."""
    from core.evaluation.storage import list_evals, load_eval
    from core.foundation.errors import AppError

    out: dict[str, float] = {}
    for manifest in list_evals(settings):
        try:
            saved = load_eval(settings, manifest.id)
        except AppError:
            continue
        for r in saved.results:
            for key in ("gold_evidence_recall", "answer_correctness"):
                m = r.metrics.get(key)
                if r.run_id and m is not None and m.value is not None:
                    out.setdefault(r.run_id, float(m.value))
                    break
    return out


def collect(settings: Settings) -> list[Example]:
    """Examples from every saved deep run under ``settings.runs_dir``."""
    from core.app.runs import list_runs

    scores = outcomes(settings)
    return [ex for record in list_runs(settings)
            for ex in examples_from_record(record, scores.get(record.id), settings.max_revisions)]
