"""HTML table rows with every value under its own column heading.

EDGAR tables spread one value over several cells (a "$" cell, the number, a ")" or "%"
cell), pad rows with empty spacer columns and span headings over several columns
(``colspan``). Dropping empty cells (as a naive reader does) shifts a row that lacks a
value: "Total | 112,260 | $89,074" puts the second figure under the first heading. Here each
cell keeps its grid position: "$" is glued to the figure after it and ")" / "%" to the one
before (so "(1,234)" and "36%" stay whole). The columns kept are the label column, the
positions where a single-column cell holds a figure (not a year or date: those head
columns) and positions filled in two rows or more; spacer columns disappear. A heading
that spans columns goes to the first kept column under it (else the nearest, to the right
on a tie), and a blank cell stays blank ("Total |  | $89,074").
"""

from __future__ import annotations

import bisect
import re
from collections import Counter

CURRENCY = frozenset({"$", "€", "£", "¥", "US$", "(", "$(", "($"})
TRAILERS = re.compile(r"^(?:\)|%|\)%|%\)|\)\s*%)$")
MAX_SPAN = 50
_DIGIT = re.compile(r"\d")
_LETTER = re.compile(r"[A-Za-z]")
_FOOTNOTE = re.compile(r"\(\d{1,2}\)|\([a-z]\)")
_HEADING_VALUE = re.compile(  # years and dates head columns; they do not define them
    r"^(?:fiscal\s+)?(?:19|20)\d\d$"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s",
    re.I,
)


def is_figure(text: str) -> bool:
    """A cell holding a figure ("(11)" is one; the mark in "Programs (1)" is a footnote)."""
    if _LETTER.search(text):
        text = _FOOTNOTE.sub("", text)
    return bool(_DIGIT.search(text))


def is_value(text: str) -> bool:
    """A figure that is a value, not a year or date heading a column."""
    return is_figure(text) and not _HEADING_VALUE.search(text)

GridCell = list  # [position, span, text]


def _glue(row: list[GridCell]) -> None:
    """Glue currency signs to the next figure and closing marks to the previous one."""
    filled = [cell for cell in row if cell[2]]
    for k, cell in enumerate(filled):
        text = cell[2]
        if text in CURRENCY and k + 1 < len(filled):  # "$" + "(" + "1,234" -> "$(1,234"
            filled[k + 1][2] = text + filled[k + 1][2]
            cell[2] = ""
        elif TRAILERS.match(text) and k and filled[k - 1][2]:
            filled[k - 1][2] += text
            cell[2] = ""


def _positions(cells: list[tuple[str, int]]) -> list[GridCell]:
    row, pos = [], 0
    for text, span in cells:
        span = max(1, min(span, MAX_SPAN))
        row.append([pos, span, text])
        pos += span
    return row


def _column_of(pos: int, span: int, columns: list[int]) -> int:
    """Index of the first kept column under a cell, else of the nearest kept column (to
    the right on a tie: a heading printed over a "$" cell heads the figure after it)."""
    k = bisect.bisect_left(columns, pos)
    if k < len(columns) and columns[k] < pos + span:
        return k
    if k == len(columns) or (k and pos - columns[k - 1] < columns[k] - pos):
        return k - 1
    return k


def grid_rows(rows: list[list[tuple[str, int]]]) -> list[list[str]]:
    """Rows of (text, colspan) cells -> rows of column-aligned texts ("" for a blank
    cell; trailing blanks dropped; empty rows dropped)."""
    placed = [_positions(cells) for cells in rows]
    for row in placed:
        _glue(row)
    filled = Counter(pos for row in placed for pos, span, text in row if text and span == 1)
    values = {pos for row in placed for pos, span, text in row
              if pos and span == 1 and is_value(text)}  # "ITEM 1." labels define none
    kept = {0} | values | {pos for pos, n in filled.items() if n >= 2}
    columns = sorted(kept if values else {pos for row in placed for pos, _, t in row if t})
    out: list[list[str]] = []
    for row in placed:
        slots = _slots(row, columns)
        if slots:
            out.append([slots.get(k, "") for k in range(max(slots) + 1)])
    return out


def _slots(row: list[GridCell], columns: list[int]) -> dict[int, str]:
    """Column index -> text for one row. A heading row whose cells would share a column
    (headings offset from their figures) is laid out one heading per column, in order."""
    cells = [(pos, span, text) for pos, span, text in row if text]
    slots: dict[int, str] = {}
    clash = False
    for pos, span, text in cells:
        k = _column_of(pos, span, columns)
        clash = clash or k in slots
        slots[k] = f"{slots[k]} {text}" if k in slots else text
    heads = [text for pos, _, text in cells if pos > 0]
    if clash and not any(is_value(t) for _, _, t in cells) and len(heads) == len(columns) - 1:
        slots = {k: text for k, text in enumerate(heads, start=1)}
        if cells[0][0] == 0:
            slots[0] = cells[0][2]
    return slots
