"""Judgements decided by a named criterion of the catalogue (``core.metrics.criteria``).

Each test of the criterion is one row (its figure against its stated threshold); the rule
says whether one holding is enough (any) or all must (all). A missing figure leaves the
judgement open unless the others already decide it (one test holding under "any", one
failing under "all"). The answer names the criterion and every threshold.
"""

from __future__ import annotations

from collections.abc import Callable

from core.analysis.model import AnalysisResult, AnalysisSpec, PeerRow
from core.analysis.rows import period_words, possessive, shared_unit, stated
from core.metrics.criteria import Criterion, describe, get_criterion

Mark = Callable[[PeerRow], str]


def _holds(row: PeerRow, op: str, threshold: float) -> bool | None:
    if row.value is None:
        return None
    return row.value > threshold if op == "above" else row.value < threshold


def criterion(spec: AnalysisSpec, rows: list[PeerRow], subjects: list[str]) -> AnalysisResult:
    """Decide the judgement ``spec.criterion`` from ``rows`` (one per test, in order)."""
    out = AnalysisResult(spec=spec, rows=rows, unit=shared_unit(rows),
                         missing=[f"{r.label}: {r.missing}" for r in rows if r.value is None])
    found = get_criterion(spec.criterion or "")
    if found is None:
        out.lead = f"The criterion {spec.criterion!r} is not in the catalogue."
        return out
    holds = [_holds(r, t.op, t.threshold) for r, t in zip(rows, found.tests, strict=False)]
    known = [h for h in holds if h is not None]
    if found.rule == "any":
        yes = True if any(known) else (False if len(known) == len(holds) else None)
    else:
        yes = False if not all(known) else (True if len(known) == len(holds) else None)
    if yes is not None:
        out.verdict = "Yes" if yes else "No"
    out.basis = "; ".join(
        f"{r.label} {r.display} ({'meets' if h else 'does not meet' if h is not None else 'n/a'}"
        f" {t.op} {stated(t.threshold, r.unit, r)})"
        for r, t, h in zip(rows, found.tests, holds, strict=False))
    out.lead = criterion_lead(out, found, subjects, lambda _r: "")
    return out


def criterion_text(found: Criterion, rows: list[PeerRow]) -> str:
    return describe(found, {r.label: r.unit for r in rows})


def criterion_lead(result: AnalysisResult, found: Criterion | None, subjects: list[str],
                   mark: Mark) -> str:
    """"No. By the catalogue's criterion for capital-intensive (capex / revenue above 10% or
    net PP&E / total assets above 40%): Acme's capex / revenue was 5.1% and ..."."""
    found = found or get_criterion(result.spec.criterion or "")
    if found is None:
        return result.lead
    who = possessive(subjects[0] if subjects else "The company")
    rows = result.rows
    parts = [f"{r.label} was {r.display}{mark(r)}" if r.value is not None else
             f"{r.label} was not found ({r.missing})" for r in rows]
    said = f"{who} {parts[0]}" + "".join(f"{', ' if k < len(parts) - 1 else ' and '}its {p}"
                                         for k, p in enumerate(parts[1:], start=1))
    when = period_words(rows[0].period) if rows else ""
    head = f"{result.verdict}." if result.verdict else "Undecided:"
    return (f"{head} By the catalogue's criterion for {found.label} "
            f"({criterion_text(found, rows)}): {said} in {when}.")
