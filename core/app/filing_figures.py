"""A filing's or a company's figures, as the Library shows them: the catalogue's metrics by
fiscal period and its segments (products, regions) by period, each with its source.

    view = figures_of(store, doc_ids)   # FiguresView: periods, metric lines, segment lines

Every metric cell is the figure an answer would state: ``core.figures.compute.answer_figure``
with the same look-up rules (the period's own filing before a later one that restates it,
XBRL before a table cell, the metric's own statement first; derived metrics computed from
the catalogue's formulas), so its inputs carry the fact, chunk and page it came from. The
facts of the filings are read once (``_FactsOnce``) and every look-up filters them.

Segments: the facts of one business-segment, product/service or geography member (iXBRL
axes; a segment table's member columns), one per member, metric and period, chosen by the
same ranking. ``core.figures.segments.members`` (the dimension names as the filing prints
them) is used when it is there; until then members are named from their XBRL QName.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from core.figures.compute import answer_figure
from core.figures.lookup import candidates, doc_years, split_period, to_input
from core.figures.model import FigureInput, FigureRequest, FigureResult
from core.foundation.pages import label_for, page_ref
from core.foundation.types import Fact
from core.metrics import Metric, catalog

log = logging.getLogger(__name__)
GROUPS: dict[str, str] = {"income": "Income statement", "cash_flow": "Cash flows",
                          "balance": "Balance sheet", "derived": "Ratios and margins"}
ASKED_UNITS = {"percent", "ratio", "times", "days"}
"""Derived metrics' units stated as such; amounts keep the figures layer's natural unit."""
SKIPPED = {"ebit"}  # the same figure as operating income
SEGMENT_METRICS = ("revenue", "operating_income")
MAX_PERIODS = 4
_AXES = (("segment", re.compile(r"Segment", re.I)), ("product", re.compile(r"ProductOrService")),
         ("geography", re.compile(r"Geograph", re.I)), ("segment", re.compile(r"^column$")))
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


@dataclass
class MetricLine:
    """One catalogue metric across the periods shown."""

    key: str
    label: str
    group: str
    cells: dict[str, FigureResult] = field(default_factory=dict)
    """Period -> the figure as an answer states it (value None: not found)."""

    @property
    def found(self) -> int:
        return sum(r.value is not None for r in self.cells.values())


@dataclass
class SegmentLine:
    """One member of a dimension (a segment, product line or region) for one metric."""

    kind: str
    axis: str
    member: str
    name: str
    metric: str
    cells: dict[str, FigureInput] = field(default_factory=dict)


@dataclass
class FiguresView:
    """What the Library's figures panel shows for some filings."""

    doc_ids: list[str]
    periods: list[str] = field(default_factory=list)
    """Fiscal periods shown, oldest first."""
    lines: list[MetricLine] = field(default_factory=list)
    segments: list[SegmentLine] = field(default_factory=list)
    facts: int = 0
    chunk_pages: dict[str, tuple[int | None, str | None]] = field(default_factory=dict)
    """Chunk id -> (its first page, the page number the filing prints there)."""

    def group(self, group: str) -> list[MetricLine]:
        return [line for line in self.lines if line.group == group]

    def page_of(self, fact: Fact | None, *, short: bool = True) -> str:
        """Where ``fact`` is printed, as every view says it: 'p. 53' (the filing's own
        number), else 'PDF p. 54' (``core.foundation.pages.page_ref``)."""
        if fact is None or not fact.page:
            return ""
        if fact.page_label:
            return page_ref(fact.page, fact.page_label, short=short)
        first, label = self.chunk_pages.get(fact.chunk_id or "", (None, None))
        return page_ref(fact.page, label_for(fact.page, first, label), short=short)


class _FactsOnce:
    """The store's facts of some filings, read once and filtered for each look-up."""

    def __init__(self, store, doc_ids: list[str]):
        self._facts = list(store.facts(doc_ids or None))
        try:
            docs = store.documents()
        except (AttributeError, TypeError):
            docs = []
        self._docs = [d for d in docs if not doc_ids or d.doc_id in doc_ids]

    def facts(self, doc_ids=None, *, metric=None, fiscal_years=None, concept=None,
              statement=None) -> list[Fact]:
        years = set(fiscal_years) if fiscal_years else None
        return [f for f in self._facts
                if (doc_ids is None or f.doc_id in doc_ids)
                and (years is None or f.fiscal_year in years)
                and (metric is None or f.metric == metric)
                and (concept is None or f.concept == concept)
                and (statement is None or f.statement == statement)]

    def documents(self):
        return self._docs

    @property
    def all(self) -> list[Fact]:
        return self._facts


def periods_of(facts: Iterable[Fact], limit: int = MAX_PERIODS) -> list[str]:
    """The latest fiscal years the filings report for the whole entity ('FY2023'), oldest
    first; a filing set with no full year (10-Qs) gives its quarters ('FY2024-Q1')."""
    years, quarters = set(), set()
    for f in facts:
        if f.dims or not f.metric or f.period_type != "duration" or f.fiscal_year is None:
            continue
        if f.fiscal_period == "FY" and f.months in (12, None):
            years.add(f"FY{f.fiscal_year}")
        elif f.fiscal_period in ("Q1", "Q2", "Q3", "Q4") and f.months in (3, None):
            quarters.add(f"FY{f.fiscal_year}-{f.fiscal_period}")
    return sorted(years or quarters)[-limit:]


def _metrics() -> list[Metric]:
    return [m for m in catalog().metrics.values() if m.key not in SKIPPED]


def _group(m: Metric) -> str:
    return "derived" if m.derived else (m.statement if m.statement in GROUPS else "derived")


def metric_line(store, m: Metric, periods: list[str], doc_ids: list[str]) -> MetricLine:
    """One metric for each period, looked up (or computed) as an answer would."""
    unit = m.unit if m.derived and m.unit in ASKED_UNITS else None
    decimals = 0 if m.unit == "USD" else None  # amounts in whole millions, as printed
    line = MetricLine(key=m.key, label=m.label, group=_group(m))
    for period in periods:
        request = FigureRequest(name=m.label, metric=m.key, formula=f"{m.key}[{period}]",
                                periods=[period], unit=unit, decimals=decimals,
                                doc_ids=doc_ids)
        try:
            line.cells[period] = answer_figure(request, store)
        except (ValueError, ArithmeticError) as exc:  # a figures-layer edge: said, not hidden
            log.warning("figures of %s: %s %s: %s", doc_ids, m.key, period, exc)
            line.cells[period] = FigureResult(request=request, missing=[
                f"{m.label} for {period} could not be read ({exc})"])
    return line


def member_name(member: str) -> str:
    """A readable member name from its QName: 'nvda:DataCenterMember' -> 'Data Center',
    'country:US' -> 'US'; a table heading as printed."""
    local = member.split(":", 1)[-1]
    local = re.sub(r"(Segment)?Member$", "", local) or local
    return " ".join(_CAMEL.split(local)).replace(" And ", " and ").strip()


def _axis_kind(axis: str) -> str | None:
    return next((kind for kind, rx in _AXES if rx.search(axis)), None)


def _pick(found: list[tuple[int, Fact]], period: str, years: dict[str, int]) -> Fact | None:
    """A member's fact for ``period``: the best match, from the period's own filing (a later
    one restates it), XBRL before a table cell, a printed fact before a hidden one."""
    year = split_period(period)[0]

    def key(rf: tuple[int, Fact]) -> tuple:
        rank, f = rf
        own = years.get(f.doc_id)
        return (rank, 0 if own == year else 1 if own and own > year else 2, own or 0,
                f.source != "xbrl", f.chunk_id is None)

    return min(found, key=key)[1] if found else None


def _fallback_segments(facts: list[Fact], periods: list[str]) -> list[SegmentLine]:
    """Members of single-axis facts by (axis, member, metric), chosen per period."""
    cat, years = catalog(), doc_years(facts)
    groups: dict[tuple[str, str, str], list[Fact]] = {}
    for f in facts:
        if not f.dims or ";" in f.dims or f.metric not in SEGMENT_METRICS:
            continue
        axis, _, member = f.dims.partition("=")
        if _axis_kind(axis) is not None:
            groups.setdefault((axis, member, f.metric), []).append(f)
    out = []
    for (axis, member, metric), mine in groups.items():
        entry = cat.get(metric)
        line = SegmentLine(kind=_axis_kind(axis) or "other", axis=axis, member=member,
                           name=member_name(member), metric=metric)
        for period in periods:
            fact = _pick(candidates(entry, period, mine), period, years)
            if fact is not None:
                line.cells[period] = to_input(entry, period, fact, [], {}, years, mine)
        if line.cells:
            out.append(line)
    return out


def _named_segments(members_fn, store, doc_ids: list[str],
                    periods: list[str]) -> list[SegmentLine]:
    """Segment lines from ``core.figures.segments.members`` (helper B's contract):
    ``members(store, doc_ids, metric, period) -> [(Member, FigureInput)]``."""
    lines: dict[tuple[str, str, str], SegmentLine] = {}
    for metric in SEGMENT_METRICS:
        for period in periods:
            for member, item in members_fn(store, doc_ids, metric, period):
                key = (member.axis, member.member, metric)
                line = lines.setdefault(key, SegmentLine(
                    kind=member.kind, axis=member.axis, member=member.member,
                    name=member.name or member_name(member.member), metric=metric))
                if item.value is not None:
                    line.cells[period] = item
    return [line for line in lines.values() if line.cells]


def segments_of(store, doc_ids: list[str], periods: list[str]) -> list[SegmentLine]:
    """Every member's revenue and operating income by period (see the module docstring)."""
    try:
        from core.figures.segments import members
    except ImportError:
        members = None
    if members is not None:
        return _named_segments(members, store, doc_ids, periods)
    return _fallback_segments(store.all if isinstance(store, _FactsOnce)
                              else list(store.facts(doc_ids or None)), periods)


def figures_of(store, doc_ids: list[str], *, periods: list[str] | None = None
               ) -> FiguresView:
    """The figures of ``doc_ids`` (one filing, or a company's filings): every catalogue
    metric with a figure in some period, and the segments (see the module docstring)."""
    facts = _FactsOnce(store, doc_ids)
    view = FiguresView(doc_ids=list(doc_ids), facts=len(facts.all))
    view.periods = periods or periods_of(facts.all)
    if not view.periods:
        return view
    for m in _metrics():
        line = metric_line(facts, m, view.periods, list(doc_ids))
        if line.found:
            view.lines.append(line)
    view.segments = segments_of(facts, list(doc_ids), view.periods)
    view.chunk_pages = _chunk_pages(store, view)
    return view


def _chunk_pages(store, view: FiguresView) -> dict[str, tuple[int | None, str | None]]:
    """The pages and printed page numbers of the chunks the view's facts were read from."""
    ids = {i.fact.chunk_id for line in view.lines for r in line.cells.values()
           for i in r.inputs if i.fact is not None and i.fact.chunk_id}
    ids |= {c.fact.chunk_id for line in view.segments for c in line.cells.values()
            if c.fact is not None and c.fact.chunk_id}
    get = getattr(store, "get_chunks", None)
    if not ids or get is None:
        return {}
    return {c.chunk_id: (c.page, c.page_label) for c in get(sorted(ids))}
