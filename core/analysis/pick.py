"""The row of a statement that is largest (or smallest): "the largest liability on the
balance sheet", "its biggest asset".

Read from the filing whose total the question's figure step looked up, at that total's
date: the balance sheet's lines in the order the filing prints them (its table rows; its
tagged facts when no table was read), liabilities being the lines after "Total assets" and
up to "Total liabilities" (or the first equity line), assets the lines before "Total
assets"; totals and subtotals are no lines of their own. A label printed twice ("Debt"
among current and among long-term liabilities) is told apart by the subtotal it sits under.
"""

from __future__ import annotations

import re

from core.analysis.model import AnalysisResult, AnalysisSpec, PeerRow
from core.analysis.rows import period_words, possessive
from core.figures.model import FigureResult
from core.figures.units import amount, display
from core.foundation.types import Fact

_TOTAL = re.compile(r"^\s*total\b", re.I)
_EQUITY = re.compile(r"\b(?:equity|stockholders|shareholders|shareowners|preferred\s+stock|"
                     r"common\s+stock|paid-in|retained\s+earnings)\b", re.I)
_CURRENT_TOTAL = re.compile(r"^\s*total\s+current\s+(?:assets|liabilities)\b", re.I)
SIDES = {"liability": "total_liabilities", "asset": "total_assets"}


def balance_lines(facts: list[Fact], side: str) -> list[tuple[str, Fact]]:
    """``(label, fact)`` of each line of ``side`` ('liability' or 'asset'), in print order."""
    table = [f for f in facts if f.source == "table"] or list(facts)
    table.sort(key=lambda f: f.fact_id)
    out, part, current = [], "asset", True
    for f in table:
        label = " ".join(f.label.split())
        low = label.lower()
        if _TOTAL.match(label):
            if re.match(r"^\s*total\s+assets\b", low):
                part, current = "liability", True
            elif re.match(r"^\s*total\s+liabilities\b", low) and "equity" not in low:
                part = "equity"
            elif _CURRENT_TOTAL.match(label):
                current = False
            continue
        if part == "liability" and _EQUITY.search(label):
            part = "equity"
        if part == side:
            out.append((label, f, current))
    twice = {lb for lb, _, _ in out if sum(x == lb for x, _, _ in out) > 1}
    return [(f"{lb} ({'current' if cur else 'non-current'})" if lb in twice else lb, f)
            for lb, f, cur in out]


def _source(f: Fact) -> str:
    return f"XBRL {f.concept}" if f.source == "xbrl" and f.concept else \
        f"table row: {f.row or f.label}"


def pick(spec: AnalysisSpec, total: FigureResult, subject: str, store) -> AnalysisResult:
    """The largest (``direction='higher'``) or smallest line of the side ``spec.name`` names,
    beside the total the figure step found."""
    side = "asset" if "asset" in spec.name else "liability"
    out = AnalysisResult(spec=spec, figures=[total], subjects=[subject])
    fact = next((i.fact for i in total.inputs if i.fact is not None), None)
    if fact is None or store is None:
        out.missing = [f"no total {side} figure to read the balance sheet at"]
        out.lead = (f"I cannot name the {spec.name}: no balance sheet was found for "
                    f"{subject} ({'; '.join(total.missing) or 'no figure'}).")
        return out
    facts = [f for f in store.facts([fact.doc_id], statement="balance")
             if not f.dims and f.end == fact.end and f.unit == fact.unit]
    lines = [(lb, f) for lb, f in balance_lines(facts, side) if f.value > 0]
    lines.sort(key=lambda lf: lf[1].value, reverse=spec.direction == "higher")
    period = total.request.periods[-1] if total.request.periods else ""
    out.rows = [PeerRow(label=lb, company=subject, period=period, period_end=f.end,
                        value=f.value / 1e6, unit="USD millions", display=amount(f.value),
                        inputs=_source(f),
                        chunk_ids=[f.chunk_id] if f.chunk_id else [], rank=k)
                for k, (lb, f) in enumerate(lines[:8], start=1)]
    out.unit = "USD millions"
    if not out.rows:
        out.lead = f"I found no {side} lines on {possessive(subject)} balance sheet."
        return out
    top = out.rows[0]
    out.verdict = top.label
    out.basis = f"{top.label} {top.display} of total {_plural(side)} {amount(fact.value)}"
    out.lead = pick_lead(out, lambda _r: "")
    return out


def _plural(side: str) -> str:
    return "assets" if side == "asset" else "liabilities"


def pick_lead(result: AnalysisResult, mark) -> str:
    """"The largest liability on Acme's balance sheet at the end of fiscal 2024 was
    Deferred revenue (current): $350 million [1], 30% of total liabilities of ..."."""
    if not result.rows:
        return result.lead
    top, spec = result.rows[0], result.spec
    facts = [i.fact for f in result.figures for i in f.inputs if i.fact is not None]
    total = facts[0].value if facts else 0.0
    subject = result.subjects[0] if result.subjects else "the company"
    side = "assets" if "asset" in spec.name else "liabilities"
    share = display(top.value * 1e6 / total * 100, "percent", 0) if total else ""
    # the total is cited where it is printed (another chunk than the line, often)
    whole = PeerRow(label=f"total {side}", chunk_ids=[c for f in facts[:1] if (c := f.chunk_id)
                                                       and c not in top.chunk_ids])
    return (f"The {spec.name} on {possessive(subject)} balance sheet at the end of "
            f"{period_words(top.period)} was {top.label}: {top.display}{mark(top)}, "
            f"{share} of total {side} of {amount(total)}{mark(whole)}.")
