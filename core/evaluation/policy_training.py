"""Training data for the learned policy (``core.agent.policy.learned``): one example per
policy decision in stored runs, and the fit from them.

**Features** are ``core.agent.policy.features``'s, read here from a run record's events
(``examples_from_record``) as the policy node reads them live.

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

from typing import Any

from core.agent.policy import learned as learned_policy
from core.agent.policy.features import FEATURES, Example, feature_vector
from core.foundation.config import Settings

POOR = 0.5


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


def fit_and_save(settings: Settings) -> learned_policy.PolicyModel:
    """Collect examples from stored runs and evaluations, fit, save (``python -m core policy
    fit``); raises ValueError when there is too little to learn from."""
    model = learned_policy.fit(collect(settings))
    learned_policy.save(model, settings)
    return model
