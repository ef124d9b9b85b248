"""The analyst's corrections of a reading at plan review: the choices each slot offers and
the reading with the slots chosen (``source='analyst'``). Pages draw the form
(``components.reading_form``); the plan is made again from the slots
(``core.app.run_session.corrected_plan``)."""

from __future__ import annotations

from collections.abc import Sequence

from core.foundation.types import DocumentMeta
from core.reading.kinds import KINDS
from core.reading.model import CompanyRef, MeasureRef, Reading

EDITABLE_KINDS = [k for k, d in KINDS.items() if d.editable]
TESTS = {"above": "above a threshold", "below": "below a threshold", "grew": "grew",
         "declined": "declined", "positive": "positive", "negative": "negative"}
LATEST = "each company's latest fiscal year"


def company_choices(documents: Sequence[DocumentMeta]) -> dict[str, CompanyRef]:
    """The corpus's companies by the name shown for them (with their filings): the
    canonical name, with the CIK when two filers share it (never one of them lost)."""
    from core.store.companies import companies, distinct_names

    groups = companies(list(documents))
    shown = distinct_names(groups)
    return {shown[g.key]: CompanyRef(name=g.name, cik=g.cik, doc_ids=list(g.doc_ids))
            for g in groups if g.name and g.name.lower() != "unknown"}


def refs_named(choices: dict[str, CompanyRef], name: str) -> list[CompanyRef]:
    """The filers ``company_choices`` shows under the registry name ``name``: one, or each
    filer that shares it."""
    return [ref for shown, ref in choices.items() if name in (shown, ref.name)]


def year_choices(documents: Sequence[DocumentMeta]) -> list[str]:
    """Fiscal years the annual reports loaded cover (newest first)."""
    years = {d.period for d in documents if (d.period or "").startswith("FY") and
             len(d.period) == 6}
    return sorted(years, reverse=True)


def edited_reading(reading: Reading, *, kind: str, companies: list[CompanyRef],
                   metric: str, period: str, direction: str, test: str | None,
                   threshold: float | None) -> Reading:
    """``reading`` with the analyst's slots (``source='analyst'``): a new measure drops the
    old segment, a period named applies to every company."""
    from core.metrics import get_metric

    old = reading.measures[0] if reading.measures else None
    entry = get_metric(metric)
    if old is not None and old.metric == metric:
        measure = old
    else:
        measure = MeasureRef(name=entry.label if entry else metric, metric=metric)
    kept = {c.name: c for c in reading.companies}
    refs = [kept.get(c.name, c).model_copy(update={"period": ""}) if period != LATEST else
            kept.get(c.name, c) for c in companies]
    return reading.model_copy(update={
        "kind": kind, "companies": refs, "measures": [measure],
        "periods": [] if period == LATEST else [period],
        "direction": direction if kind in ("compare", "rank", "difference",
                                           "growth_compare") else None,
        "test": test if kind in ("verdict", "trend") else None,
        "threshold": threshold if test in ("above", "below") else None,
        "source": "analyst", "plan_edited": False})


