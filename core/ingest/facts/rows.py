"""A table's text split into classified rows, and the caption lines above it.

Rows are " | "-joined lines (``core.ingest.tables`` / ``pdf_layout``): a row is "data" (a
label and figures), "blank" (figures under no label), "head" (cells without figures:
column headings), "text" (a single cell: a caption or a group heading) or "skip". PDF text
brings its own damage, repaired here: dot leaders in cells of their own, labels split over
cells by wide spacing, headings printed without a label cell, headings printed above the
table as lines of their own (one-row "tables", or one year a line), statement titles broken
over lines or squeezed together.
"""

from __future__ import annotations

import re

from core.ingest.facts.cells import read_figure
from core.ingest.facts.headings import has_period_words

CAPTION_BACK = 600  # characters above a span searched for its caption lines
CAPTION_LINES = 10
_SPLIT = re.compile(r"\s*\|\s*")
BARE_YEAR = re.compile(r"^(?:fiscal\s*)?(?:19|20)\d\d$", re.I)
_FOOTNOTE = re.compile(r"(?:\s*\((?:\d{1,2}|[a-z])\))+\s*$")
_HEADING_CELL = re.compile(
    r"^(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s*\d{1,2},?"
    r"(?:\s*(?:19|20)\d\d)?|(?:fiscal\s*)?(?:19|20)\d\d)$", re.I)
_LEADER_CELL = re.compile(r"^\s*[.…·]{3,}[.…·\s]*$")  # dot leaders in a cell of their own
_LEADERS = re.compile(r"\s*(?:\.{3,}|…+)[.\s…$]*$")
GENERIC = re.compile(r"^(?:(?:basic|diluted|total|net|other|other,?\s*[-—–]?\s*net)$|"
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

_PROSE = re.compile(r"\b(?:our|we|see|are|is|was|were|in\s+the|included|refer|follows|"
                    r"analysis)\b", re.I)  # a sentence (or MD&A's "Analysis of the
# Consolidated Statements of Income") naming a statement is no title
Row = tuple[int, list[str], str]  # (offset of the line in the text, cells, kind)


def statement_of(lines: list[str]) -> str | None:
    """The statement a caption line names ("CONSOLIDATED STATEMENTS OF INCOME"; PDF text
    squeezed, split or broken over lines, "Consolidated Statement of Cash Flow s", counts)."""
    short = [line for line in lines if len(line) <= 140 and len(line.split()) <= 12
             and not line.rstrip().endswith((".", ";", ":")) and not _PROSE.search(line)]
    for k in range(len(short) - 1, -1, -1):
        for width in (1, 2, 3):  # a title broken over lines: "CONSOLIDATED" / "BALANCE" / ...
            squashed = re.sub(r"[^a-z']", "", " ".join(short[k:k + width]).lower())
            for kind, rx in _STATEMENTS:
                if rx.search(squashed):
                    return kind
    return None


def captions_above(text: str, start: int, floor: int) -> list[str]:
    """The last caption lines above ``start``, not above ``floor``."""
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
    return bool(cell) and not BARE_YEAR.match(cell) and read_figure(cell) is not None


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
    years = [line.strip() for line in captions if BARE_YEAR.match(line.strip())]
    if not found and len(years) >= 2:  # one year a line: headings broken up by PDF layout
        found.append((-1, ["", *years], "head"))
    return found + rows


def _wholerow_label(cells: list[str]) -> list[str]:
    """A data row whose label PDF spacing split over cells ("Total | current assets | 5,121.3",
    "Cash | and | cash | equivalents | $1,980") with its label whole again."""
    k = 1
    while k < len(cells) and cells[k].strip() and not _is_figure_cell(cells[k]):
        k += 1
    if k == 1 or k == len(cells):
        return cells
    return [" ".join(c.strip() for c in cells[:k]), *cells[k:]]


def row_label(cells: list[str]) -> str:
    """A row's line item without dot leaders, footnote marks and a closing colon."""
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
        return "skip" if BARE_YEAR.match(label) else "data"
    return "head"


def blocks(rows: list[tuple[int, list[str], str]]):
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


def table_rows(text: str, a: int, b: int, floor: int) -> tuple[list[str], list[Row]]:
    """Caption lines (above the span, and single-cell lines before its first row) and the
    classified rows of the table ``text[a:b]``; ``floor`` is where the table above ended."""
    captions = captions_above(text, a, floor)
    rows = []
    for offset, line in _lines(text, a, b):
        cells = [c for c in _SPLIT.split(line.strip()) if not _LEADER_CELL.match(c)] or [""]
        kind = _kind(cells)
        if kind == "data":
            cells = _wholerow_label(cells)
            if not rows and cells[0][:1].islower() and captions and \
                    not captions[-1].endswith((":", ".", ";")) and len(captions[-1]) <= 120:
                # a line item broken over a page or span edge ("... for taxes" above
                # "on income | 2,269"): the printed label whole again
                cells = [f"{captions.pop()} {cells[0]}", *cells[1:]]
        if kind == "head" and _HEADING_CELL.match(cells[0].strip()):
            cells = ["", *cells]  # "December 1, | December 2,": headings with no label cell
        if kind == "text" and not any(k in ("data", "head") for _, _, k in rows):
            captions.append(line.strip())
            continue
        rows.append((offset, cells, kind))
    return captions, _caption_headings(captions, rows)
