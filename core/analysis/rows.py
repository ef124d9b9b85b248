"""A figure as a row of the peer table, and the words an analysis answer uses for periods.

A row is one ``FigureResult`` (a company's operating margin, one of two measures, a year of
a series): its value in the figure's unit, as stated, for the period it was read for (with
that period's end date, from the facts), the work in words and figures, and the chunks its
facts are printed in. A figure not found keeps its row, with why.
"""

from __future__ import annotations

from core.analysis.model import PeerRow
from core.figures.model import FigureResult
from core.figures.units import display, number


def period_words(period: str) -> str:
    """'FY2024' -> 'fiscal 2024'; 'FY2024-Q1' -> 'Q1 fiscal 2024'."""
    if not period or not period.startswith("FY"):
        return period or "the latest period"
    year, _, part = period[2:].partition("-")
    return f"{part} fiscal {year}" if part else f"fiscal {year}"


def period_end(result: FigureResult) -> str | None:
    """The end date of the figure's (last) period, as its facts give it."""
    period = result.request.periods[-1] if result.request.periods else None
    ends = [i.fact.end for i in result.inputs
            if i.fact is not None and i.fact.end and (period is None or i.period == period)]
    return max(ends) if ends else None


def chunk_ids(result: FigureResult) -> list[str]:
    return list(dict.fromkeys(i.fact.chunk_id for i in result.inputs
                              if i.fact is not None and i.fact.chunk_id))


def inputs_text(result: FigureResult) -> str:
    """The work ('operating income FY2024 / revenue FY2024 = 6,741 / 21,505 (USD millions)'),
    or, for a figure looked up, where it was read ('XBRL us-gaap:Revenues')."""
    if result.work:
        return result.work.rsplit(" = ", 1)[0] if result.work.count(" = ") >= 2 else result.work
    sources = [("XBRL " + i.fact.concept) if i.fact.source == "xbrl" and i.fact.concept
               else f"table row: {i.fact.label}" for i in result.inputs if i.fact is not None]
    return "; ".join(dict.fromkeys(sources))


def row_of(label: str, result: FigureResult) -> PeerRow:
    """The peer-table row of ``result`` (see the module docstring)."""
    req = result.request
    found = result.ok and result.value is not None
    return PeerRow(
        label=label, company=req.companies[0] if req.companies else "",
        period=req.periods[-1] if req.periods else "", period_end=period_end(result),
        value=result.value if found else None, unit=result.unit,
        display=result.display if found else "not found", inputs=inputs_text(result),
        chunk_ids=chunk_ids(result),
        missing="" if found else "; ".join(result.missing) or "the figure was not found")


def not_loaded(name: str) -> str:
    """Why a company the question names has no figure: no filing of it is loaded."""
    return f"no filing of {name} is loaded (add it in the Library or with `python -m core " \
        "fetch`)"


def shared_unit(rows: list[PeerRow]) -> str:
    """The unit every row with a figure has; '' when they differ or none has one."""
    units = {r.unit for r in rows if r.value is not None}
    return units.pop() if len(units) == 1 else ""


def stated(value: float, unit: str, like: PeerRow | None = None) -> str:
    """A number in a row's unit, as the rows state theirs (a threshold: '20%', '$50,000
    million')."""
    decimals = 1 if unit == "percent" else 0
    if like is not None and "." in like.display:
        decimals = len(like.display.split(".")[1].rstrip("%").split()[0])
    return display(value, unit or "", decimals)


def gap(first: PeerRow, second: PeerRow) -> str:
    """How far apart two figures of one unit are, as the rows state theirs: '0.8 points'
    for percentages, '$64,891 million', '0.36'; '' when they cannot be set apart."""
    if first.value is None or second.value is None or first.unit != second.unit:
        return ""
    diff = abs(first.value - second.value)
    if first.unit == "percent":
        return f"{number(diff, 1)} points"
    return stated(diff, first.unit, first)


def was(name: str) -> str:
    """'were' after a plural measure ("total liabilities", "capital expenditures",
    "dividends"), else 'was' ("revenue", "EPS", "net sales growth")."""
    last = (name.split() or [""])[-1]
    plural = last.islower() and last.endswith("s") and not last.endswith(("ss", "us", "is"))
    return "were" if plural else "was"


def possessive(name: str) -> str:
    """"Acme's", "Halfway Widgets'"."""
    name = name.rstrip("'\u2019")
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def period_notes(rows: list[PeerRow]) -> list[str]:
    """Periods that differ between the rows' subjects: fiscal years ending in different
    months, or a different latest fiscal year (companies grouped by date and period)."""
    dated = [r for r in rows if r.period_end]
    notes = []
    if len({r.period_end[5:7] for r in dated}) > 1:
        notes.append("Fiscal years end in different months: " + _grouped(
            [(r.period_end, r.label) for r in dated]) + ".")
    if len({r.period for r in rows if r.period}) > 1:
        notes.append("The periods compared differ: " + _grouped(
            [(period_words(r.period), r.label) for r in rows if r.period])
            + " (each company's latest fiscal year unless the question names one).")
    return notes


def _grouped(pairs: list[tuple[str, str]]) -> str:
    """'2024-12-31 (Birch, Cobalt); 2024-11-29 (Acme)': labels by value, in order."""
    groups: dict[str, list[str]] = {}
    for value, label in pairs:
        groups.setdefault(value, []).append(label)
    if all(len(v) == 1 for v in groups.values()):
        return ", ".join(f"{possessive(v[0])} {k}" for k, v in groups.items())
    return "; ".join(f"{k} ({', '.join(v)})" for k, v in groups.items())
