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

from core.ingest.facts.calendar import FiscalCalendar, iso
from core.ingest.facts.cells import Figure, read_figure, scale_of, unit_of
from core.ingest.facts.headings import (
    Column,
    clean_heading,
    has_period_words,
    read_column,
    spread,
)
from core.types import Fact, ParsedDocument

CAPTION_BACK = 600  # characters above a span searched for its caption lines
CAPTION_LINES = 10
CAPTION_CHARS = 160  # longer caption lines are prose: they say no period, unit or percent
CONTINUES_CHARS = 6000
_SPLIT = re.compile(r"\s*\|\s*")
_BARE_YEAR = re.compile(r"^(?:fiscal\s*)?(?:19|20)\d\d$", re.I)
_FOOTNOTE = re.compile(r"(?:\s*\((?:\d{1,2}|[a-z])\))+\s*$")
_HEADING_CELL = re.compile(
    r"^(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s*\d{1,2},?"
    r"(?:\s*(?:19|20)\d\d)?|(?:fiscal\s*)?(?:19|20)\d\d)$", re.I)
_LEADER_CELL = re.compile(r"^\s*[.…·]{3,}[.…·\s]*$")  # dot leaders in a cell of their own
_LEADERS = re.compile(r"\s*(?:\.{3,}|…+)[.\s…$]*$")
_GENERIC = re.compile(r"^(?:(?:basic|diluted|total|net|other|other,?\s*[-—–]?\s*net)$|"
                      r"%|percent|as\s+a\s+(?:%|percent))", re.I)
_STATEMENTS = (  # squashed lower-case caption line -> statement (order matters)
    ("cash_flow", re.compile(r"statements?ofcashflows?|cashflowsstatements?")),
    ("balance", re.compile(r"balancesheets?|statements?offinancial(?:position|condition)")),
    ("equity", re.compile(r"statements?of(?:changesin)?(?:stockholders|shareholders|"
                          r"shareowners|owners)?'?s?equity")),
    ("comprehensive_income", re.compile(r"^(?:\w+and\w+)?(?:consolidated)?statements?of"
                                        r"comprehensive(?:income|loss|earnings)")),
    ("income", re.compile(r"statements?of(?:consolidated)?(?:operations|income|earnings)")),
)
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


def statement_of(lines: list[str]) -> str | None:
    """The statement a caption line names ("CONSOLIDATED STATEMENTS OF INCOME"; PDF text
    squeezed, split or broken over lines, "Consolidated Statement of Cash Flow s", counts)."""
    short = [line for line in lines if len(line) <= 140 and not line.rstrip().endswith(
        (".", ";"))]
    for k in range(len(short) - 1, -1, -1):
        for width in (1, 2, 3):  # a title broken over lines: "CONSOLIDATED" / "BALANCE" / ...
            squashed = re.sub(r"[^a-z']", "", " ".join(short[k:k + width]).lower())
            for kind, rx in _STATEMENTS:
                if rx.search(squashed):
                    return kind
    return None


def _captions(text: str, start: int, floor: int) -> list[str]:
    above = text[max(floor, start - CAPTION_BACK):start].split("\n")
    lines = [line.strip() for line in above if line.strip()]
    return lines[-CAPTION_LINES:]


def _lines(text: str, a: int, b: int) -> list[tuple[int, str]]:
    out, pos = [], a
    for line in text[a:b].split("\n"):
        if line.strip():
            out.append((pos, line))
        pos += len(line) + 1
    return out


def _is_figure_cell(cell: str) -> bool:
    """A value cell holding a figure (a bare year heads a column; it is no value)."""
    cell = cell.strip()
    return bool(cell) and not _BARE_YEAR.match(cell) and read_figure(cell) is not None


def _caption_headings(captions: list[str], rows: list) -> list:
    """Column headings printed above the table as lines of their own (a one-row "table"
    of PDF text: "May 31, 2020 | May 26, 2019") head it, when its rows start without any."""
    first = next((k for k, (_, _, kind) in enumerate(rows) if kind == "data"), len(rows))
    if any(kind == "head" and has_period_words(" ".join(c[1:])) for _, c, kind in rows[:first]):
        return rows
    found = []
    for line in captions:
        cells = _SPLIT.split(line.strip())
        if len(cells) > 1 and _kind(cells) == "head":
            if _HEADING_CELL.match(cells[0].strip()):
                cells = ["", *cells]
            if has_period_words(" ".join(cells[1:])):
                found.append((-1, cells, "head"))
    years = [line.strip() for line in captions if _BARE_YEAR.match(line.strip())]
    if not found and len(years) >= 2:  # one year a line: headings broken up by PDF layout
        found.append((-1, ["", *years], "head"))
    return found + rows


def _whole_label(cells: list[str]) -> list[str]:
    """A data row whose label PDF spacing split over cells ("Total | current assets | 5,121.3",
    "Cash | and | cash | equivalents | $1,980") with its label whole again."""
    k = 1
    while k < len(cells) and cells[k].strip() and not _is_figure_cell(cells[k]):
        k += 1
    if k == 1 or k == len(cells):
        return cells
    return [" ".join(c.strip() for c in cells[:k]), *cells[k:]]


def _label(cells: list[str]) -> str:
    label = _LEADERS.sub("", cells[0]) if cells else ""
    return _FOOTNOTE.sub("", label).strip().rstrip(":").strip()


def _kind(cells: list[str]) -> str:
    """'data' (a label and figures), 'blank' (figures, no label), 'head' (no figure) or
    'text' (one cell)."""
    if len(cells) == 1:
        return "text"
    if any(_is_figure_cell(c) for c in cells[1:]):
        label = cells[0].strip()
        if not label:
            return "blank"  # figures under no label: a group's total, printed unnamed
        return "skip" if _BARE_YEAR.match(label) else "data"
    return "head"


def _blocks(rows: list[tuple[int, list[str], str]]):
    """Split a table's rows into (heading rows, data and group rows) blocks at each run of
    heading rows that names periods."""
    blocks: list[tuple[list[list[str]], list[tuple[int, list[str], str]]]] = [([], [])]
    pending: list[list[str]] = []
    for offset, cells, kind in rows:
        if kind == "head":
            pending.append(cells)
            continue
        if pending:
            if any(has_period_words(" ".join(c[1:])) for c in pending):
                blocks.append((pending, []))
            else:
                blocks[-1][1].extend((offset, c, "group") for c in pending)
            pending = []
        blocks[-1][1].append((offset, cells, kind))
    return [b for b in blocks if b[1]]


def read_tables(parsed: ParsedDocument, calendar: FiscalCalendar | None, doc_id: str,
                statement_at=None) -> list[TableFact]:
    """Facts of every table of ``parsed``; ``statement_at(offset)`` may name the statement
    a table sits in when its captions do not (e.g. the chunk tags of the store)."""
    ctx = _Context(parsed, calendar, doc_id)
    scales = [scale_of(" ".join(_captions(parsed.text, a, 0)) + parsed.text[a:min(b, a + 600)])
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
    captions = _captions(text, a, floor)
    rows = []
    for offset, line in _lines(text, a, b):
        cells = [c for c in _SPLIT.split(line.strip()) if not _LEADER_CELL.match(c)] or [""]
        kind = _kind(cells)
        if kind == "data":
            cells = _whole_label(cells)
        if kind == "head" and _HEADING_CELL.match(cells[0].strip()):
            cells = ["", *cells]  # "December 1, | December 2,": headings with no label cell
        if kind == "text" and not any(k in ("data", "head") for _, _, k in rows):
            captions.append(line.strip())
            continue
        rows.append((offset, cells, kind))
    rows = _caption_headings(captions, rows)
    statement = statement_of(captions)
    if statement is None and statement_at is not None:
        statement = statement_at(a)
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
        columns = [read_column(t, shared_caption) for t in spread(heads, n)]
        if n and any(c.has_period for c in columns):
            return _Table(columns, table_scale, statement, b)
    for heads, body in _blocks(rows):
        widths = [len(c) - 1 for _, c, k in body if k == "data"]
        if not widths:
            continue
        n = max(widths)
        shared = " ".join([shared_caption, *(h[0] for h in heads)])
        columns = [read_column(t, shared) for t in spread(heads, n)] if heads else []
        by_rows = None
        if not any(c.has_period for c in columns):
            by_rows = _row_periods(body, n, shared)
        if by_rows is not None:
            columns = by_rows
        elif not any(c.has_period for c in columns):
            if last is None or len(last.columns) != n or a - last.end > CONTINUES_CHARS:
                continue
            columns = last.columns
            statement = statement or last.statement
            table_scale = table_scale if table_scale is not None else last.scale
        scale = table_scale
        if scale is None:
            scale = ctx.default_scale if "$" in text[a:b] else 0
        percent_table = bool(_PERCENT_TABLE.search(shared))
        _emit(ctx, body, columns, scale, statement, percent_table,
              shared if by_rows is not None else None)
        last = _Table(columns, scale, statement, b)
    return last


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
    return [Column(heading=clean_heading(t)) for t in spread(heads, n)]


def _member(heading: str) -> str:
    """dims of a member column: '' for the entity total ("Consolidated", "Total")."""
    if not heading or _TOTAL.match(heading):
        return ""
    return f"column={heading}"

def _emit(ctx: _Context, body, columns: list[Column], scale: int, statement: str | None,
          percent_table: bool, row_shared: str | None = None) -> None:
    """Facts of a block's data rows. ``row_shared`` is set when periods head groups of
    rows (``_row_periods``): each row group's period then applies to every member column."""
    group, totalled = "", False
    period: Column | None = None
    members = columns
    for offset, cells, kind in body:
        if kind == "blank" and group and not totalled:
            cells, kind = [f"Total {group[:1].lower()}{group[1:]}", *cells[1:]], "data"
        if kind != "data":
            if kind in ("group", "text", "head") and len(cells[0]) <= 120:
                group, totalled = _label(cells), False
            if row_shared is not None and has_period_words(cells[0]):
                found = read_column(cells[0], row_shared)
                if found.has_period:
                    period = found
                    columns = [replace(found, heading=c.heading) for c in members]
            continue
        if row_shared is not None and period is None:
            continue
        label = _label(cells)
        if not label:
            continue
        totalled = totalled or label.lower().startswith("total")
        if _GENERIC.match(label) and len(label.split()) <= 4 and group:
            label = f"{group}: {label}"
        row = " | ".join(cells)
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
                    fact.dims = _member(columns[k].heading)
                ctx.out.append(TableFact(offset, fact))


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
