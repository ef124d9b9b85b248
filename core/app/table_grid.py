"""A table chunk's text read back as a grid: the caption lines before it, its column
headings and its rows.

Ingest writes a table as one line per row with cells joined by ``" | "`` (prose lines
around it kept: a caption such as "(In millions)" or the statement's title). The
dashboard and the HTML report show it as a grid again; ``span`` (character offsets in the
chunk's text, e.g. the cited row) tells which rows to mark.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_FIGURE = re.compile(r"^[\s$€£(]*[-–]?[\d,.]+\)?\s*%?$")  # 26,974 · $ (1,234) · 12.5%
_YEAR = re.compile(r"^(?:FY\s*)?(?:19|20)\d\d$")


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


def table_grid(text: str, span: tuple[int, int] | None = None) -> Grid | None:
    """The longest run of pipe-separated lines of ``text`` as a grid (None when the text has
    fewer than two such lines)."""
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
    table = [_cells(line) for line in lines[first:end]]
    width = max(len(r) for r in table)
    table = [r + [""] * (width - len(r)) for r in table]
    has_header = _is_header(table[0])
    header = _unique(table[0] if has_header else [""] * width)
    body = table[1:] if has_header else table
    body_first = first + (1 if has_header else 0)
    marked = []
    if span:
        for k in range(len(body)):
            lo = offsets[body_first + k]
            hi = lo + len(lines[body_first + k])
            if lo < span[1] and span[0] < hi:
                marked.append(k)
    caption = [line.strip() for line in lines[:first] if line.strip()]
    after = [line.strip() for line in lines[end:] if line.strip()]
    return Grid(caption=caption, header=header, rows=body, marked=marked, after=after)
