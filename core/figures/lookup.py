"""Finding the fact for one input: a metric for one period, among the corpus's facts.

A fact is a candidate when it is tagged with the metric, carries one of its XBRL concepts,
or its printed line matches one of its line-item patterns (facts extracted before the
catalogue knew a line still count), and its period is the one asked: a full-year duration
for a flow metric in "FY2019", the fiscal year-end balance for an instant one, the quarter
for "FY2024-Q1"; a dimensional fact (a segment's, a product line's) is no candidate for the
entity's figure (``core.figures.segments`` looks up a member's among its own). Candidates
are ranked:

1. the metric's own statement before a note or MD&A table, before another statement;
2. the best concept or line-item pattern ("Property, plant and equipment - net" before the
   gross line);
3. the filing wanted: the one covering every period of a computation when there is one,
   else the period's own filing (a later one restates comparatives), else the nearest
   later one;
4. XBRL before a table fact of the same value (exact, and linked to its chunk), a fact
   with a chunk before a hidden one; among equals, the value most facts agree on; a table
   cell that no tag of its iXBRL filing prints (a column misread) gives way to the
   filing's tagged fact of the metric for that period.

Other candidates whose value differs are kept as ``alternatives``, shown beside the one
used.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from core.figures.model import FigureInput
from core.figures.units import amount
from core.foundation.types import Fact
from core.metrics import Metric, allowed, catalog


def split_period(period: str) -> tuple[int, int | None]:
    """'FY2019' -> (2019, None); 'FY2024-Q1' -> (2024, 1)."""
    year = int(period[2:6])
    return year, int(period[-1]) if "-Q" in period else None


def period_matches(metric: Metric, fact: Fact, year: int, quarter: int | None) -> bool:
    if fact.fiscal_year != year:
        return False
    if metric.kind == "instant":
        if fact.period_type != "instant":
            return False
        return quarter is None or fact.fiscal_period in ("", f"Q{quarter}")
    if fact.period_type != "duration":
        return False
    if quarter is not None:
        return fact.fiscal_period == f"Q{quarter}" and fact.months in (3, None)
    return fact.fiscal_period == "FY" and fact.months in (12, None)


def match_rank(metric: Metric, fact: Fact) -> int | None:
    """How well ``fact`` reports ``metric`` (0 best), or None when it does not."""
    cat = catalog()
    if not allowed(metric, fact.statement, fact.unit):
        return None
    ranks = [r for r in (cat.concept_rank(metric.key, fact.concept),
                         cat.label_rank(metric.key, fact.label, fact.statement, fact.unit))
             if r is not None]
    if ranks:
        return min(ranks)
    return len(metric.line_items) if fact.metric == metric.key else None


def doc_years(facts: Iterable[Fact]) -> dict[str, int]:
    """Each filing's own fiscal year: the latest year it reports."""
    out: dict[str, int] = {}
    for f in facts:
        if f.fiscal_year is not None:
            out[f.doc_id] = max(out.get(f.doc_id, f.fiscal_year), f.fiscal_year)
    return out


_YTD = {2: "H1", 3: "9M"}
_YTD_QUARTER = {"H1": 2, "9M": 3}


def year_to_date(fact: Fact, year: int, quarter: int) -> bool:
    """A year-to-date duration ending with ``quarter`` (10-Q cash flows: six or nine
    months, not the quarter alone)."""
    return (fact.fiscal_year == year and fact.period_type == "duration" and quarter in _YTD
            and (fact.fiscal_period == _YTD.get(quarter) or fact.months == 3 * quarter))


def candidates(metric: Metric, period: str, facts: Iterable[Fact]) -> list[tuple[int, Fact]]:
    """``[(match rank, fact)]`` reporting ``metric`` for ``period``. A flow with no figure
    for the quarter alone falls back to the year to date (said in the input's note)."""
    year, quarter = split_period(period)
    facts = list(facts)
    ytd = _YTD_QUARTER.get(period[7:])
    if ytd and metric.kind != "instant":  # "FY2024-H1": six months to date, never a quarter
        return [(r, f) for f in facts if year_to_date(f, year, ytd) and not f.dims
                and (r := match_rank(metric, f)) is not None]
    quarter = quarter or ytd  # a balance at the end of the first half: its Q2 date
    facts = [f for f in facts if not f.dims]  # a part's figure never stands for the whole
    out = []
    for f in facts:
        if not period_matches(metric, f, year, quarter):
            continue
        rank = match_rank(metric, f)
        if rank is not None:
            out.append((rank, f))
    if not out and quarter and metric.kind == "flow":
        out = [(r, f) for f in facts if year_to_date(f, year, quarter)
               and (r := match_rank(metric, f)) is not None]
    if metric.kind == "instant" and out:
        out = _balance_date(out, facts, year, quarter)
    return out


def _balance_date(out: list[tuple[int, Fact]], facts: list[Fact], year: int,
                  quarter: int | None) -> list[tuple[int, Fact]]:
    """Balances at the period's end: a fiscal year's last date in each filing; for a
    quarter, the end date of that quarter's own figures (when the filing prints any)."""
    if quarter is not None:
        ends = {f.end for f in facts if f.fiscal_year == year and f.months == 3
                and f.fiscal_period == f"Q{quarter}" and f.end}
        if ends:
            return [(r, f) for r, f in out if f.end in ends]
    last: dict[str, str] = {}
    for _, f in out:
        last[f.doc_id] = max(last.get(f.doc_id, ""), f.end or "")
    return [(r, f) for r, f in out if (f.end or "") == last[f.doc_id]]


def _doc_rank(doc_id: str, year: int, prefer: list[str], years: dict[str, int]) -> tuple:
    if doc_id in prefer:
        return (0, prefer.index(doc_id))
    own = years.get(doc_id)
    if own == year:
        return (1, 0)
    if own is not None and own > year:
        return (2, own - year)
    return (3, 0)


def _key(metric: Metric, rank: int, f: Fact, year: int, prefer: list[str],
         years: dict[str, int]) -> tuple:
    statement = 0 if f.statement == metric.statement else 1 if f.statement is None else 2
    return (f.dims != "", statement, rank, _doc_rank(f.doc_id, year, prefer, years))


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= max(abs(a), abs(b)) * 0.005 + 1e-9


def choose(metric: Metric, period: str, found: list[tuple[int, Fact]], prefer: list[str],
           years: dict[str, int]) -> tuple[Fact | None, list[Fact]]:
    """The fact used and the differing alternatives (see the module docstring)."""
    if not found:
        return None, []
    year, _ = split_period(period)
    keyed = sorted(found, key=lambda rf: _key(metric, rf[0], rf[1], year, prefer, years))
    best_key = _key(metric, keyed[0][0], keyed[0][1], year, prefer, years)
    tier = [f for r, f in keyed if _key(metric, r, f, year, prefer, years) == best_key]
    votes = Counter(round(f.value, 0) for f in tier)
    value = max(votes, key=lambda v: (votes[v], abs(v)))
    if best_key[1] != 0:
        # Not on its own statement anywhere (statements untagged): the figure the filing
        # prints most often (the consolidated total recurs; a segment's "Total revenues"
        # does not), whatever the line's wording; then the best wording.
        same_doc = [(r, f) for r, f in keyed if not f.dims and f.doc_id == keyed[0][1].doc_id
                    and _key(metric, r, f, year, prefer, years)[1] == best_key[1]]
        pages: dict[float, set] = {}
        best_rank: dict[float, int] = {}
        for r, f in same_doc:
            v = round(f.value, 0)
            pages.setdefault(v, set()).add(f.page)
            best_rank[v] = min(best_rank.get(v, r), r)
        value = max(pages, key=lambda v: (len(pages[v]), -best_rank[v], abs(v)))
        tier = [f for _, f in same_doc]
    pick = next(f for f in tier if round(f.value, 0) == value)
    pick = _tagged_instead(metric, pick, found)
    # The same figure as tagged in XBRL (exact) wins over the table row, wherever ranked.
    same = [f for _, f in found if not f.dims and f.doc_id == pick.doc_id
            and _close(f.value, pick.value)]
    same.sort(key=lambda f: (f.source != "xbrl", f.chunk_id is None, f is not pick))
    fact = same[0]
    if fact.chunk_id is None:
        printed = [f for f in same if f.chunk_id]
        if printed:
            fact = fact.model_copy(update={"chunk_id": printed[0].chunk_id,
                                           "page": printed[0].page, "row": printed[0].row,
                                           "statement": fact.statement or
                                           printed[0].statement})
    alternatives: list[Fact] = []
    for _, f in keyed:
        if f.dims or _close(f.value, fact.value):
            continue
        if not any(_close(a.value, f.value) and a.doc_id == f.doc_id for a in alternatives):
            alternatives.append(f)
    return fact, alternatives[:4]


def _tagged_instead(metric: Metric, pick: Fact, found: list[tuple[int, Fact]]) -> Fact:
    """A table cell no tag of its filing prints (a misread column: the filing tags every
    figure of its statements) gives way to the filing's own tagged fact of the metric for
    that period, the best concept first."""
    if pick.source != "table" or pick.concept:
        return pick
    cat = catalog()
    tagged = [(rank, f) for f in (f for _, f in found) if f.source == "xbrl" and not f.dims
              and f.doc_id == pick.doc_id
              and (rank := cat.concept_rank(metric.key, f.concept)) is not None]
    if not tagged or any(_close(f.value, pick.value) for _, f in tagged):
        return pick
    return min(tagged, key=lambda rf: rf[0])[1]


_EXPENSES = ("cogs", "sga", "rnd", "operating_expenses")


def expenses_printed_negative(fact: Fact, facts: Iterable[Fact]) -> bool:
    """Whether ``fact``'s income statement prints its expenses negative ("Cost of sales
    (2,980)", "Income tax expense (33)"): an expense line of the same filing, statement and
    period is negative."""
    return any(f.doc_id == fact.doc_id and f.statement == "income" == fact.statement
               and f.end == fact.end and f.months == fact.months and f.metric in _EXPENSES
               and not f.dims and f.value < 0 for f in facts)


def to_input(metric: Metric, period: str, fact: Fact | None, alternatives: list[Fact],
             names: dict[str, str] | None = None, years: dict[str, int] | None = None,
             facts: Iterable[Fact] = ()) -> FigureInput:
    """The ``FigureInput`` for a chosen fact (or a missing one), sign convention applied."""
    ref = f"{metric.key}[{period}]"
    label = f"{metric.label}, {period}"
    if fact is None:
        return FigureInput(ref=ref, label=label, metric=metric.key, period=period,
                           unit=metric.unit, note=f"no {period} {metric.label} in the "
                           "filings loaded")
    value, sign_note = fact.value, ""
    if metric.sign == "positive" and value < 0:
        value = -value
        where = {"cash_flow": "the cash-flow statement", "income": "the income statement"
                 }.get(fact.statement or "", "the filing")
        printed = fact.printed or amount(fact.value, fact.unit)
        sign_note = f"printed negative ({printed}) on {where}; taken as a positive amount"
    elif metric.key == "income_tax" and value < 0 and expenses_printed_negative(fact, facts):
        value = -value  # an expense in a statement that prints every expense negative
        sign_note = (f"printed negative ({fact.printed or amount(fact.value, fact.unit)}) "
                     "like every "
                     "expense of its income statement; taken as an expense")
    name = (names or {}).get(fact.doc_id, fact.doc_id)
    own = (years or {}).get(fact.doc_id)
    whose = "its own filing" if own == split_period(period)[0] else "a later filing" \
        if own and own > split_period(period)[0] else "the filing"
    source = f"XBRL {fact.concept}" if fact.source == "xbrl" else "table row"
    note = f"{source} from {name} ({whose})"
    quarter = split_period(period)[1]
    if quarter and fact.months and fact.months > 3:
        note += (f"; year to date ({fact.months} months), as the filing's cash-flow "
                 "statement reports it, not the quarter alone")
    if alternatives:
        others = "; ".join(f"{amount(a.value, a.unit)} in "
                           f"{(names or {}).get(a.doc_id, a.doc_id)}"
                           f" ({a.label})" for a in alternatives)
        note += f"; differing facts: {others}"
    return FigureInput(ref=ref, label=label, metric=metric.key, period=period, value=value,
                       unit=fact.unit, fact=fact, alternatives=alternatives, note=note,
                       sign_note=sign_note)
