"""Several analyses from one question: one per measure and per fiscal year asked of several
companies.

"Compare A and B on operating and net margins" is one comparison per measure, in the order
named; "Which had the higher operating margin in FY2024 and FY2023, A or B?" one per fiscal
year, each year answered or said missing on its own ("no FY1990 operating income in the
filings loaded"), never one year answered and the other dropped. The reading lists every
measure; each plan is made from the reading's slots (``core.reading.requests``).
"""

from __future__ import annotations

import re

from core.analysis.plan import AnalysisPlan
from core.analysis.rows import period_words
from core.foundation.types import DocumentMeta
from core.reading.model import MeasureRef, Reading

_FY = re.compile(r"FY\d{4}")
_CHANGE_TESTS = ("grew", "declined", "improving", "worsening", "stable")
_ONE_YEAR_TESTS = ("above", "below", "positive", "negative")
"""Tests one company's figure in one year: each fiscal year named is tested on its own."""


def more_plans(reading: Reading, plan: AnalysisPlan, documents: list[DocumentMeta]
               ) -> list[AnalysisPlan]:
    """The analyses besides ``plan`` the question asks of several companies: one per other
    measure, then one per other fiscal year for each measure (``reading.measures`` gains
    the other measures)."""
    from core.reading.requests import plan_from_reading

    if len(plan.subjects) < 2 and not (plan.spec.kind == "verdict" and
                                       plan.spec.test in _ONE_YEAR_TESTS):
        return []
    plans: list[AnalysisPlan] = []
    asked = reading.measures[:1]
    extra = _more_measures(reading.text, plan) if plan.spec.kind in ("compare", "rank") \
        else []
    for measure in extra if len(plan.subjects) > 1 else []:
        again = plan_from_reading(reading.model_copy(update={"measures": [measure]}),
                                  documents)
        if isinstance(again, AnalysisPlan):
            again.spec.absent = list(plan.spec.absent)
            plans.append(again)
            reading.measures.append(measure)
            asked.append(measure)
    for year in _more_years(reading.text, plan):
        companies = [c.model_copy(update={"period": year}) for c in reading.companies]
        for measure in asked:
            again = plan_from_reading(reading.model_copy(update={
                "measures": [measure], "companies": companies, "periods": [year]}),
                documents)
            if isinstance(again, AnalysisPlan):  # said with its year: its own analysis
                again.spec.absent = list(plan.spec.absent)
                again.spec.reading = (f"{period_words(year)[:1].upper()}"
                                      f"{period_words(year)[1:]}: another fiscal year the "
                                      "question names, answered on its own.")
                plans.append(again)
    return plans


def _more_measures(text: str, plan: AnalysisPlan) -> list[MeasureRef]:
    """Catalogue measures the question names besides the plan's, in order."""
    from core.analysis.measures import measures, unique
    from core.figures.phrases import Names
    from core.metrics import get_metric

    first = plan.requests[0].metric if plan.requests else None
    found = unique(measures(text, Names()))
    out = []
    for key, _, _, _ in found:
        entry = get_metric(key)
        if entry is None or key == first or entry.unit not in ("percent", "USD", "ratio"):
            continue
        out.append(MeasureRef(name=entry.label, metric=key))
    return out if first in {k for k, _, _, _ in found} else []


def _more_years(text: str, plan: AnalysisPlan) -> list[str]:
    """The fiscal years the question names for every company besides the one the plan
    reads, in the order written ("in FY2024 and FY1990": FY1990); [] when a company has a
    year of its own, a quarter is named, or the years bound a change ("grew from 2022 to
    2024")."""
    from core.figures.asked import periods_asked

    spec = plan.spec
    named = periods_asked(text)
    years = [p for p in named if _FY.fullmatch(p)]
    shared = {s.period for s in plan.subjects}
    if len(years) < 2 or len(years) != len(named) or len(shared) != 1 or \
            spec.kind not in ("compare", "rank", "verdict", "multi") or \
            spec.test in _CHANGE_TESTS or spec.name.endswith("growth"):
        return []
    (current,) = shared
    if current not in years:
        return []
    return sorted((y for y in years if y != current), key=lambda y: _written_at(text, y))


def _written_at(text: str, year: str) -> int:
    """Where the question writes ``year`` ('FY1990', 'fiscal 1990', '1990')."""
    at = text.find(year[2:])
    return at if at >= 0 else len(text)
