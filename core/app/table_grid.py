"""A table chunk's text read back as a grid: the caption lines before it, its column
headings and its rows.

Ingest writes a table as one line per row with cells joined by ``" | "`` (prose lines
around it kept: a caption such as "(In millions)" or the statement's title). The
dashboard and the HTML report show it as a grid again; ``span`` (character offsets in the
chunk's text, e.g. the cited row) tells which rows to mark.

Column headings are the filing's own: every heading row above the first row of figures
("| Year Ended" / "| January 29, 2023 | January 30, 2022 Change" / "| ($ in millions)")
is read, a row with one heading that spans the columns ("Year Ended", "(In millions)")
becomes a caption line, the others are aligned to the right-hand columns (where the
figures are) and stacked. A piece of a long table that starts below its headings takes
them from the chunk's ``context`` (its caption and column headings). A figure glued to its
change column ("$26,914 —%") is split (``core.figures.printed_row``). "column N" is said
only for a column no heading names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.figures.printed_row import split_cell, split_heading

_FIGURE = re.compile(r"^[\s$€£(]*[-–]?[\d,.]+\)?\s*%?$")  # 26,974 · $ (1,234) · 12.5%
_YEAR = re.compile(r"^(?:FY\s*)?(?:19|20)\d\d$")
MAX_HEADING_ROWS = 4


@dataclass
class Grid:
    """A table: ``caption`` lines, unique ``header`` names, ``rows`` padded to the header."""

    caption: list[str]
    header: list[str]
    rows: list[list[str]]
    marked: list[int] = field(default_factory=list)  # rows the span touches
    after: list[str] = field(default_factory=list)  # prose lines after the table


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.split("|")]


def _body_cells(line: str) -> list[str]:
    return [part for c in line.split("|") for part in split_cell(c)]


def _heading_cells(line: str) -> list[str]:
    return [part for c in line.split("|") for part in split_heading(c.strip())]


def _unique(names: list[str]) -> list[str]:
    out: list[str] = []
    for i, name in enumerate(names):
        base = name or ("" if i == 0 else f"column {i + 1}")
        label, k = base, 2
        while label in out:
            label, k = f"{base} ({k})", k + 1
        out.append(label)
    return out


def _is_header(cells: list[str]) -> bool:
    """A heading row names periods or columns: few figures other than years."""
    filled = [c for c in cells if c]
    figures = [c for c in filled if _FIGURE.match(c) and not _YEAR.match(c)]
    return bool(filled) and len(figures) <= len(filled) // 3


def _headings(rows: list[list[str]], width: int) -> tuple[list[str], list[str]]:
    """``(column headings, caption lines)`` from heading rows: a row naming one column
    span is a caption line; the others, aligned right, are stacked per column."""
    stacked = [[] for _ in range(width)]
    caption = []
    for cells in rows:
        values = [c for c in cells[1:] if c]
        if len(values) <= 1 and (len(values) + bool(cells[0])) <= 1 or \
                len(values) == 1 and width > 2:
            caption.append(" ".join(c for c in cells if c))
            continue
        cells = cells[:width]
        aligned = [cells[0]] + [""] * (width - len(cells)) + cells[1:] if len(cells) < width \
            else cells
        for j, c in enumerate(aligned):
            if c:
                stacked[j].append(c)
    return [" ".join(parts) for parts in stacked], caption


def _context_headings(context: str, width: int) -> list[str] | None:
    """Column headings from a chunk's ``context`` (a piece below its table's headings),
    when they name the same number of columns."""
    rows = [_heading_cells(line) for line in context.split("\n") if "|" in line]
    rows = [r for r in rows if _is_header(r)]
    if not rows:
        return None
    header, _ = _headings(rows, width)
    return header if sum(bool(h) for h in header[1:]) >= max(1, width - 2) else None


def table_grid(text: str, span: tuple[int, int] | None = None, context: str = ""
               ) -> Grid | None:
    """The longest run of pipe-separated lines of ``text`` as a grid (None when the text has
    fewer than two such lines); ``context``: the chunk's caption and column headings."""
    lines = text.split("\n")
    offsets, at = [], 0
    for line in lines:
        offsets.append(at)
        at += len(line) + 1
    best: tuple[int, int] = (0, 0)
    start = None
    for i, line in enumerate([*lines, ""]):
        if "|" in line:
            start = i if start is None else start
            continue
        if start is not None and i - start > best[1] - best[0]:
            best = (start, i)
        start = None
    first, end = best
    if end - first < 2:
        return None
    heads = 0
    while first + heads < end - 1 and heads < MAX_HEADING_ROWS and \
            _is_header(_body_cells(lines[first + heads])):
        heads += 1
    body = [_body_cells(line) for line in lines[first + heads:end]]
    width = max(len(r) for r in body)
    body = [r + [""] * (width - len(r)) for r in body]
    header, spanning = _headings([_heading_cells(x) for x in lines[first:first + heads]], width)
    if not any(header[1:]) and context:
        header = _context_headings(context, width) or header
    header = _unique(header)
    body_first = first + heads
    marked = []
    if span:
        for k in range(len(body)):
            lo = offsets[body_first + k]
            hi = lo + len(lines[body_first + k])
            if lo < span[1] and span[0] < hi:
                marked.append(k)
    caption = [line.strip() for line in lines[:first] if line.strip()] + spanning
    after = [line.strip() for line in lines[end:] if line.strip()]
    return Grid(caption=caption, header=header, rows=body, marked=marked, after=after)
