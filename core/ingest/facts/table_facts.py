"""Facts from the tables of a parsed document (``ParsedDocument.table_spans``).

Each table is read whole from ``parsed.text`` (a long table is split into several chunks,
and later pieces do not repeat its headings): its caption lines (inside the span and the
few lines above it) give the statement, the scale and shared period words; its heading
rows give each value column's period (``headings``); each row with figures gives one fact
per column that has a period. A table whose headings name no period continues the table
before it when it has as many columns and starts within ``CONTINUES_CHARS`` (a statement
carried over a page break). Columns of years after the filing's own fiscal year (debt
maturities, commitments) are not facts of any period and are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date

from core.foundation.types import Fact, ParsedDocument
from core.ingest.facts.breakdown import kind_of, mark_breakdowns, member_kind
from core.ingest.facts.calendar import FiscalCalendar, iso
from core.ingest.facts.cells import Figure, read_figure, scale_of, unit_of
from core.ingest.facts.headings import (
    Column,
    clean_heading,
    duration_groups,
    durations,
    has_period_words,
    read_column,
    read_columns,
    spread,
)
from core.ingest.facts.rows import (
    GENERIC,
    blocks,
    captions_above,
    row_label,
    statement_of,
    table_rows,
)

CAPTION_CHARS = 160  # longer caption lines are prose: they say no period, unit or percent
CONTINUES_CHARS = 6000
_TOTAL = re.compile(r"^(?:total|consolidated)\b", re.I)
_PERCENT_TABLE = re.compile(r"percent(?:age)?\s+of|%\s+of\s+(?:total\s+)?(?:net\s+)?"
                            r"(?:revenue|sales)|as\s+a\s+%", re.I)


@dataclass
class TableFact:
    """A fact read from a table and where its row starts in the document text."""

    offset: int
    fact: Fact


@dataclass
class _Table:
    columns: list[Column]
    scale: int | None
    statement: str | None
    end: int


@dataclass
class _Context:
    parsed: ParsedDocument
    calendar: FiscalCalendar | None
    doc_id: str
    default_scale: int = 0
    out: list[TableFact] = field(default_factory=list)


def read_tables(parsed: ParsedDocument, calendar: FiscalCalendar | None, doc_id: str,
                statement_at=None) -> list[TableFact]:
    """Facts of every table of ``parsed``; ``statement_at(offset)`` may name the statement
    a table sits in when its captions do not (e.g. the chunk tags of the store)."""
    ctx = _Context(parsed, calendar, doc_id)
    scales = [scale_of(" ".join(captions_above(parsed.text, a, 0)) + parsed.text[a:min(b, a + 600)])
              for a, b in parsed.table_spans]
    known = [s for s in scales if s]
    ctx.default_scale = max(set(known), key=known.count) if known else 0
    prev: _Table | None = None
    floor = 0
    for a, b in parsed.table_spans:
        prev = _read_table(ctx, a, b, floor, prev, statement_at)
        floor = b
    return ctx.out


def _read_table(ctx: _Context, a: int, b: int, floor: int, prev: _Table | None,
                statement_at) -> _Table | None:
    text = ctx.parsed.text
    captions, rows = table_rows(text, a, b, floor)
    titled = statement_of(captions)
    statement = titled
    if statement is None and statement_at is not None:
        statement = statement_at(a)  # the chunk's tag: a guess a continued table overrides
    shared_caption = " ".join(line for line in captions if len(line) <= CAPTION_CHARS
                              and not line.endswith((".", ";")))  # no sentence of prose
    heads_text = " ".join(c[0] for _, c, k in rows if k == "head")
    table_scale = scale_of(f"{shared_caption} {heads_text}")
    if table_scale is None:
        table_scale = scale_of(" ".join(captions))
    last = prev
    if rows and all(k == "head" for _, _, k in rows):  # headings printed apart from rows
        heads = [c for _, c, _ in rows]
        n = max(len(c) - 1 for c in heads)
        columns = read_columns(spread(heads, n), shared_caption)
        if n and any(c.has_period for c in columns):
            return _Table(columns, table_scale, statement, b)
    for heads, body in blocks(rows):
        widths = [len(c) - 1 for _, c, k in body if k == "data"]
        if not widths:
            continue
        n = max(widths)
        shared = " ".join([shared_caption, *(h[0] for h in heads)])
        heads = _with_groups(heads, captions, n)
        used = sorted({k for _, c, kind in body if kind == "data"
                       for k, cell in enumerate(c[1:]) if read_figure(cell) is not None})
        columns = read_columns(spread(heads, n, used), shared) if heads else []
        by_rows = None
        if not any(c.has_period for c in columns):
            by_rows = _row_periods(body, n, shared)
        if by_rows is not None:
            columns = by_rows
        elif not any(c.has_period for c in columns):
            if last is None or len(last.columns) != n or a - last.end > CONTINUES_CHARS:
                continue
            columns = last.columns
            statement = titled or last.statement or statement  # a balance sheet's second
            # half in a chunk tagged by the cash-flow title below it is still the balance
            table_scale = table_scale if table_scale is not None else last.scale
        scale = table_scale
        if scale is None:
            scale = ctx.default_scale if "$" in text[a:b] else 0
        percent_table = bool(_PERCENT_TABLE.search(shared))
        _emit(ctx, body, columns, scale, statement, percent_table,
              shared if by_rows is not None else None, shared)
        last = _Table(columns, scale, statement, b)
    return last


def _with_groups(heads: list[list[str]], captions: list[str], n: int) -> list[list[str]]:
    """``heads`` with a group heading line the layout left above the table (the nearest
    caption line naming two or more durations) as their first row, when the heading rows
    name no duration themselves and the groups divide the columns evenly."""
    if not heads or any(durations(" ".join(h)) for h in heads):
        return heads
    for line in reversed(captions[-3:]):
        groups = duration_groups(line)
        if groups and n % len(groups) == 0:
            return [["", *groups], *heads]
    return heads


def _row_periods(body, n: int, shared: str) -> list[Column] | None:
    """Columns of a table whose periods head groups of rows ("Year Ended January 29,
    2023:" above the rows of that year) and whose columns are members (segments): the
    columns' headings, or None when the rows name no period."""
    heads = []
    for _, cells, kind in body:
        if kind == "data":
            break
        if len(cells) > 1:
            heads.append(cells)
    if not any(kind != "data" and has_period_words(cells[0]) and
               read_column(cells[0], shared).has_period for _, cells, kind in body):
        return None
    first = next((cells for _, cells, kind in body if kind == "data" or len(cells) == 1), None)
    if not heads and (first is None or len(first) > 1):
        return None  # rows of figures before any period: a continued table, a line between
        # its rows ("Shares outstanding - December 31, 2022: 549,245,105") no period heading
    return [Column(heading=clean_heading(t)) for t in spread(heads, n)]


def _member(heading: str, shared: str) -> str:
    """dims of a member column: '' for the entity total ("Consolidated", "Total"); the
    axis is the kind of breakdown the table's words name ('segment=Graphics'), else
    'column'; a country's column is a region's ('geography=China')."""
    if not heading or _TOTAL.match(heading):
        return ""
    return f"{member_kind(kind_of(shared) or 'column', heading)}={heading}"


def _emit(ctx: _Context, body, columns: list[Column], scale: int, statement: str | None,
          percent_table: bool, row_shared: str | None = None, shared: str = "") -> None:
    """Facts of a block's data rows. ``row_shared`` is set when periods head groups of
    rows (``_row_periods``): each row group's period then applies to every member column.
    Rows that break a line down by segment, market or region are members
    (``breakdown``)."""
    rows: list[tuple[str, str, list[Fact]]] = []
    group, totalled = "", False
    period: Column | None = None
    members = columns
    before = ""  # the label of the row just above, when it had no figures
    for offset, cells, kind in body:
        above, before = before, (row_label(cells) if kind in ("group", "text") else "")
        if kind == "blank" and group and not totalled:
            cells, kind = [f"Total {group[:1].lower()}{group[1:]}", *cells[1:]], "data"
        if kind != "data":
            if kind in ("group", "text", "head") and len(cells[0]) <= 120:
                group, totalled = row_label(cells), False
            if row_shared is not None and has_period_words(cells[0]):
                found = read_column(cells[0], row_shared)
                if found.has_period:
                    period = found
                    columns = [replace(found, heading=c.heading) for c in members]
            continue
        if row_shared is not None and period is None:
            continue
        label = row_label(cells)
        if not label:
            continue
        if above and label[:1].islower() and not above.endswith(":"):
            label = f"{above} {label}"  # a line item broken over two lines ("... for taxes"
            # above "on income  2,269"): the printed label whole again
        totalled = totalled or label.lower().startswith("total")
        if GENERIC.match(label) and len(label.split()) <= 4 and group:
            label = f"{group}: {label}"
        row = " | ".join(cells)
        found: list[Fact] = []
        for k, cell in enumerate(cells[1:]):
            if k >= len(columns) or not columns[k].has_period:
                continue
            figure = read_figure(cell)
            if figure is None:
                continue
            fact = _fact(ctx, label, row, cell, figure, columns[k], scale, statement,
                         percent_table or columns[k].percent, group)
            if fact is not None:
                if row_shared is not None:
                    fact.dims = _member(columns[k].heading, row_shared)
                    fact.member_names = {columns[k].heading: columns[k].heading} \
                        if fact.dims else {}
                found.append(fact)
        kept = _consistent(found)
        rows.append((group, label, kept if row_shared is None else []))
        ctx.out.extend(TableFact(offset, f) for f in kept)
    mark_breakdowns(rows, shared)


def _consistent(facts: list[Fact]) -> list[Fact]:
    """A row's facts without those whose columns read as one period with different values
    (member columns, "U.S. | International", read as periods): one line has one value
    per period, so such columns are not the periods they seem to be."""
    def period(f: Fact) -> tuple:
        return (f.fiscal_year, f.fiscal_period, f.months, f.end, f.unit, f.dims)

    values: dict[tuple, set[float]] = {}
    for f in facts:
        values.setdefault(period(f), set()).add(round(f.value, 6))
    return [f for f in facts if len(values[period(f)]) == 1]


def _fact(ctx: _Context, label: str, row: str, cell: str, figure: Figure, col: Column,
          scale: int, statement: str | None, percent: bool, group: str) -> Fact | None:
    cal = ctx.calendar
    instant = col.instant
    if statement == "balance":
        instant = True
    elif statement in ("income", "cash_flow", "comprehensive_income"):
        instant = False
    if instant is None:
        instant = False
    months = None if instant else col.months
    if months is None and not instant:
        months = 3 if cal is not None and cal.quarterly and col.end is not None else 12
    end: date | None = col.end
    fiscal_period = "" if instant else ("FY" if months == 12 else "")
    if end is not None and cal is not None:
        resolved = cal.resolve(end, months, instant)
        fiscal_year, fiscal_period = resolved.fiscal_year, resolved.fiscal_period
    elif end is not None:
        fiscal_year = end.year
    else:
        fiscal_year = col.year
        end = cal.end_of_year(col.year) if cal is not None and col.year else None
    if cal is not None and fiscal_year is not None and fiscal_year > cal.fiscal_year:
        return None  # a year after the filing's own: a schedule of future amounts
    if figure.percent or (percent and "$" not in cell):
        unit, power = "percent", 0
    else:
        unit = unit_of(label, group)
        power = 0 if unit == "USD/share" else scale
    return Fact(
        fact_id="", doc_id=ctx.doc_id, source="table", label=label, statement=statement,
        period_type="instant" if instant else "duration", fiscal_year=fiscal_year,
        fiscal_period=fiscal_period, months=months, end=iso(end),
        value=figure.scaled(power), unit=unit, scale=power, decimals=-power,
        row=row, column=col.heading, printed=cell.strip(),
    )
