"""Several companies' figures for one measure: which is higher (compare), all in order (rank).

Rows with a figure are ordered by value (highest first for 'higher', lowest first for
'lower'); rows without one come last and are said. A comparison of two needs both figures;
a comparison or ranking of more decides among those found and names the missing. Two
figures equal as stated are a tie, said as such.
"""

from __future__ import annotations

from collections.abc import Callable

from core.analysis.model import AnalysisResult, AnalysisSpec, PeerRow
from core.analysis.rows import (
    gap,
    not_loaded,
    period_notes,
    period_words,
    possessive,
    shared_unit,
)

Mark = Callable[[PeerRow], str]


def order(rows: list[PeerRow], direction: str) -> list[PeerRow]:
    """``rows`` in the verdict's order, ranked; rows without a figure last, unranked."""
    found = sorted((r for r in rows if r.value is not None),
                   key=lambda r: r.value, reverse=direction == "higher")
    out = [r.model_copy(update={"rank": k}) for k, r in enumerate(found, start=1)]
    return out + [r for r in rows if r.value is None]


def peers(spec: AnalysisSpec, rows: list[PeerRow]) -> AnalysisResult:
    """Compare or rank ``rows`` (see the module docstring)."""
    ranked = order(rows, spec.direction)
    found = [r for r in ranked if r.value is not None]
    missing = [f"{r.label}: {r.missing}" for r in ranked if r.value is None]
    out = AnalysisResult(spec=spec, rows=ranked, unit=shared_unit(ranked),
                         notes=period_notes(found), missing=missing)
    need = 2 if spec.kind == "compare" and len(rows) == 2 else min(2, len(rows))
    if len(found) < need or not out.unit:
        out.lead = missing_lead(out, lambda _r: "")
        return out
    if spec.kind == "rank":
        out.verdict = ", ".join(r.label for r in found)
    elif found[0].display == found[1].display:
        out.verdict = "tie"
    else:
        out.verdict = found[0].label
    sign = ">" if spec.direction == "higher" else "<"
    out.basis = f" {sign} ".join(f"{r.label} {r.display}" for r in found)
    if spec.expect:  # "Was Cloud the largest segment?": yes when it comes first
        first = out.verdict.lower() == spec.expect.lower()
        out.verdict = "Yes" if first else "No"
    out.lead = peers_lead(out, lambda _r: "")
    return out


def _at(row: PeerRow, mark: Mark) -> str:
    return f"{row.display} in {period_words(row.period)}{mark(row)}"


def peers_lead(result: AnalysisResult, mark: Mark) -> str:
    """The answer's first line: the verdict with the figures, each followed by ``mark``."""
    spec, rows = result.spec, [r for r in result.rows if r.value is not None]
    if not result.verdict:
        return missing_lead(result, mark)
    if spec.expect and result.verdict in ("Yes", "No"):
        plain = result.model_copy(update={
            "verdict": rows[0].label, "spec": spec.model_copy(update={"expect": ""})})
        return f"{result.verdict}. {peers_lead(plain, mark)}"
    most = "highest" if spec.direction == "higher" else "lowest"
    if spec.kind == "rank":
        listed = "; ".join(f"{r.label} {_at(r, mark)}" for r in rows)
        first = "highest first" if spec.direction == "higher" else "lowest first"
        text = f"By {spec.name}, {first}: {listed}."
    elif result.verdict == "tie":
        text = (f"{rows[0].label} and {rows[1].label} had the same {spec.name}: "
                f"{_at(rows[0], mark)} and {_at(rows[1], mark)}.")
    elif " vs " in spec.name:  # one company's measures ("its R&D or its capex")
        larger = "larger" if spec.direction == "higher" else "smaller"
        if len(rows) > 2:
            larger = "largest" if spec.direction == "higher" else "smallest"
        rest = ", ".join(f"{r.label} {_at(r, mark)}" for r in rows[1:])
        text = f"{rows[0].label} was the {larger}: {_at(rows[0], mark)}, against {rest}."
    elif len(result.rows) == 2 and spec.difference and gap(rows[0], rows[1]):
        # "by how many points ...": the gap first, then the two figures
        text = (f"{possessive(rows[0].label)} {spec.name} was {gap(rows[0], rows[1])} "
                f"{spec.direction} than {possessive(rows[1].label)}: {_at(rows[0], mark)} "
                f"against {_at(rows[1], mark)}.")
    elif len(result.rows) == 2:
        text = (f"{rows[0].label} had the {spec.direction} {spec.name}: {_at(rows[0], mark)} "
                f"against {possessive(rows[1].label)} {_at(rows[1], mark)}.")
    else:
        rest = ", ".join(f"{r.label} {_at(r, mark)}" for r in rows[1:])
        text = f"{rows[0].label} had the {most} {spec.name}: {_at(rows[0], mark)}; then {rest}."
    if result.missing:  # "Not found": a statement of absence, never taken for a claim
        text += f" Not found: {missing_said(result)}."
    return text


def missing_said(result: AnalysisResult) -> str:
    """Every row without a figure, said once: 'Orrin: ...; no filing of Zentrix, Morvane
    Labs or Pellucid is loaded (add them ...)' (each company not loaded named, however
    many)."""
    absent = [r.label for r in result.rows if r.value is None and r.figure is None
              and r.label in result.spec.absent]
    parts = [f"{r.label}: {r.missing}" for r in result.rows
             if r.value is None and r.label not in absent]
    if len(absent) == 1:
        parts.append(not_loaded(absent[0]))
    elif absent:
        names = f"{', '.join(absent[:-1])} or {absent[-1]}"
        parts.append(f"no filing of {names} is loaded (add them in the Library or with "
                     "`python -m core fetch`)")
    return "; ".join(parts)


def missing_lead(result: AnalysisResult, mark: Mark) -> str:
    """What can be said when figures are missing: those found, and what is missing."""
    spec = result.spec
    found = [f"{possessive(r.label)} {spec.name} was {_at(r, mark)}" for r in result.rows
             if r.value is not None]
    reasons = [m.split(": ", 1)[1] if ": " in m else m for m in result.missing]
    lost = reasons[0] if len(reasons) > 1 and len(set(reasons)) == 1 else \
        missing_said(result) or "the figures do not share a unit"
    if len(set(reasons)) == 1 and "not a useful metric" in reasons[0]:
        return reasons[0][:1].upper() + reasons[0][1:] + "."  # said first, once
    head = f"I cannot say which had the {spec.direction} {spec.name}" if spec.kind == \
        "compare" else f"I cannot decide this from the filings' figures ({spec.name})"
    said = f" {'; '.join(found)}." if found else ""
    return f"{head}: {lost}.{said}"
