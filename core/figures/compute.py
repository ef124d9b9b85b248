"""Looking up a figure's inputs among the corpus's facts and computing it.

``answer_figure(request, store)`` does both: every reference of the request's formula is
looked up (``core.figures.lookup`` ranks the facts); a looked-up metric with no fact but a
catalogue fallback ("gross profit = revenue - COGS") is computed from it; when one filing
holds every input of a computation across periods, all are read from it (the figures an
analyst sees side by side), otherwise each period from its own filing. ``compute`` then
evaluates the formula in the unit and rounding asked and writes the work.

``store`` is anything with ``facts(doc_ids=None, *, metric=None, fiscal_years=None,
concept=None, statement=None) -> list[Fact]`` (the corpus store; a fake in tests).
"""

from __future__ import annotations

import re

from core.figures.definitions import expand
from core.figures.differing import differing_note, millions_decimals, same_amount
from core.figures.formula import (
    FormulaError,
    Node,
    Ref,
    bind,
    evaluate,
    inputs,
    parse,
    render,
    with_member,
)
from core.figures.formula import substitute as substitute_refs
from core.figures.lookup import (
    _doc_rank,
    candidates,
    choose,
    doc_years,
    split_period,
    to_input,
)
from core.figures.model import FigureInput, FigureRequest, FigureResult, WorkRow
from core.figures.page_labels import with_page_labels
from core.figures.printed_row import quoted
from core.figures.quarters import own_quarters
from core.figures.segments import member_facts, member_input
from core.figures.units import (
    SCALE,
    amount,
    default_decimals,
    display,
    fits_unit,
    half_up,
    in_unit,
)
from core.figures.units import number as grouped
from core.foundation.types import Fact
from core.metrics import catalog


def _fetch(store, doc_ids: list[str] | None, years: set[int]) -> list[Fact]:
    """Facts of the years needed, and two after (to tell a period's own filing from later
    ones that restate it)."""
    wanted = sorted(years | {max(years) + 1, max(years) + 2})
    return list(store.facts(doc_ids or None, fiscal_years=wanted))


def _doc_names(store) -> dict[str, str]:
    try:
        return {d.doc_id: d.file_name for d in store.documents()}
    except (AttributeError, TypeError):
        return {}


def lookup(store, metric: str, period: str, doc_ids: list[str] | None = None, *,
           prefer: list[str] | None = None) -> FigureInput:
    """The best fact for ``metric`` in ``period`` among ``doc_ids`` (None: all filings)."""
    entry = catalog().get(metric)
    if entry is None or entry.derived:
        raise FormulaError(f"{metric!r} is not a looked-up metric of the catalogue.")
    facts = _fetch(store, doc_ids, {split_period(period)[0]})
    years = doc_years(facts)
    fact, alternatives = choose(entry, period, candidates(entry, period, facts),
                                prefer or [], years)
    found = to_input(entry, period, fact, alternatives, _doc_names(store), years, facts)
    return with_page_labels(store, [found])[0]


def _one_filing(refs: list[Ref], found: dict[Ref, list], years: dict[str, int]) -> str | None:
    """The filing holding every input, the latest period's own filing first."""
    docs: set[str] | None = None
    for ref in refs:
        have = {f.doc_id for _, f in found[ref]}
        docs = have if docs is None else docs & have
    if not docs:
        return None
    last = max(split_period(r.period)[0] for r in refs)
    latest = max(refs, key=lambda r: r.period)
    ends: dict[str, str] = {}
    for _, f in found[latest]:
        ends[f.doc_id] = max(f.end or "", ends.get(f.doc_id, ""))

    def rank(doc: str) -> tuple:  # ties: the filing whose latest figure ends last, then id
        return (_doc_rank(doc, last, [], years), _desc(ends.get(doc, "")), doc)

    return min(docs, key=rank)


def _desc(date: str) -> tuple[int, ...]:
    """A date string sorting last-first ('2023-09-30' before '2023-03-31')."""
    return tuple(-int(x) for x in re.findall(r"\d+", date))


def gather(request: FigureRequest, store) -> tuple[Node, list[FigureInput], list[str]]:
    """``(formula with fallbacks applied, inputs, notes)`` for ``request``."""
    cat = catalog()
    # A formula written with derived metrics ("fixed_asset_turnover[FY2019]", as an analyst
    # may edit it) is computed from the metrics they are made of.
    node = expand(parse(request.formula, known=cat.metrics), {})
    doc_ids = request.doc_ids or None
    notes: list[str] = []
    cache: dict[frozenset, list[Fact]] = {}
    extra: list[Ref] = []
    if request.aggregate == "value" and isinstance(node, Ref) and len(request.periods) > 1:
        # "What was X in 2023 and how did it change from 2022?": the earlier values beside.
        extra = [Ref(node.metric, p, node.member) for p in request.periods if p != node.period]
    node, extra = own_quarters(request, store, node, extra, notes)
    for _ in range(4):
        refs = inputs(node) + [r for r in extra if r not in inputs(node)]
        if not refs:
            return node, [], notes
        years = frozenset(split_period(r.period)[0] for r in refs)
        if years not in cache:
            cache[years] = _fetch(store, doc_ids, set(years))
        facts = cache[years]
        parts = {(r.member, r.metric): member_facts(facts, r.member, r.metric)
                 for r in refs if r.member}
        found = {r: candidates(cat.get(r.metric), r.period,
                               parts[r.member, r.metric][1] if r.member else facts)
                 for r in refs}
        swap = {r: cat.get(r.metric).fallback for r in refs
                if _fallback_fits(cat.get(r.metric).fallback, node) and (not found[r] or (
                    not r.member and _off_statement(cat.get(r.metric), r.period, found[r],
                                                    facts)))}
        if not swap:
            break
        for ref, text in swap.items():
            where = f" on the {cat.get(ref.metric).statement} statement" if found[ref] else ""
            how = "counted as 0" if _CONSTANT.match(text) else \
                f"computed as {_REF_T.sub(lambda m: _metric_label(m.group(1)), text)}"
            notes.append(f"{_ref_label(ref)} {ref.period} is not printed{where}: {how}.")
        node = substitute_refs(node, lambda r, s=swap: with_member(
            bind(parse(s[r]), r.period), r.member) if r in s else r)
    dyears = doc_years(facts)
    names = _doc_names(store)
    periods = {r.period for r in refs}
    single = _one_filing(refs, found, dyears) if len(periods) > 1 else None
    if single:
        notes.append(f"Every period read from one filing, {names.get(single, single)} "
                     "(figures as it reports them).")
    elif len(periods) > 1:
        notes.append("No single filing holds every period: each read from its own filing.")
    out = []
    for ref in refs:
        metric = cat.get(ref.metric)
        prefer = [single] if single else []
        member = parts[ref.member, ref.metric][0] if ref.member else None
        if ref.member and member is None:
            out.append(FigureInput(ref=str(ref), label=f"{_ref_label(ref)}, {ref.period}",
                                   metric=ref.metric, period=ref.period, unit=metric.unit,
                                   note=f"no {ref.member} in the filings loaded (no segment, "
                                   "product line or region of that name)"))
            continue
        if member is not None:
            out.append(member_input(ref.metric, ref.period, member, found[ref], facts,
                                    prefer, dyears, names, str(ref)))
            continue
        fact, alts = choose(metric, ref.period, found[ref], prefer, dyears)
        differ = [a for a in alts if fact is None or not same_amount(a, fact)]
        out.append(to_input(metric, ref.period, fact, differ, names, dyears, facts))
        notes += differing_note(metric.label, ref.period, fact, alts, metric.unit,
                                out[-1].value)
    if all(i.value is None for i in out):  # nothing read: no filing to speak of
        notes = [n for n in notes if not n.startswith("No single filing")]
    return node, with_page_labels(store, out), notes


_REF_T = re.compile(r"\b([a-z][a-z0-9_]*)\[t\]")


def _metric_label(key: str) -> str:
    metric = catalog().get(key)
    return metric.label if metric else key


_CONSTANT = re.compile(r"^\s*-?\d+(?:\.\d+)?\s*$")


def _fallback_fits(text: str | None, node: Node) -> bool:
    """Whether a fallback stands in here: a formula always; a constant ("0": the filer holds
    none) only inside a larger formula, never as the figure asked itself."""
    return bool(text) and not (_CONSTANT.match(text) and isinstance(node, Ref))


def _off_statement(metric, period: str, found: list, facts: list[Fact]) -> bool:
    """Whether a line is found only off its statement (a joint venture's "Gross margin" in a
    note) while the statement prints every line its fallback is computed from (the income
    statement's net sales and cost of sales): the statement's own lines are the figure."""
    if not metric.statement or any(f.statement == metric.statement or f.source == "xbrl"
                                   for _, f in found):
        return False
    cat = catalog()
    refs = inputs(bind(parse(metric.fallback), period))
    on_statement = lambda r: any(f.statement == metric.statement  # noqa: E731
                                 for _, f in candidates(cat.get(r.metric), r.period, facts))
    return bool(refs) and all(on_statement(r) for r in refs)


def _money_text(value: float) -> str:
    """An amount in USD millions as a work line prints it: '-52,535', '12.5' (half up)."""
    millions = value / 1e6
    return display(millions, "pure", millions_decimals(millions))


def _ref_label(ref: Ref) -> str:
    """'revenue', 'revenue (Digital Media)'."""
    label = catalog().get(ref.metric).label
    return f"{label} ({ref.member})" if ref.member else label


def work_text(node: Node, ins: list[FigureInput], result: str) -> str:
    """'revenue FY2019 / avg(net PP&E FY2018, net PP&E FY2019) = 6,489 / avg(253, 242)
    = 26.22' (amounts in USD millions)."""
    by_ref = {i.ref: i for i in ins}
    words = render(node, lambda r: f"{_ref_label(r)} {r.period}")

    def number(r: Ref) -> str:
        item = by_ref.get(str(r))
        if item is None or item.value is None:
            return "?"
        return _money_text(item.value) if item.unit not in {"shares", "USD/share", "percent",
                                                            "pure"} else grouped(item.value, 2)
    money = any(i.unit not in {"shares", "USD/share", "percent", "pure"} for i in ins)
    numbers = render(node, number) + (" (USD millions)" if money else "")
    if len(ins) == 1 and isinstance(node, Ref):
        return f"{words} = {result}"
    return f"{words} = {numbers} = {result}"


def _row(item: FigureInput) -> WorkRow:
    fact = item.fact
    source = ""
    if fact is not None:
        source = f"XBRL {fact.concept}" if fact.source == "xbrl" else \
            f"table row: {quoted(fact.row) if fact.row else fact.label}"
    member = re.search(r"\{([^{}]*)\}", item.ref)
    label = item.label.rsplit(", ", 1)[0] if member else catalog().get(item.metric).label
    return WorkRow(input=label[:1].upper() + label[1:], period=item.period,
                   value=amount(item.value, item.unit) if item.value is not None else
                   "missing", unit=item.unit, chunk_id=fact.chunk_id if fact else None,
                   page=fact.page if fact else None,
                   page_label=fact.page_label if fact else None, source=source)


def compute(request: FigureRequest, inputs_: list[FigureInput], *,
            node: Node | None = None, notes: list[str] | None = None) -> FigureResult:
    """The request's formula evaluated over ``inputs_`` (module docstring)."""
    node = node if node is not None else parse(request.formula)
    unit = request.unit or "USD millions"
    decimals = request.decimals if request.decimals is not None else 2
    notes = list(notes or [])
    own = fits_unit(node, unit)
    if own:
        notes.append(f"{request.name} cannot be stated in {unit}: stated in {own}.")
        unit, decimals = own, default_decimals(None, own)
    missing = [i.note for i in inputs_ if i.value is None] + _mixed_spans(inputs_)
    rows = [_row(i) for i in inputs_]
    result = FigureResult(request=request, unit=unit, inputs=inputs_, rows=rows,
                          missing=missing, notes=notes)
    if missing:
        return result
    try:
        base = evaluate(node, {i.ref: i.value for i in inputs_})
    except FormulaError as exc:
        result.missing.append(f"cannot compute {request.name}: {exc}")
        return result
    value = half_up(in_unit(base, unit), decimals)
    shown = display(value, unit, decimals)
    result.value, result.display = value, shown
    if isinstance(node, Ref):
        return result  # a figure looked up, not computed: its input row is the figure
    result.work = work_text(node, inputs_, shown)
    result.rows.append(WorkRow(input=request.name[:1].upper() + request.name[1:],
                               period=", ".join(request.periods), value=shown, unit=unit))
    if unit in SCALE and any(i.unit not in {"USD"} and i.unit.isalpha() and len(i.unit) == 3
                             for i in inputs_):
        result.notes.append("Some inputs are reported in another currency than USD.")
    return result


def _mixed_spans(ins: list[FigureInput]) -> list[str]:
    """Inputs of one period read over different spans (a quarter's pretax income beside a
    tax line the filing prints only year to date): they cannot be combined."""
    spans: dict[str, dict[int, str]] = {}
    for i in ins:
        if i.fact is not None and i.fact.period_type == "duration" and i.fact.months:
            spans.setdefault(i.period, {})[i.fact.months] = i.label
    return [f"cannot combine {', '.join(f'{label} ({m} months)' for m, label in sorted(s.items()))}"
            f" for {period}: the filings do not print them over the same span"
            for period, s in spans.items() if len(s) > 1]


def _no_statements(request: FigureRequest, store) -> list[str]:
    """Filings in scope that hold no facts at all (an 8-K, a press release)."""
    if not request.doc_ids:
        return []
    try:
        status = store.facts_status()
    except (AttributeError, TypeError):
        status = None
    names = _doc_names(store)
    empty = []
    for doc in request.doc_ids:
        count = status.get(doc) if status is not None else None
        if count is None:
            count = len(store.facts([doc]))
        if count == 0:
            empty.append(names.get(doc, doc))
    return empty


def _companies(store) -> list[str]:
    try:
        return sorted({d.company for d in store.documents()})
    except (AttributeError, TypeError):
        return []


def answer_figure(request: FigureRequest, store) -> FigureResult:
    """Look up every input of ``request`` in ``store``'s facts and compute it.

    With no filing in scope and filings of several companies loaded, nothing is looked
    up: one company's figures must not stand in for another's."""
    companies = _companies(store)
    if not request.doc_ids and len(companies) > 1:
        shown = ", ".join(companies[:4]) + (", ..." if len(companies) > 4 else "")
        return FigureResult(request=request, unit=request.unit or "", missing=[
            f"the question names no company whose filings are loaded ({len(companies)} "
            f"companies: {shown}); name the company"])
    node, ins, notes = gather(request, store)
    result = compute(request, ins, node=node, notes=notes)
    if not result.ok:
        result.no_statements = _no_statements(request, store)
        result.missing = _never_reported(request, ins, result.missing, store)
        damaged = _facts_damaged(request, store)
        if damaged:
            result.notes = [*result.notes, damaged]
    return result


def _facts_damaged(request: FigureRequest, store) -> str:
    """A figure not found where the store lost or cannot read facts of the filings in scope:
    the warning naming them and the repair (never a bare 'not in the filings loaded')."""
    registry = getattr(store, "registry", None)
    if registry is None:
        return ""
    from core.store.facts_table import gaps, gaps_line

    try:
        return gaps_line(gaps(registry, list(request.doc_ids) or None))
    except (AttributeError, TypeError):  # a stand-in store without the counts
        return ""


def _never_reported(request: FigureRequest, inputs_: list[FigureInput], missing: list[str],
                    store) -> list[str]:
    """A margin's line that the filings print for no period at all, though they print its
    statement, is a line the company does not report ("no operating income line"): said
    so, with what it means (a margin of it is no useful metric for the company as filed)."""
    if not request.doc_ids or not (request.metric or "").endswith("_margin"):
        return missing  # a margin of a line the filer never prints; nothing else
    out = list(missing)
    for item in inputs_:
        entry = catalog().get(item.metric) if item.metric else None
        if item.value is not None or entry is None or "{" in item.ref or \
                item.metric == "revenue":
            continue
        try:
            printed = [f for f in store.facts(request.doc_ids, metric=item.metric)
                       if not f.dims]
            statement = [f for f in store.facts(request.doc_ids, statement=entry.statement)
                         if not f.dims]
        except (AttributeError, TypeError):
            return missing
        if printed or not statement:  # printed somewhere, or no such statement at all
            continue
        label = catalog().get(item.metric).label if catalog().get(item.metric) else \
            item.metric
        who = request.companies[0] if request.companies else "the company"
        said = (f"{who}'s filings print no {label} line for any period: {request.name} is "
                f"not a measure it reports, so not a useful metric for it as filed")
        out = [said if m == item.note else m for m in out]
    return list(dict.fromkeys(out))
