"""Column headings of a table resolved to periods.

Headings come in many shapes: a full date per column ("January 29, 2023"), a date split
over two heading rows by PDF layout ("November 27," above "2015"), a bare year under a
shared "Years ended December 31", a bare fiscal year ("Fiscal Year | 2019 | 2018"), and
group headings spanning several columns ("Three Months Ended | Six Months Ended" above
four dates). Each heading row is spread over the value columns (position by position when
it has one cell per column, else its filled cells in order, else each spanning an equal
share); each column's heading is its pieces read top-down. A column is then read for its
end date (or bare year), its length in months and whether it is an instant, from its own
heading first and from the shared caption lines when its own heading does not say.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from itertools import pairwise

from core.ingest.facts.cells import NUMERIC_DATE

MONTH = (r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_MONTHS = {m: i for i, m in enumerate(
    "jan feb mar apr may jun jul aug sep oct nov dec".split(), start=1)}
_DATE = re.compile(rf"\b{MONTH}\s*(\d{{1,2}})\s*,?\s*((?:19|20)\d\d)\b", re.I)
_MONTH_DAY = re.compile(rf"\b{MONTH}\s*(\d{{1,2}})\b(?!\s*,?\s*(?:19|20)\d\d)", re.I)
_YEAR = re.compile(r"(?<![\d,.$])((?:19|20)\d\d)(?![\d.%]|,\d)")
_DURATIONS = (
    (3, re.compile(r"three\s*months|\b3\s*months|(?:twelve|thirteen|sixteen|seventeen)\s*weeks|"
                   r"\b1[2367]\s*weeks|quarter", re.I)),  # 12- and 16-week quarters
    (6, re.compile(r"six\s*months|\b6\s*months|twenty[-\s]*(?:four|five|six)\s*weeks|"
                   r"\b2[456]\s*weeks", re.I)),
    (9, re.compile(r"nine\s*months|\b9\s*months|thirty[-\s]*(?:six|seven|eight|nine)\s*weeks|"
                   r"\b3[6-9]\s*weeks", re.I)),
    (12, re.compile(r"twelve\s*months|\b12\s*months|fifty[-\s]*(?:two|three)\s*weeks|"
                    r"\b5[23]\s*weeks|\byears?\b|\bfiscal\b", re.I)),
)
_GROUP = re.compile(r"\b(?:three|six|nine|twelve|3|6|9|12)\s*months|\b(?:twelve|thirteen|sixteen|"
                    r"twenty[-\s]*(?:four|six)|thirty[-\s]*(?:six|nine)|fifty[-\s]*(?:two|three)|"
                    r"1[2367]|2[46]|3[69]|5[23])\s*weeks|"
                    r"\b(?:fiscal\s+)?years?\s+end(?:ed|ing)|\bquarters?\s+end(?:ed|ing)", re.I)
_INSTANT = re.compile(r"\bas\s+of\b|^\s*at\b|\bat\s+(?:" + MONTH + r"|year[-\s]end)|balance",
                      re.I)
_ENDED = re.compile(r"\bend(?:ed|ing)\b|\bmonths\b|\bweeks\b|\byears?\b|\bquarter\b", re.I)
_PERCENT = re.compile(r"percent|%", re.I)
_CHANGE = re.compile(r"\bvs\.?(?!\w)|\bversus\b|\bchange\b|\bvariance\b|\bincrease\b|"
                     r"\bdecrease\b|\bgrowth\b", re.I)
_SCALE_NOTE = re.compile(r"\(?\s*(?:\$|dollars|amounts)?\s*in\s+(?:millions|thousands|billions)"
                         r"(?:,?\s*except[^)]*)?\s*\)?", re.I)


def clean_heading(text: str) -> str:
    """A column heading without the scale note spread over it ("(In millions)")."""
    return " ".join(_SCALE_NOTE.sub(" ", text).split())


@dataclass
class Column:
    """What one value column's heading says about its period."""

    heading: str
    end: date | None = None
    year: int | None = None  # a bare year as printed (the filer's fiscal year name)
    months: int | None = None
    instant: bool | None = None
    percent: bool = False

    @property
    def has_period(self) -> bool:
        return self.end is not None or self.year is not None


def _numeric_date(month: str, day: str, year: str) -> date | None:
    try:
        return date(int(year), int(month), int(day))
    except ValueError:
        return None


def to_date(month: str, day: str, year: str) -> date | None:
    try:
        return date(int(year), _MONTHS[month[:3].lower()], int(day))
    except (ValueError, KeyError):
        return None


def spread(rows: list[list[str]], n: int, used: list[int] | None = None) -> list[str]:
    """Each of ``n`` value columns' heading text, read from heading rows (label cell first).
    ``used``: the columns that hold figures in the data rows; a heading row with one filled
    cell per such column heads them in order (PDF spacing shifts empty cells around)."""
    texts = [""] * n
    for row in rows:
        cells = [c.strip() for c in row[1:]]
        filled = [c for c in cells if c]
        if not filled:
            continue
        if used and len(used) < n and len(filled) == len(used) and len(cells) != n:
            pieces = [""] * n
            for k, cell in zip(used, filled, strict=True):
                pieces[k] = cell
        elif len(cells) == n:
            pieces = cells
        elif len(filled) == n:
            pieces = filled
        elif n % len(filled) == 0:
            share = n // len(filled)
            pieces = [c for c in filled for _ in range(share)]
        elif len(filled) < n:
            pieces = [""] * (n - len(filled)) + filled  # headings of the right-hand columns
        elif not has_period_words(" ".join(filled[:len(filled) - n])):
            # More headings than value columns, the first ones naming no period (a label
            # cell, "December 31, | 2024 | 2023"): the right-hand ones head the columns,
            # the others head them all.
            lead = " ".join(filled[:len(filled) - n])
            pieces = [f"{lead} {c}" for c in filled[-n:]]
        else:
            pieces = filled[:n]
        for k, piece in enumerate(pieces):
            if piece:
                texts[k] = f"{texts[k]} {piece}".strip()
    return texts


def duration_groups(text: str) -> list[str]:
    """A group heading line printed apart from the table ("Three Months Ended Six Months
    Ended", "Three Months Ended June 30, Six Months Ended June 30,") split into its groups
    in order; [] when the line names fewer than two durations."""
    starts = sorted({m.start() for m in _GROUP.finditer(text)})
    if len(starts) < 2:
        return []
    return [text[a:b].strip(" ,") for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]


def durations(text: str) -> set[int]:
    return {months for months, rx in _DURATIONS if rx.search(text)}


def _months(own: str, shared: str) -> int | None:
    found = durations(own)
    if not found:
        found = durations(shared)
    if len(found) > 1 and 12 in found:
        found.discard(12)  # "Three months ended ... fiscal year": the quarter is meant
    return found.pop() if len(found) == 1 else None


def read_column(own: str, shared: str) -> Column:
    """A column's period from its heading ``own`` and the table's shared caption text."""
    col = Column(heading=clean_heading(own), percent=bool(_PERCENT.search(own)))
    if _CHANGE.search(own):
        return col  # "Fiscal 2019 vs. Fiscal 2018", "% Change": a comparison, no period
    dates = {d for d in (to_date(*m.groups()) for m in _DATE.finditer(own)) if d}
    dates |= {d for d in (_numeric_date(*m.groups()) for m in NUMERIC_DATE.finditer(own)) if d}
    own = NUMERIC_DATE.sub(" ", own)
    if len(dates) > 1:
        return col  # two periods in one heading: a "change" column or a merged heading
    years = {int(y) for y in _YEAR.findall(_DATE.sub(" ", own))}
    if dates:
        col.end = dates.pop()
    elif len(years) == 1:
        year = years.pop()
        day = _MONTH_DAY.search(own) or _single_month_day(shared)
        in_shared = [d for d in (to_date(*m.groups()) for m in _DATE.finditer(shared)) if d]
        listed = [d for d in in_shared if d.year == year]
        if len(listed) == 1 and len(in_shared) >= 2:  # "years ended Dec 25, 2021, Dec 26, ..."
            col.end = listed[0]
        elif day is not None:
            col.end = to_date(day.group(1), day.group(2), str(year))
        if col.end is None:
            col.year = year
    else:
        return col
    col.months = _months(own, shared)
    both = f"{shared} {own}"
    if col.months is not None or _ENDED.search(both):
        col.instant = False
    elif _INSTANT.search(both) or col.end is not None:
        col.instant = True
    return col


def read_columns(texts: list[str], shared: str) -> list[Column]:
    """Each column's period (``read_column``), the bare years set against the caption's dates
    in order when it lists one date per year column: "At January 1, 2023 and January 2, 2022"
    above "2022 | 2021" is fiscal 2022 ending 2023-01-01, not the column whose date's
    calendar year is 2022."""
    columns = [read_column(t, shared) for t in texts]
    bare = [k for k, t in enumerate(texts) if _bare_year(t) is not None]
    dates = list(dict.fromkeys(d for d in (to_date(*m.groups()) for m in _DATE.finditer(shared))
                               if d))
    if len(bare) < 2 or len(bare) != len(dates):
        return columns
    years = [_bare_year(texts[k]) for k in bare]
    pairs = list(zip(years, dates, strict=True))
    same_order = all((y1 > y2) == (d1 > d2) and y1 != y2
                     for (y1, d1), (y2, d2) in pairwise(pairs))
    if not same_order or any(d.year - y not in (0, 1) for y, d in pairs):
        return columns
    for k, day in zip(bare, dates, strict=True):
        columns[k].end, columns[k].year = day, None
    return columns


def _bare_year(text: str) -> int | None:
    """The one year a heading prints with no month and day of its own."""
    if _CHANGE.search(text) or _DATE.search(text) or NUMERIC_DATE.search(text) \
            or _MONTH_DAY.search(text):
        return None
    years = {int(y) for y in _YEAR.findall(text)}
    return years.pop() if len(years) == 1 else None


def _single_month_day(text: str):
    found = list(_MONTH_DAY.finditer(text))
    keys = {(m.group(1)[:3].lower(), m.group(2)) for m in found}
    return found[0] if len(keys) == 1 else None


def has_period_words(text: str) -> bool:
    """Whether a line reads like a period heading (a date, a year, a duration)."""
    return bool(_DATE.search(text) or NUMERIC_DATE.search(text) or _YEAR.search(text)
                or durations(text))
