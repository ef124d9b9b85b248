"""Quarters named by the calendar read as a filing's own fiscal quarters.

File names, questions and a 10-Q known only by its end date use the calendar ("2023 Q1
ACME.pdf" holds the first quarter of a fiscal 2024 that ends in January 2024); facts carry
the filing's fiscal quarter. A quarter is moved to the filing's own unless the filing
prints it as a fiscal quarter; quarters compared in one formula move together, so a
year-over-year pair stays a pair.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date, timedelta

from core.figures.formula import Node, Ref, inputs
from core.figures.formula import substitute as substitute_refs
from core.figures.lookup import split_period
from core.figures.model import FigureRequest


def calendar_quarter(end: str) -> tuple[int, int] | None:
    """The calendar quarter a fiscal quarter ending on ``end`` mostly lies in (its middle,
    45 days before the end: a quarter ending April 30 is Q1, one ending July 1 is Q2)."""
    try:
        mid = date.fromisoformat(end[:10]) - timedelta(days=45)
    except ValueError:
        return None
    return mid.year, (mid.month - 1) // 3 + 1


def _owner(period: str, docs: list) -> tuple[str | None, bool]:
    """``(the one filing a quarter names by the calendar, named by its file name)``: the
    file name says the year and the quarter ("2023 Q1 NVDA.pdf"), or the filing's period
    ends in that calendar quarter."""
    year, quarter = split_period(period)
    named = [d.doc_id for d in docs
             if re.search(rf"(?<!\d){year}(?!\d)", d.file_name)
             and re.search(rf"(?i)q{quarter}(?!\d)", d.file_name)]
    dated = [d.doc_id for d in docs if d.period_end and
             calendar_quarter(d.period_end) == (year, quarter)]
    found = list(dict.fromkeys(named or dated))
    return (found[0] if len(found) == 1 else None), bool(named)


def _q_index(period: str) -> int:
    return int(period[2:6]) * 4 + int(period[-1]) - 1


def _q_label(index: int) -> str:
    return f"FY{index // 4}-Q{index % 4 + 1}"


def own_quarters(request: FigureRequest, store, node: Node, extra: list[Ref],
                  notes: list[str]) -> tuple[Node, list[Ref]]:
    """A quarter named by the calendar is the filing's own fiscal quarter: "Q1 2023" of
    "2023 Q1 NVDA.pdf", whose quarter is Q1 FY2024, is read as FY2024-Q1 (file names,
    questions and a 10-Q known only by its end date use the calendar)."""
    quarters = {r.period for r in inputs(node) + extra if "-Q" in r.period}
    if not quarters or not request.doc_ids or request.fiscal_quarters:
        return node, extra  # "Q1 FY2023" is the fiscal quarter it names
    try:
        docs = [d for d in store.documents() if d.doc_id in request.doc_ids]
    except (AttributeError, TypeError):
        docs = []
    moves: dict[str, str] = {}
    for period in sorted(quarters):
        owner, by_name = _owner(period, docs)
        if owner is None and len(request.doc_ids) == 1:
            owner = request.doc_ids[0]
        if owner is None:
            continue
        own = [f for f in store.facts([owner]) if f.months == 3 and f.end
               and re.fullmatch(r"Q[1-4]", f.fiscal_period or "") and f.fiscal_year]
        fiscal = {f"FY{f.fiscal_year}-{f.fiscal_period}" for f in own}
        if not own or (period in fiscal and not by_name):
            continue  # a fiscal quarter the filing prints (its own, or a comparative)
        last = max(own, key=lambda f: f.end)
        mine = f"FY{last.fiscal_year}-{last.fiscal_period}"
        if mine != period:
            moves[period] = mine
    own_pair = sorted({r.period for r in inputs(node) if "-Q" in r.period}, key=_q_index)
    if len(own_pair) > 1:
        # Quarters compared in one formula move together, by the latest one's shift (a
        # year-over-year pair never collapses into one quarter).
        shift = _q_index(moves.get(own_pair[-1], own_pair[-1])) - _q_index(own_pair[-1])
        moves.update({p: _q_label(_q_index(p) + shift) for p in own_pair})
        moves = {p: m for p, m in moves.items() if m != p}
    notes += [f"{p} read as the filing's own fiscal quarter, {m}." for p, m in moves.items()]
    if not moves:
        return node, extra
    move = lambda r: replace(r, period=moves.get(r.period, r.period))  # noqa: E731
    return substitute_refs(node, move), [move(r) for r in extra]
