"""A filing's fiscal calendar: which fiscal year and period a date or a duration belongs to.

The calendar is calibrated on the filing itself: its own period (``meta.period`` "FY2023",
or "2024-Q1" for a 10-Q) and that period's end date (``meta.period_end``). Fiscal years of
52/53 weeks end on a different day each year, so a date is matched to a fiscal year end by
proximity (within ``YEAR_END_DAYS``), not by equality. The year's *name* follows the filer:
a retailer whose fiscal 2022 ends on 2023-01-28 gets ``offset`` -1 and every other year it
prints is named the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

YEAR_END_DAYS = 16  # a 52/53-week year ends within ~a week of its anniversary; margin kept
DAYS_PER_YEAR = 365.2425
_FY = re.compile(r"^FY(\d{4})$")
_QUARTER = re.compile(r"^(\d{4})-Q([1-4])$")
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def add_years(day: date, years: int) -> date:
    """``day`` moved by whole years (29 February becomes 28 February)."""
    try:
        return day.replace(year=day.year + years)
    except ValueError:
        return day.replace(year=day.year + years, day=28)


def iso(day: date | None) -> str | None:
    return day.isoformat() if day else None


@dataclass(frozen=True)
class Resolved:
    """Where a period sits in the filer's calendar."""

    fiscal_year: int | None
    fiscal_period: str  # "FY", "Q1".."Q4", "H1", "9M", "" (instant or unknown)


@dataclass(frozen=True)
class FiscalCalendar:
    """Year ends are ``year_end`` moved by whole years; ``year_end`` is fiscal ``fiscal_year``."""

    year_end: date
    fiscal_year: int
    quarterly: bool = False  # the filing is a 10-Q

    @classmethod
    def for_filing(cls, period: str, period_end: str, form: str = "",
                   quarter_hint: int | None = None) -> FiscalCalendar | None:
        """The calendar of a filing from its own period label and end date; None when the
        filing says neither (facts then get no fiscal year from dates)."""
        end = date.fromisoformat(period_end) if _ISO.match(period_end or "") else None
        quarterly = (form or "").upper().startswith("10-Q")
        fy = _FY.match(period or "")
        quarter = _QUARTER.match(period or "")
        if quarter and end:
            q = int(quarter.group(2))
            return cls(_year_end_after(end, q), int(quarter.group(1)), True)
        if end and (quarterly or _ISO.match(period or "")):
            q = quarter_hint or 1
            year_end = _year_end_after(end, q)
            name = year_end.year - 1 if year_end.month == 1 and year_end.day <= 7 else \
                year_end.year
            return cls(year_end, name, True)
        if fy and end:
            return cls(end, int(fy.group(1)), quarterly)
        if fy:
            return cls(date(int(fy.group(1)), 12, 31), int(fy.group(1)), quarterly)
        if end:
            return cls(end, end.year - 1 if end.month == 1 and end.day <= 7 else end.year)
        return None

    def anniversary(self, k: int) -> date:
        return add_years(self.year_end, k)

    def _nearest(self, day: date) -> tuple[int, int]:
        """(k, days from the k-th year end) for the year end nearest ``day``."""
        k = round((day - self.year_end).days / DAYS_PER_YEAR)
        return k, (day - self.anniversary(k)).days

    def is_year_end(self, day: date) -> bool:
        return abs(self._nearest(day)[1]) <= YEAR_END_DAYS

    def year_of(self, day: date) -> int:
        """The fiscal year ``day`` falls in (a year end belongs to the year it ends)."""
        k, off = self._nearest(day)
        if off > YEAR_END_DAYS:
            k += 1
        return self.fiscal_year + k

    def end_of_year(self, fiscal_year: int) -> date:
        """Approximate end of fiscal year ``fiscal_year`` (exact for this filing's own)."""
        return self.anniversary(fiscal_year - self.fiscal_year)

    def resolve(self, end: date, months: int | None, instant: bool) -> Resolved:
        """Fiscal year and period of an instant or of a duration of ``months`` ending on
        ``end``: a 3-month duration is the quarter it ends, 6 "H1", 9 "9M", 12 at a year
        end "FY"; other lengths and unknown ones keep only the fiscal year."""
        year = self.year_of(end)
        if instant:
            return Resolved(year, "")
        if months is None:
            return Resolved(year, "FY" if self.is_year_end(end) and not self.quarterly else "")
        if months == 12:
            return Resolved(year, "FY" if self.is_year_end(end) else "")
        start_of_year = self.end_of_year(year - 1)
        into = round((end - start_of_year).days / (DAYS_PER_YEAR / 12))
        if months == 3 and into in (3, 6, 9, 12):
            return Resolved(year, f"Q{into // 3}")
        if months == 6 and into == 6:
            return Resolved(year, "H1")
        if months == 9 and into == 9:
            return Resolved(year, "9M")
        return Resolved(year, "")


def _year_end_after(end: date, quarter: int) -> date:
    """The fiscal year end following a quarter ``quarter`` that ends on ``end``."""
    days = round((4 - quarter) * DAYS_PER_YEAR / 4)
    return end + timedelta(days=days)


def months_between(start: date, end: date) -> int:
    """Whole months of a duration from ``start`` to ``end`` (both inclusive, XBRL style)."""
    return max(1, round(((end - start).days + 1) / (DAYS_PER_YEAR / 12)))
