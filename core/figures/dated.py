"""Periods a question names by their end date or as a part of a year, on the filer's calendar.

"The three months ended December 31, 2022" of a filer whose fiscal year ends in June is its
second quarter of fiscal 2023, not a calendar Q4; "the six months ended July 29, 2023" of a
retailer whose fiscal 2024 ends in early 2024 is the first half of fiscal 2024. Such phrases
are read here and resolved as the filings in scope print that period: the fiscal year and
period of their facts with that end date and length (exact: the facts were read on each
filing's own calendar), else the fiscal calendar of an annual report in scope; "the first six
months of 2023" and "the first half of fiscal 2024" name the year to date directly.

Labels: 'FY2023-Q2' (a quarter), 'FY2024-H1' (six months to date), 'FY2023-9M' (nine
months), 'FY2023' (a year).
"""

from __future__ import annotations

import re
from datetime import date

from core.foundation.types import DocumentMeta, Fact
from core.ingest.facts.calendar import FiscalCalendar
from core.ingest.facts.headings import MONTH, durations, to_date

_LENGTH = (r"(three|six|nine|twelve|3|6|9|12)[-\s]+months?|(twelve|thirteen|sixteen|"
           r"twenty[-\s]?four|twenty[-\s]?six|thirty[-\s]?six|thirty[-\s]?nine|fifty[-\s]?two|"
           r"fifty[-\s]?three|12|13|16|24|26|36|39|52|53)[-\s]+weeks?|(quarter|"
           r"(?:fiscal\s+)?year)")
_ENDED = re.compile(rf"\b(?:{_LENGTH})\s+(?:period\s+)?end(?:ed|ing)\s+(?:on\s+)?{MONTH}\s*"
                    r"(\d{1,2}),?\s*((?:19|20)\d\d)\b", re.I)
_PART = re.compile(r"\bfirst\s+(?:(six|nine|6|9)\s+months|(half))\s+of\s+(?:the\s+)?"
                   r"(?:fiscal\s+(?:year\s+)?)?(?:FY\s?)?((?:19|20)\d\d)\b", re.I)
def calendars(documents: list[DocumentMeta]) -> list[FiscalCalendar]:
    """The fiscal calendars of the annual reports among ``documents`` (a 10-Q's own period
    end does not say which quarter it is, so its calendar is not guessed)."""
    out = []
    for d in documents:
        if not (d.form_type or "").upper().startswith("10-K"):
            continue
        try:
            cal = FiscalCalendar.for_filing(d.period or "", d.period_end or "", d.form_type or "")
        except ValueError:
            cal = None
        if cal is not None:
            out.append(cal)
    return out


def _label(cal: FiscalCalendar, end: date, months: int) -> str | None:
    resolved = cal.resolve(end, months, False)
    if resolved.fiscal_year is None:
        return None
    part = resolved.fiscal_period
    if months == 12:
        return f"FY{resolved.fiscal_year}" if part == "FY" else None
    if part in ("Q1", "Q2", "Q3", "Q4", "H1", "9M"):
        return f"FY{resolved.fiscal_year}-{part}"
    return None


def _from_facts(facts: list[Fact], end: date, months: int) -> str | None:
    """The label the filings' own facts give a duration of ``months`` ending on ``end``."""
    want = end.isoformat()
    for f in facts:
        if f.end == want and f.period_type == "duration" and f.months == months and \
                f.fiscal_year and not f.dims:
            part = f.fiscal_period
            if months == 12 and part == "FY":
                return f"FY{f.fiscal_year}"
            if part in ("Q1", "Q2", "Q3", "Q4", "H1", "9M"):
                return f"FY{f.fiscal_year}-{part}"
    return None


def dated_periods(text: str, documents: list[DocumentMeta], store=None
                  ) -> list[tuple[int, int, str]]:
    """``[(start, end, label)]`` of the periods ``text`` names by an end date (as the facts
    of ``documents``, the filings in scope, read from ``store``, name it; else on an annual
    report's calendar) or as the first half / nine months of a year; a dated phrase nothing
    places is left out (the caller reads it as before)."""
    out = []
    matches = list(_ENDED.finditer(text))
    cals = calendars(documents) if matches else []
    for m in matches:
        found = durations(text[m.start():m.start(4)])  # the length named: 3, 6, 9, 12
        if len(found) > 1:
            found.discard(12)  # "fiscal" beside "quarter": the quarter
        end = to_date(m.group(4), m.group(5), m.group(6))
        if len(found) != 1 or end is None:
            continue
        months = found.pop()
        label = _from_facts(_facts(store, documents, end.year), end, months) or next(
            (lab for cal in cals if (lab := _label(cal, end, months))), None)
        if label:
            out.append((m.start(), m.end(), label))
    for m in _PART.finditer(text):
        suffix = "H1" if (m.group(2) or m.group(1) in ("six", "6")) else "9M"
        out.append((m.start(), m.end(), f"FY{m.group(3)}-{suffix}"))
    return sorted(out)


def _facts(store, documents: list[DocumentMeta], year: int) -> list[Fact]:
    if store is None or not documents:
        return []
    try:
        return list(store.facts([d.doc_id for d in documents],
                                fiscal_years=[year - 1, year, year + 1]))
    except (AttributeError, TypeError):
        return []
