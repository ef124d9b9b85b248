"""Self-check share: the share of the answer's claims that their cited evidence supports.

A deep run carries the self-check's verdict per claim (``Answer.checks``, see
``core.agent.roles.selfcheck``), removed claims included, so the share says how much of
what the synthesis wrote held up. A run without verdicts (the baseline, older runs)
is checked here by the same offline rule on its final text. Not applicable when
the answer states no claim.
"""

from __future__ import annotations

from typing import Any

from core.evaluation.results import MetricScore

KEY = "self_check"
NAME = "self-check (share of claims supported by their citations)"


def self_check_share(answer: Any) -> MetricScore:
    """The share for a run's ``Answer`` (see the module docstring)."""
    checks = list(getattr(answer, "checks", None) or [])
    source = "run"
    if not checks and answer is not None:
        from core.agent.roles.selfcheck import check_answer

        numbered = {n: ev for n, ev in enumerate(answer.evidence, start=1)}
        checks, _ = check_answer(answer.text, numbered)
        source = "offline rule"
    if not checks:
        return MetricScore(key=KEY, name=NAME, judge="rule", value=None,
                           note="the answer states no claim")
    ok = sum(c.verdict == "supported" for c in checks)
    judge = "llm" if any(c.judge == "llm" for c in checks) else "rule"
    return MetricScore(key=KEY, name=NAME, judge=judge, value=ok / len(checks),
                       details={"supported": ok, "checked": len(checks), "verdicts": source,
                                "removed": sum(not c.kept for c in checks)})
