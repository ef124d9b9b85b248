"""Figure requests and analysis plans built from a reading's slots, with no sentence between.

When the analyst corrects the reading at plan review (another company, measure, period or
kind), the plan is made again from the slots: ``request_for`` builds the ``FigureRequest``
of one company's measure in one period (the catalogue's formula expanded, its unit and
rounding), and ``plan_from_reading`` the figure requests and the ``AnalysisSpec`` the kind
asks for. None when the slots do not make an answerable reading (no measure, no company).
"""

from __future__ import annotations

from core.analysis.plan import AnalysisPlan
from core.analysis.plan import figure_question as _figure_question
from core.analysis.subjects import Subject, latest_annual, short_name
from core.figures.model import FigureRequest
from core.foundation.types import DocumentMeta
from core.reading.kinds import KINDS
from core.reading.model import CompanyRef, MeasureRef, Reading

_PLAN_KINDS = {k: d.analysis for k, d in KINDS.items() if d.analysis and d.editable}


def request_for(measure: MeasureRef, period: str, company: CompanyRef, *,
                change: bool = False, share: bool = False) -> FigureRequest | None:
    """One company's ``measure`` in ``period`` (its growth over the year before with
    ``change``; a member's share of the total with ``share``); None for a measure the
    catalogue does not know."""
    from core.figures.asked import assemble
    from core.figures.definitions import expand
    from core.figures.formula import BinOp, FormulaError, Ref, render
    from core.figures.units import default_decimals, natural_unit
    from core.metrics import get_metric

    entry = get_metric(measure.metric or "")
    if entry is None or not period.startswith("FY"):
        return None
    grows = get_metric(f"{entry.key}_growth") if change and not share else None
    if grows is not None:  # "revenue growth": the catalogue's own growth metric
        entry, change = grows, False
        measure = measure.model_copy(update={"name": f"{measure.name} growth"})
    node = Ref(entry.key, "t", measure.member)
    name = measure.name
    if share and measure.member:
        node, name = BinOp("/", node, Ref(entry.key, "t")), f"{measure.member} share of {name}"
    aggregate, periods = "value", [period]
    if change:
        year = int(period[2:6])
        periods = [f"FY{year - 1}{period[6:]}", period]
        aggregate = "change" if natural_unit(node, "value", False) == "percent" else \
            "pct_change"
        name = f"{name} growth"  # no catalogue metric of its own: named, checked by name
    used: set[str] = set()
    try:
        formula = expand(assemble(node, aggregate, periods), {}, used)
    except FormulaError:
        return None
    unit = natural_unit(node, aggregate, share)
    derived = aggregate != "value" or not isinstance(formula, Ref)
    return FigureRequest(
        name=name, metric=None if change else entry.key, formula=render(formula),
        formula_source="catalogue" if used else "lookup", periods=periods,
        aggregate=aggregate if aggregate != "value" else ("formula" if derived else "value"),
        unit=unit, decimals=default_decimals(entry.key, unit), companies=[company.name],
        doc_ids=list(company.doc_ids), member=measure.member)


def _period(company: CompanyRef, reading: Reading, documents: list[DocumentMeta]) -> str:
    named = [p for p in reading.periods if p.startswith("FY")]
    return company.period or (named[-1] if named else "") or \
        latest_annual(company.doc_ids, documents)


def plan_from_reading(reading: Reading, documents: list[DocumentMeta]
                      ) -> AnalysisPlan | FigureRequest | None:
    """The plan (or, for one figure, the request) the reading's slots ask for."""
    from core.analysis.model import AnalysisSpec

    if not reading.measures or not reading.companies:
        return None
    measure, companies = reading.measures[0], reading.companies
    kind = reading.kind
    if kind in ("figure", "share") or (kind == "figures" and len(companies) == 1
                                       and len(reading.measures) == 1):
        return request_for(measure, _period(companies[0], reading, documents), companies[0],
                           share=kind == "share")
    if kind not in _PLAN_KINDS:
        return None
    spec = AnalysisSpec(kind=_PLAN_KINDS[kind], name=measure.name,
                        direction=reading.direction or "higher",
                        difference=kind == "difference", test=reading.test,
                        threshold=reading.threshold, each=kind == "trend")
    subjects = [Subject(c.words or short_name(c.name), c.name, list(c.doc_ids),
                        _period(c, reading, documents)) for c in companies]
    plan = AnalysisPlan(spec=spec, subjects=subjects)
    if kind == "trend":
        return _trend(plan, reading, documents)
    if kind == "figures" and len(companies) == 1:
        subject = companies[0]
        pairs = [(m, subject) for m in reading.measures]
        spec.name = " and ".join(m.name for m in reading.measures)
        spec.labels = [m.name for m in reading.measures]
    else:
        pairs = [(measure, c) for c in companies]
        spec.labels = [s.words for s in subjects]
    change = kind == "growth_compare" or (kind in ("verdict", "figures") and reading.test in (
        "grew", "declined"))
    if change:
        spec.name = f"{measure.name} growth"
    for (m, c), s in zip(pairs, subjects * len(pairs) if len(subjects) == 1 else subjects,
                         strict=False):
        request = request_for(m, s.period, c, change=change)
        if request is None:
            return None
        plan.requests.append(request)
        plan.questions.append(_figure_question(s, m.name if kind == "figures" else
                                               request.name, s.period))
    return plan


def _trend(plan: AnalysisPlan, reading: Reading, documents) -> AnalysisPlan | None:
    """Every year of a trend: the measure in each fiscal year asked (the latest three when
    none are named), each step tested."""
    subject, company = plan.subjects[0], reading.companies[0]
    years = sorted(p for p in reading.periods if len(p) == 6 and p.startswith("FY"))
    if len(years) < 2:
        last = int(subject.period[2:6]) if subject.period.startswith("FY") else None
        if last is None:
            return None
        years = [f"FY{y}" for y in range(last - 2, last + 1)]
    plan.spec.test = reading.test if reading.test in ("improving", "worsening") else \
        "worsening" if reading.test == "declined" else "improving"
    plan.spec.labels = years
    for year in years:
        request = request_for(reading.measures[0], year, company)
        if request is None:
            return None
        plan.requests.append(request)
        plan.questions.append(_figure_question(subject, request.name, year))
    return plan


def _names(reading: Reading, conj: str = "or") -> str:
    from core.analysis.subjects import short_name

    names = [c.words or short_name(c.name) for c in reading.companies]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {conj} {names[-1]}"


def asked(reading: Reading) -> str:
    """The question the slots ask, in plain words (the analyze step's text once the analyst
    has corrected the reading).

    >>> from core.reading.model import CompanyRef, MeasureRef
    >>> asked(Reading(question="q", kind="difference", measures=[MeasureRef(
    ...     name="net margin")], companies=[CompanyRef(name="Acme Corp", words="Acme"),
    ...     CompanyRef(name="Birch Inc.", words="Birch")]))
    'By how much did the net margin of Acme and Birch differ?'
    """
    m = " and ".join(x.name for x in reading.measures) or "the measure"
    when = f" in {reading.periods[-1]}" if reading.periods else ""
    first = "lowest" if reading.direction == "lower" else "highest"
    text = {
        "compare": f"Which had the {reading.direction or 'higher'} {m}{when}, "
                   f"{_names(reading)}?",
        "difference": f"By how much did the {m} of {_names(reading, 'and')} differ{when}?",
        "rank": f"Rank {_names(reading, 'and')} by {m}{when}, {first} first.",
        "growth_compare": f"Whose {m} grew faster{when}, {_names(reading)}?",
        "trend": f"Did the {m} of {_names(reading)} "
                 f"{'fall' if reading.test in ('declined', 'worsening') else 'rise'} every "
                 "year?",
        "figures": f"What was the {m} of {_names(reading, 'and')}{when}?",
        "figure": f"What was the {m} of {_names(reading)}{when}?",
    }.get(reading.kind)
    if reading.kind == "verdict":
        what = f"{reading.test} {reading.threshold:g}" if reading.threshold is not None \
            else reading.test or "positive"
        text = f"Was the {m} of {_names(reading)}{when} {what}?"
    return text or reading.question
