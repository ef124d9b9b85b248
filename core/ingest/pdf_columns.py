"""Column positions for PDF table rows: a blank cell keeps its place.

In pypdf's layout text a row's cells are runs of characters separated by three or more
spaces, at their printed x position. Splitting on the gaps loses blank cells: a row with no
value for 2023 shifts its 2022 figure under the 2023 heading. Figures are right-aligned in
filings, so the columns of a table block are found from the right edges of its value cells
(edges within ``EDGE_TOLERANCE`` characters are one column); each cell then goes to its
column and a blank one stays blank ("Total |  | $89,074"). Headings, centred above their
column, go to the column they overlap most. "$" cells are glued to the figure after them and
")" / "%" cells to the one before, so "(1,234)" and "36%" stay whole.

When the columns are ambiguous (two cells of one row on one edge, or a cell over no column)
the block keeps the plain split, as before.
"""

from __future__ import annotations

import re

from core.ingest.html_grid import CURRENCY, TRAILERS, is_figure, is_value
from core.ingest.text import clean_inline

EDGE_TOLERANCE = 3
LABEL_MARGIN = 12  # a first cell starting this close to the left edge is the label (indented)
_CELL = re.compile(r"\S+(?: {1,2}\S+)*")

Cell = tuple[int, int, str]  # (start, end, text) in the layout line


def cells_of(line: str) -> list[Cell]:
    """Cells of one layout line with their positions, "$" / ")" / "%" glued to figures."""
    raw = [(m.start(), m.end(), clean_inline(m.group())) for m in _CELL.finditer(line)]
    out: list[Cell] = []
    pending: Cell | None = None
    for start, end, text in raw:
        if text in CURRENCY:
            pending = (start, end, (pending[2] if pending else "") + text)
            continue
        if TRAILERS.match(text) and out and pending is None:
            s0, _, t0 = out[-1]
            out[-1] = (s0, end, t0 + text)
            continue
        if pending:  # the cell keeps the figure's start: columns are where figures are
            text, pending = pending[2] + text, None
        out.append((start, end, text))
    if pending:
        out.append(pending)
    return out


def _columns(rows: list[list[Cell]], left: int) -> list[tuple[int, int]] | None:
    """(leftmost start, right edge) of each value column, from figure cells' right edges."""
    edges = sorted(
        (end, start) for row in rows for start, end, text in row
        if start > left + LABEL_MARGIN and is_value(text)
    )
    columns: list[list[int]] = []  # [min start, min end, max end]
    for end, start in edges:
        if columns and end - columns[-1][2] <= EDGE_TOLERANCE:
            col = columns[-1]
            col[0], col[2] = min(col[0], start), end
        else:
            columns.append([start, end, end])
    return [(c[0], c[2]) for c in columns] or None


def _place(cell: Cell, columns: list[tuple[int, int]]) -> int | None:
    """Index of the column a value cell belongs to: by its right edge, else by overlap."""
    start, end, _ = cell
    for k, (_, right) in enumerate(columns):
        if abs(end - right) <= EDGE_TOLERANCE:
            return k
    overlaps = [min(end, right) - max(start, lo) for lo, right in columns]
    best = max(range(len(columns)), key=lambda k: overlaps[k])
    return best if overlaps[best] > 0 else None


def _nearest(cell: Cell, columns: list[tuple[int, int]]) -> int:
    middle = (cell[0] + cell[1]) / 2
    return min(range(len(columns)), key=lambda k: abs((columns[k][0] + columns[k][1]) / 2
                                                       - middle))


def align(lines: list[str]) -> list[str] | None:
    """" | "-joined rows with blank cells kept in place, or None when ambiguous."""
    rows = [cells_of(line) for line in lines]
    left = min((row[0][0] for row in rows if row), default=0)
    columns = _columns(rows, left)
    if columns is None:
        return None
    first = columns[0][0]
    out: list[str] = []
    for row in rows:
        n_labels = 0  # leading cells left of every column: the row's label(s)
        while n_labels < len(row) and row[n_labels][1] < first and (
            n_labels or row[0][0] <= left + LABEL_MARGIN or not is_figure(row[0][2])
        ):
            n_labels += 1
        labels = [cell[2] for cell in row[:n_labels]] or [""]
        heading = not any(is_value(cell[2]) for cell in row)  # "June 25, 2022 | Change"
        slots: list[str] | None = [""] * len(columns)
        for cell in row[n_labels:]:
            k = _place(cell, columns)
            if k is None and (heading or not is_figure(cell[2])):  # "—", headings: centred
                k = _nearest(cell, columns)
            if k is None or slots[k]:
                if not heading:
                    return None
                slots = None  # a heading row that does not fit: keep it as printed
                break
            slots[k] = cell[2]
        if slots is None:
            out.append(" | ".join(cell[2] for cell in row))
            continue
        while slots and not slots[-1]:
            slots.pop()
        out.append(" | ".join([*labels, *slots]).strip())
    return out
