"""Stating a figure: the answer's first sentence, the missing-input sentence, the work.

The first figure of the sentence is the one asked, in the unit and rounding asked ("Acme's
FY2018 capital expenditure was $1,234 million [1]."; for a change the change comes first:
"The year-over-year change in Adobe's operating income from FY2015 to FY2016 was 65.4%
($903 million to $1,494 million) [1]."). Every input's chunk is cited through ``cite``
(chunk id -> marker such as "[1]"), each once, in order.
"""

from __future__ import annotations

from collections.abc import Callable

from core.figures.model import FigureInput, FigureResult
from core.figures.units import amount
from core.metrics import catalog


def _possessive(company: str) -> str:
    company = company.strip().rstrip("'’")  # the question's "Widgets'" is "Widgets"
    if not company:
        return ""
    return f"{company}'" if company.endswith("s") else f"{company}'s"


def _cites(inputs: list[FigureInput], cite: Callable[[str], str]) -> str:
    marks: list[str] = []
    for i in inputs:
        if i.fact is not None and i.fact.chunk_id:
            mark = cite(i.fact.chunk_id)
            if mark and mark not in marks:
                marks.append(mark)
    return "".join(marks)


def _label(result: FigureResult) -> str:
    req = result.request
    entry = catalog().get(req.metric) if req.metric else None
    return entry.label if entry is not None and req.formula_source == "lookup" and \
        not req.member else req.name


def _end(cites: str) -> str:
    return f" {cites}." if cites else "."


def _trend(new: float, old: float) -> tuple[str, str]:
    if old == 0:
        return "compared with", "n/a"
    change = (new - old) / abs(old) * 100
    word = "about flat from" if abs(change) < 1 else "up from" if change > 0 else "down from"
    return word, f"{change:+.1f}%"


def figure_sentence(result: FigureResult, company: str,
                    cite: Callable[[str], str]) -> str:
    """The answer's first sentence for ``result`` (a missing input: ``missing_sentence``)."""
    if not result.ok:
        return missing_sentence(result)
    req = result.request
    who = _possessive(company)
    label = _label(result)
    cites = _end(_cites(result.inputs, cite))
    periods = req.periods or [i.period for i in result.inputs[:1]]
    if len(result.inputs) == len(periods) and len({i.metric for i in result.inputs}) == 1:
        # One metric over the periods asked: say the periods read (a quarter named by the
        # calendar is read as the filing's own fiscal quarter).
        periods = sorted((i.period for i in result.inputs), key=_period_key)
    read = {i.period for i in result.inputs if i.value is not None}
    if len(periods) == 1 and len(read) == 1 and read != set(periods):
        periods = sorted(read)  # a ratio of a quarter named by the calendar: the one read
    first, last = (periods[0], periods[-1]) if periods else ("", "")
    if req.aggregate in {"pct_change", "change", "cagr"} and len(result.inputs) >= 1:
        what = {"pct_change": "year-over-year change in", "change": "change in",
                "cagr": "compound annual growth rate of"}[req.aggregate]
        ends = _ends(result, first, last)
        subject = f"{who} {label}".strip()
        shown = result.display
        if req.aggregate == "change" and result.unit == "percent" and shown.endswith("%"):
            shown = f"{shown[:-1]} percentage points"  # a margin's change: points, not %
        return f"The {what} {subject} from {first} to {last} was {shown}{ends}{cites}"
    if req.aggregate == "average" and len(periods) > 1:
        return f"{who} average {label} over {first}-{last} was {result.display}{cites}".strip()
    if req.aggregate == "value" and len(periods) > 1:
        older = [i for i in result.inputs if i.period == first and i.value is not None]
        current = [i for i in result.inputs if i.period == last and i.value is not None]
        if older and current:
            word, pct = _trend(current[0].value, older[0].value)
            return (f"{who} {label} was {result.display} in {last}, {word} "
                    f"{amount(older[0].value, older[0].unit)} in {first} ({pct})"
                    f"{cites}").strip()
    entry = catalog().get(req.metric) if req.metric else None
    if req.member:  # "Adobe's Digital Media segment revenue in FY2024 was ..."
        return f"{who} {label} in {last} was {result.display}{cites}".strip()
    if entry is not None and entry.kind == "instant" and req.formula_source == "lookup":
        return f"{who} {label} at the end of {last} was {result.display}{cites}".strip()
    return f"{who} {last} {label} was {result.display}{cites}".strip()


def _period_key(period: str) -> tuple:
    return (period[2:6], period[6:])


def _ends(result: FigureResult, first: str, last: str) -> str:
    """' ($903 million to $1,494 million)' when the formula is one metric over two periods."""
    metrics = {i.metric for i in result.inputs}
    if len(metrics) != 1:
        return ""
    old = [i for i in result.inputs if i.period == first]
    new = [i for i in result.inputs if i.period == last]
    if not old or not new or old[0].value is None or new[0].value is None:
        return ""
    return f" ({amount(old[0].value, old[0].unit)} to {amount(new[0].value, new[0].unit)})"


def missing_sentence(result: FigureResult) -> str:
    """'I could not compute X: no FY2017 net PP&E in the filings loaded.' (never a number)."""
    req = result.request
    what = f"{' / '.join(req.periods[-1:])} {req.name}".strip()
    reasons = list(dict.fromkeys(result.missing)) or ["no figures found in the filings loaded"]
    text = f"I could not compute {what}: {'; '.join(reasons)}"
    if result.no_statements:
        names = ", ".join(result.no_statements)
        verb = "holds" if len(result.no_statements) == 1 else "hold"
        text += f" ({names} {verb} no financial statements)"
    return text + "."


def work_lines(result: FigureResult, cite: Callable[[str], str]) -> list[str]:
    """The computation as plain-text lines: each input with its source, the arithmetic,
    the notes (which filing, disagreements, sign conventions)."""
    lines = []
    for row, item in zip(result.rows, result.inputs, strict=False):
        mark = f" {cite(row.chunk_id)}" if row.chunk_id else ""
        page = f", p. {row.page}" if row.page else ""
        source = f" ({row.source}{page})" if row.source else ""
        sign = f"; {item.sign_note}" if item.sign_note else ""
        lines.append(f"- {row.input}, {row.period}: {row.value}{source}{sign}{mark}")
    if result.work:
        lines.append(f"- Computed: {result.work}")
    lines.extend(f"- Note: {n}" for n in result.notes)
    return lines
