"""The peer grid: the catalogue's metrics for several companies by fiscal year, each cell
the figure an answer would state, with where it came from.

    grid = peer_grid(store, metrics=["revenue", "net_margin"], years=3)
    grid.cell(company_key, "net_margin", "FY2024")   # PeerCell: value, display, sources
    grid.sources()                                  # one row per fact behind each cell

A cell is ``core.app.filing_figures.metric_line`` for the company's filings: the same
look-up an answer makes (``core.figures.compute.answer_figure``: the period's own filing
before a later one that restates it, XBRL before a table row, derived metrics computed
from the catalogue's formulas). A company is a filer (``core.store.companies``: one CIK),
all its filings together. A figure that cannot be found stays empty (``value`` None) and
says why (``reason``), never guessed. The grid holds plain values only, so a page can
cache it per corpus version (``corpus_stamp``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.app.filing_figures import _FactsOnce, metric_line
from core.figures.model import FigureResult
from core.figures.units import amount
from core.foundation.pages import label_for, page_ref
from core.foundation.types import DocumentMeta
from core.metrics import catalog
from core.store.companies import companies as filers
from core.store.companies import distinct_names

DEFAULT_METRICS = ("revenue", "revenue_growth", "gross_margin", "operating_margin",
                   "net_margin", "fcf")
"""A useful handful: size, growth, the three margins and free cash flow."""
DEFAULT_YEARS = 3
SKIPPED = {"ebit"}  # the same figure as operating income
HEADLINE = {"revenue", "net_income", "operating_cash_flow"}


@dataclass(frozen=True)
class CellSource:
    """One fact behind a cell: the input it stands for and where it is printed."""

    input: str
    value: str
    file_name: str
    page: int | None
    """The physical page (the PDF's, the cover counting)."""
    page_label: str | None
    """The page number the filing prints there, when known."""
    found_as: str
    """'XBRL us-gaap:Revenues' or 'table row'."""
    row: str
    chunk_id: str | None

    @property
    def where(self) -> str:
        """'p. 53' (as printed), 'PDF p. 54' (no printed number known) or ''."""
        return page_ref(self.page, self.page_label, short=True)

    @property
    def citation(self) -> str:
        return f"{self.file_name}{', ' + self.where if self.where else ''} · {self.found_as}"


@dataclass(frozen=True)
class PeerCell:
    """One company's metric for one fiscal year."""

    company: str
    metric: str
    period: str
    value: float | None = None
    unit: str = ""
    display: str = ""
    work: str = ""
    """The arithmetic of a derived metric ('1,577 / 26,974 = 5.8%'); '' for a look-up."""
    sources: tuple[CellSource, ...] = ()
    reason: str = ""
    """Why the cell is empty ('no FY2025 revenue in the filings loaded'); '' when found."""

    @property
    def citation(self) -> str:
        """The cell's source in one line: its fact, or its inputs' facts."""
        if self.value is None:
            return ""
        return "; ".join(s.citation for s in self.sources) or "no printed source"


@dataclass
class PeerGrid:
    """Metrics x companies x fiscal years (see the module docstring)."""

    companies: dict[str, str] = field(default_factory=dict)
    """Company key -> name, in the order the filers were added."""
    metrics: dict[str, str] = field(default_factory=dict)
    """Metric key -> label ('Net margin'), in the order asked."""
    units: dict[str, str] = field(default_factory=dict)
    """Metric key -> the unit its values are in ('USD millions', 'percent', 'ratio',
    'per share')."""
    periods: list[str] = field(default_factory=list)
    """Fiscal years shown, oldest first."""
    cells: dict[tuple[str, str, str], PeerCell] = field(default_factory=dict)

    def cell(self, company: str, metric: str, period: str) -> PeerCell | None:
        return self.cells.get((company, metric, period))

    @property
    def found(self) -> int:
        return sum(c.value is not None for c in self.cells.values())


def metric_choices() -> dict[str, str]:
    """Every catalogue metric a grid can show: key -> label (capitalised)."""
    return {m.key: _label(m.label) for m in catalog().metrics.values() if m.key not in SKIPPED}


def _label(text: str) -> str:
    return text[:1].upper() + text[1:]


def corpus_stamp(docs: list[DocumentMeta], generation: int | None = None) -> str:
    """Changes whenever a filing is added, removed, re-ingested or corrected."""
    return f"{generation}|" + "|".join(
        f"{d.doc_id}:{d.ingested_at}:{d.company}:{d.cik}:{d.period}:{d.form_type}"
        for d in docs)


def _years(facts) -> list[str]:
    """Full fiscal years in which the filings report a headline line for the whole entity
    (revenue, net income or operating cash flow): the years a peer grid can show, oldest
    first (a stray old date in a note does not make a year)."""
    return sorted({f"FY{f.fiscal_year}" for f in facts
                   if f.metric in HEADLINE and not f.dims and f.fiscal_year
                   and f.period_type == "duration" and f.fiscal_period == "FY"
                   and f.months in (12, None)})


def fiscal_years(store, company_keys: list[str] | None = None) -> list[str]:
    """The full fiscal years the companies' filings report (see ``_years``)."""
    ids = [i for c in filers(store.documents())
           if company_keys is None or c.key in company_keys for i in c.doc_ids]
    return _years(store.facts(ids)) if ids else []


def _sources(result: FigureResult, names: dict[str, str],
             pages: dict[str, tuple[int | None, str | None]]) -> tuple[CellSource, ...]:
    out = []
    for item in result.inputs:
        f = item.fact
        if f is None:
            continue
        first, label = pages.get(f.chunk_id or "", (None, None))
        out.append(CellSource(
            input=f"{_label(item.label)}", value=amount(f.value, f.unit),
            file_name=names.get(f.doc_id, f.doc_id), page=f.page,
            page_label=f.page_label or label_for(f.page, first, label),
            found_as=f"XBRL {f.concept}" if f.source == "xbrl" and f.concept else "table row",
            row=f.row, chunk_id=f.chunk_id))
    return tuple(out)


def _chunk_pages(store, results: list[FigureResult]) -> dict[str, tuple[int | None, str | None]]:
    """Each source chunk's first page and printed label, read in one call, so a figure's
    page is said as its passage's citation says it (``core.foundation.pages``)."""
    ids = sorted({i.fact.chunk_id for r in results for i in r.inputs
                  if i.fact is not None and i.fact.chunk_id and not i.fact.page_label})
    if not ids:
        return {}
    return {c.chunk_id: (c.page, c.page_label) for c in store.get_chunks(ids)}


def _reason(result: FigureResult, label: str, period: str) -> str:
    said = [*result.missing, *result.no_statements]
    if said:
        return "; ".join(dict.fromkeys(said))
    return f"no {label.lower()} for {period} in the filings loaded"


def peer_grid(store, *, metrics: list[str] | None = None, companies: list[str] | None = None,
              years: int | list[str] = DEFAULT_YEARS) -> PeerGrid:
    """The grid for ``companies`` (keys of ``core.store.companies``; None: every filer) and
    ``metrics`` (catalogue keys; None: ``DEFAULT_METRICS``). ``years``: how many of the
    latest fiscal years any of them reports, or the fiscal years themselves ('FY2024')."""
    cat = catalog()
    keys = [k for k in (metrics or DEFAULT_METRICS) if cat.get(k) is not None]
    docs = store.documents()
    names = {d.doc_id: d.file_name for d in docs}
    every = filers(docs)
    shown = distinct_names(every)  # two filers of one name: each with its CIK
    chosen = [c for c in every if companies is None or c.key in companies]
    grid = PeerGrid(companies={c.key: shown[c.key] for c in chosen},
                    metrics={k: _label(cat.get(k).label) for k in keys})
    if not chosen or not keys:
        return grid
    facts = _FactsOnce(store, [i for c in chosen for i in c.doc_ids])
    if isinstance(years, int):
        grid.periods = _years(facts.all)[-years:] if years > 0 else []
    else:
        grid.periods = sorted(years)
    results: dict[tuple[str, str, str], FigureResult] = {}
    for company in chosen:
        for key in keys:
            line = metric_line(facts, cat.get(key), grid.periods, list(company.doc_ids))
            for period in grid.periods:
                results[(company.key, key, period)] = line.cells[period]
    pages = _chunk_pages(store, [r for r in results.values() if r.value is not None])
    for (company, key, period), result in results.items():
        m, found = cat.get(key), result.value is not None
        if result.unit and (found or key not in grid.units):
            grid.units[key] = result.unit
        grid.cells[(company, key, period)] = PeerCell(
            company=company, metric=key, period=period, value=result.value,
            unit=result.unit, display=result.display if found else "",
            work=result.work if found and m.derived else "",
            sources=_sources(result, names, pages) if found else (),
            reason="" if found else _reason(result, m.label, period))
    return grid
