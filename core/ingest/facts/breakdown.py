"""Members printed as rows: a table breaking a line down by segment, market or region.

PDF and plain-HTML filings print "Revenue by Reportable Segments" as rows ("Compute &
Networking | $4,460 | $3,672", "Graphics | 2,732 | 4,616", "Total | $7,192 | $8,288") with
no tag to say the rows are segments. A run of rows is read as members when a total row
follows it whose figures are the run's sums, period by period, the table's caption, group
heading or total names the kind of breakdown (segments; markets, platforms, products;
regions, geographies, countries; a country is a region whatever the words) and the line
broken down is a metric of the catalogue
(the total's own words, "Total revenue", else the group heading "Revenue:", else the
caption's "Revenue by ..."; a segment's profit measure, "Segment EBIT", is its operating
income: ``metric.segment_profit``). Each row's facts then carry the member (``dims``
'segment=Graphics', its name in ``member_names``) and the line as their label ("Revenue"),
as a table's member columns do.
"""

from __future__ import annotations

import re

from core.foundation.types import Fact
from core.ingest.facts.countries import is_country
from core.ingest.facts.members import is_place
from core.ingest.facts.metric import segment_profit
from core.metrics import metric_for_label

_TOTAL = re.compile(r"^(?:total|consolidated)\b[\s:]*", re.I)
_KINDS = (("segment", re.compile(r"\bsegments?\b|\bdivisions?\b", re.I)),
          ("product", re.compile(r"\bmarkets?\b|\bplatforms?\b|\bproducts?\b|\bbrands?\b|"
                                 r"\bproduct\s+lines?\b|\bcategor(?:y|ies)\b", re.I)),
          ("geography", re.compile(r"\bgeograph\w*|\bregions?\b|\bcountr(?:y|ies)\b|"
                                   r"\bgeographic\s+areas?\b", re.I)))
_BY = re.compile(r"([A-Za-z][\w ,&'-]{1,60}?)\s+by\s+(?:each\s+of\s+)?(?:the\s+|our\s+|"
                 r"reportable\s+|operating\s+|business\s+|geographic\s+)*\w+", re.I)

Row = tuple[str, str, list[Fact]]  # (group heading, label, the row's facts)


_BY_KIND = re.compile(r"\bby\s+(?:[\w-]+\s+){0,4}?(?=(?:segment|division|market|platform|"
                      r"product|brand|categor|geograph|region|countr)\w*\b)", re.I)


def kind_of(text: str) -> str | None:
    """'segment', 'product' or 'geography' when ``text`` names a breakdown, else None."""
    return next((kind for kind, rx in _KINDS if rx.search(text)), None)


def member_kind(kind: str | None, name: str) -> str | None:
    """The kind of a table's member: a country is a region whatever the table's words say
    (a "segment information" table printing "United States" and "China" rows); a row of a
    table by region that is no place ("Hedging gains (losses)", "Corporate") is no region
    ('column', a member of no kind); "Other" stays the table's."""
    if kind is None:
        return None
    if is_country(name):
        return "geography"
    if kind == "geography" and not is_place(name) and \
            not set(re.findall(r"[a-z]+", name.lower())) <= {"all", "other", "others"}:
        return "column"
    return kind


def breakdown_kind(shared: str, group: str, total: str) -> str | None:
    """The kind of breakdown a table's rows are: named by their group heading or total
    ("Segment revenue:", "Total segments") or by the caption's "... by <kind>" ("Revenue
    by Reportable Segments", "revenue by each of the specialized markets we serve")."""
    found = kind_of(f"{group} {total}")
    if found:
        return found
    m = _BY_KIND.search(shared)
    return kind_of(shared[m.end():m.end() + 40]) if m else None


def _period(f: Fact) -> tuple:
    return (f.fiscal_year, f.fiscal_period, f.months, f.end, f.unit)


def _sums(run: list[Row], total: list[Fact]) -> bool:
    """Whether ``total``'s figures are the run's sums (one period at least, none off)."""
    matched = False
    for t in total:
        parts = [f.value for _, _, facts in run for f in facts if _period(f) == _period(t)]
        if len(parts) != len(run):
            continue
        tol = max(abs(t.value) * 0.002, len(run) * 10 ** t.scale)
        if abs(sum(parts) - t.value) > tol:
            return False
        matched = True
    return matched


def _line(total: str, group: str, shared: str, unit: str) -> str | None:
    """The line the breakdown is of, as printed, when the catalogue knows it."""
    texts = [_TOTAL.sub("", total.split(":")[-1]).strip(), group.split(":")[0].strip()]
    texts += [m.group(1).strip() for m in _BY.finditer(shared)]
    for text in texts:
        words = text.split()
        for k in range(len(words)):  # "Revenue", "Segment revenue", "... Net sales"
            line = " ".join(words[k:])
            if line and (metric_for_label(line, None, unit=unit) or segment_profit(line)):
                return line[:1].upper() + line[1:]
    return None


def mark_breakdowns(rows: list[Row], shared: str) -> None:
    """Give the member rows of every breakdown in ``rows`` their member (in place)."""
    run: list[Row] = []
    for group, label, facts in rows:
        if run and run[-1][0] != group:
            run = []
        if not _TOTAL.match(label.split(":")[-1].strip() or label):
            if facts:
                run.append((group, label, facts))
            continue
        kind = breakdown_kind(shared, group, label)
        line = _line(label, group, shared, facts[0].unit) if facts else None
        if kind and line and len(run) >= 2 and _sums(run, facts):
            for grp, name, own in run:
                name = name[len(grp) + 2:] if grp and name.startswith(f"{grp}: ") else name
                own_kind = member_kind(kind, name)
                for f in own:
                    f.dims, f.member_names, f.label = f"{own_kind}={name}", {name: name}, line
        run = []
