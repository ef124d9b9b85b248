"""Figures, readings and analyses: the bodies of ``figure``, ``read_question``, ``analyze``,
``compare``, ``rank`` and ``verdict``.

Nothing is looked up or combined here. A question is read by ``core.reading.read_plans``
(the reading the agent makes of it) and answered by ``core.figures.compute.answer_figure``
and ``core.analysis.combine.answer_analysis``; the typed forms fill a ``Reading``'s slots
and plan it with ``core.reading.requests`` (what a reading corrected at plan review runs).
A figure the filings do not hold comes back not found, with why, never estimated.
"""

from __future__ import annotations

from core.mcp.citations import Citer
from core.mcp.errors import InputError, unknown_period
from core.mcp.figure_out import analysis_out, figure_out, reading_out, single_figure
from core.mcp.models import AnalyzeOut, Call, FigureAnswer, ReadingOut
from core.mcp.names import parse_period, resolve_company, resolve_metric
from core.reading.model import CompanyRef, MeasureRef, Reading

TESTS = ("positive", "negative", "grew", "declined", "above", "below")


def _company(service, words: str, docs) -> CompanyRef:
    from core.analysis.subjects import short_name

    filer = resolve_company(words, docs)
    return CompanyRef(name=filer.name, words=short_name(filer.name), cik=filer.cik,
                      doc_ids=list(filer.doc_ids))


def _period(service, company: CompanyRef, period: str | None, docs) -> str:
    """The period asked (checked against the company's facts), else its latest fiscal
    year."""
    from core.analysis.subjects import latest_annual

    asked = parse_period(period)
    periods = service.periods(company.doc_ids)
    if asked is None:
        asked = latest_annual(company.doc_ids, docs)
        if not asked:
            raise InputError(f"{company.name} has no annual report loaded: give a period "
                             f"(periods with figures: {', '.join(periods) or 'none'}).")
    elif asked not in periods:
        raise unknown_period(asked, company.name, periods)
    return asked


def _segment(service, company: CompanyRef, words: str) -> str:
    """The segment, product line or region ``words`` name among the company's members."""
    from core.figures.segments import match_member
    from core.figures.segments_asked import members_in_scope

    members = [m for m, _ in members_in_scope(service.facts, company.doc_ids)]
    found = match_member(words, members)
    if found is None:
        names = list(dict.fromkeys(m.name for m in members))
        raise InputError(f"{company.name} reports no segment, product line or region "
                         f"{words!r}; it reports: {', '.join(names[:30]) or 'none'}.")
    return found.name


def figure_of(service, company: str, metric: str, period: str | None = None,
              segment: str | None = None) -> FigureAnswer:
    """One company's catalogue metric for one period, looked up or computed, cited."""
    from core.figures.compute import answer_figure
    from core.reading.requests import request_for

    docs = service.documents()
    ref = _company(service, company, docs)
    entry = resolve_metric(metric)
    asked = _period(service, ref, period, docs)
    member = _segment(service, ref, segment) if segment and segment.strip() else None
    request = request_for(MeasureRef(name=entry.label, metric=entry.key, member=member),
                          asked, ref)
    if request is None:
        raise InputError(f"{entry.label} cannot be asked for {asked}: ask for a fiscal year "
                         "or quarter (FY2024, FY2024-Q1).")
    citer = Citer(service)
    out = figure_out(answer_figure(request, service.facts), citer,
                     {d.doc_id: d for d in docs})
    return FigureAnswer(**out.model_dump(), citations=citer.citations())


def _read(service, question: str):
    from core.foundation.errors import require_question
    from core.reading.read import read_plans

    text = require_question(question)
    return read_plans(text, service.documents(), service.facts, embedder=service.embedder)


def _typed_metric(metric: str | None, aggregate: str) -> str | None:
    """The catalogue metric a figure request asks as ``figure`` asks it: the metric itself,
    or its growth metric for a percentage change; None for what ``figure`` cannot ask (a
    change in amount or in points, an average)."""
    from core.metrics import get_metric

    if aggregate in ("value", "formula"):
        return metric
    grows = get_metric(f"{metric}_growth") if metric and aggregate == "pct_change" else None
    return grows.key if grows is not None else None


def _handle(name: str, doc_ids: list[str], documents) -> str:
    """How a typed call names a company: its name, or its CIK when another filer of the
    corpus has the same name."""
    from core.store.companies import companies

    groups = companies(documents)
    if sum(g.name == name for g in groups) < 2:
        return name
    mine = next((g for g in groups if g.name == name and set(doc_ids) <= set(g.doc_ids)),
                None)
    return mine.cik if mine is not None and mine.cik else name


def _base_of_growth(metric: str) -> str | None:
    """'revenue' for the catalogue's 'revenue_growth' (None for another metric)."""
    from core.metrics import get_metric

    base = metric.removesuffix("_growth")
    return base if base != metric and get_metric(base) is not None else None


def call_of(reading: Reading, plans: list, request, documents) -> Call | None:
    """The typed tool call that asks what the reading asks, when one can."""
    if request is not None and len(request.companies) == 1 and \
            request.formula_source != "question":
        metric = _typed_metric(request.metric, request.aggregate)
        if metric is None:
            return None
        args = {"company": _handle(request.companies[0], request.doc_ids, documents),
                "metric": metric, "period": request.periods[-1] if request.periods else None}
        if request.member:
            args["segment"] = request.member
        return Call(tool="figure", arguments=args)
    if len(plans) != 1 or not reading.measures or not reading.measures[0].metric:
        return None
    metric = reading.measures[0].metric
    names = [_handle(c.name, c.doc_ids, documents) for c in reading.companies]
    period = reading.periods[-1] if reading.periods else None
    if reading.kind == "compare" and len(names) >= 2 and not reading.measures[0].member:
        return Call(tool="compare", arguments={"companies": names, "metric": metric,
                                               "period": period,
                                               "direction": reading.direction or "higher"})
    if reading.kind == "rank" and not reading.measures[0].member:
        return Call(tool="rank", arguments={"metric": metric, "companies": names,
                                            "period": period,
                                            "direction": reading.direction or "higher"})
    if reading.kind == "verdict" and len(names) == 1 and reading.test in TESTS:
        if reading.test in ("grew", "declined"):  # the test itself compares the years
            metric = _base_of_growth(metric) or metric
        return Call(tool="verdict", arguments={
            "company": names[0], "metric": metric, "test": reading.test,
            "threshold": reading.threshold, "period": period})
    return None


def read_of(service, question: str) -> ReadingOut:
    """How ``question`` is read (companies, measures, periods, kind), nothing looked up."""
    reading, plans, request = _read(service, question)
    return reading_out(reading, call_of(reading, plans, request, service.documents()))


def analyze_of(service, question: str) -> AnalyzeOut:
    """``question`` read, then answered from the figures: the verdict, the table, the
    work, every figure cited. A question figures do not answer is refused, said how."""
    from core.analysis.combine import answer_analysis
    from core.figures.compute import answer_figure

    reading, plans, request = _read(service, question)
    if not plans and request is None:
        said = reading.not_answered() or (f"nearest catalogue measures: "
                                          f"{', '.join(reading.nearest)}" if reading.nearest
                                          else "")
        raise InputError("The question was read as a text question, not one figures answer"
                         + (f" ({said})" if said else "") + ". Call ask for a cited answer "
                         "from the filings' text, or name a company and a catalogue metric "
                         "(read_question shows how it was read).")
    docs = {d.doc_id: d for d in service.documents()}
    citer = Citer(service)
    if request is not None:
        results = [single_figure(answer_figure(request, service.facts), citer, docs)]
    else:
        results = [analysis_out(answer_analysis(p, service.facts), citer, docs)
                   for p in plans]
    return AnalyzeOut(reading=reading_out(reading, call_of(reading, plans, request,
                                                           list(docs.values()))),
                      results=results, citations=citer.citations())


def _planned(service, reading: Reading) -> AnalyzeOut:
    """A reading made from a typed form's slots, planned and answered."""
    from core.analysis.combine import answer_analysis
    from core.analysis.question import AnalysisPlan
    from core.reading.requests import asked, plan_from_reading

    reading.question = reading.text = asked(reading)
    docs = service.documents()
    plan = plan_from_reading(reading, docs)
    if not isinstance(plan, AnalysisPlan):
        raise InputError(f"This cannot be planned from figures ({reading.summary()}): check "
                         "the metric is one the catalogue looks up or computes.")
    citer = Citer(service)
    result = analysis_out(answer_analysis(plan, service.facts), citer,
                          {d.doc_id: d for d in docs})
    return AnalyzeOut(reading=reading_out(reading), results=[result],
                      citations=citer.citations())


def _slots(service, companies: list[str], metric: str, period: str | None):
    docs = service.documents()
    refs = []
    for words in companies:
        ref = _company(service, words, docs)
        if all(r.name != ref.name for r in refs):
            refs.append(ref)
    entry = resolve_metric(metric)
    asked = parse_period(period)
    for ref in refs:
        ref.period = _period(service, ref, asked, docs)
    return refs, MeasureRef(name=entry.label, metric=entry.key), [asked] if asked else []


def compare_of(service, companies: list[str], metric: str, period: str | None = None,
               direction: str = "higher") -> AnalyzeOut:
    """Which company has the higher (or lower) metric."""
    if len(companies) < 2:
        raise InputError("compare needs two companies or more (figure answers one).")
    refs, measure, periods = _slots(service, companies, metric, period)
    if len(refs) < 2:
        raise InputError(f"Those names are one company ({refs[0].name}): give two or more.")
    return _planned(service, Reading(question="", kind="compare",
                                     companies=refs, measures=[measure], periods=periods,
                                     direction=direction))


def rank_of(service, metric: str, companies: list[str] | None = None,
            period: str | None = None, direction: str = "higher") -> AnalyzeOut:
    """The companies ranked by a metric (every company with facts when none is named, each
    by its CIK: two filers may share a name)."""
    from core.store.companies import companies as filers

    if not companies:
        counts = service.facts.facts_status()
        companies = [g.cik or g.name for g in filers(service.documents())
                     if g.name != "unknown" and any(counts.get(i) for i in g.doc_ids)]
        if len(companies) < 2:
            raise InputError(f"rank needs two companies with figures; loaded: "
                             f"{', '.join(companies) or 'none'}.")
    refs, measure, periods = _slots(service, companies, metric, period)
    return _planned(service, Reading(question="", kind="rank",
                                     companies=refs, measures=[measure], periods=periods,
                                     direction=direction))


def verdict_of(service, company: str, metric: str, test: str,
               threshold: float | None = None, period: str | None = None) -> AnalyzeOut:
    """Yes or No, decided by the company's figure: its sign, its change over the year
    before, or a threshold."""
    if test in ("above", "below") and threshold is None:
        raise InputError(f"test {test!r} needs a threshold, in the metric's unit (20 for "
                         "20%, 1000 for $1,000 million).")
    base = _base_of_growth(resolve_metric(metric).key)
    if test in ("grew", "declined") and base is not None:
        raise InputError(f"test {test!r} compares the metric with the year before: pass "
                         f"{base!r} itself, or test 'positive' / 'negative' on {metric!r}.")
    refs, measure, periods = _slots(service, [company], metric, period)
    return _planned(service, Reading(question="", kind="verdict",
                                     companies=refs, measures=[measure], periods=periods,
                                     test=test, threshold=threshold if test in (
                                         "above", "below") else None))
