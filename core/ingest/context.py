"""Where a chunk sits, in the filing's words: ``Chunk.context``.

A table piece (a continuation piece as much as the first) gets its table's caption lines
and column headings, so "Net income | $93,736 | $96,995" is still read under "Consolidated
Statements of Operations (In millions) | 2024 | 2023". A text chunk gets the nearest
sub-heading before it inside its section: a short title-case line standing on its own
("Gross Margin", "Liquidity and Capital Resources"), or "" when there is none.
"""

from __future__ import annotations

import bisect
import re

from core.ingest.html_grid import is_value
from core.ingest.text import is_furniture

MAX_CONTEXT = 300
MAX_HEADINGS = 150  # of MAX_CONTEXT, for column headings
MAX_HEADING_ROWS = 3
CAPTION_LINE = 160  # longer caption "lines" are prose
LOOK_BACK_LINES = 6
LOOK_BACK_CHARS = 800
_ITEM_OR_PART = re.compile(r"^(?:part\s+[ivx]+|items?\s+\d)", re.I)
_END_PUNCT = (".", ",", ";", ":", "?", "!")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’&-]*")
SUBHEADING_MAX = 80
TITLE_SHARE = 0.6


def _is_row(line: str) -> bool:
    return " | " in line or line.startswith("| ")


def _is_heading_row(line: str) -> bool:
    cells = [c.strip() for c in line.split("|")]
    return not any(is_value(c) for c in cells[1:])


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def _lines_before(text: str, at: int, floor: int) -> list[str]:
    """Short non-empty lines just above ``at`` (nearest first), down to ``floor``: up to
    ``LOOK_BACK_LINES`` lines, stopping at prose or at another table's figures."""
    out: list[str] = []
    for line in reversed(text[max(floor, at - LOOK_BACK_CHARS) : at].split("\n")):
        line = line.strip()
        if not line:
            continue
        if line.endswith(":"):  # "Current assets:", "...were as follows (in millions):"
            continue
        prose = len(line) > CAPTION_LINE or (len(line) > 80 and line.endswith("."))
        if prose or (_is_row(line) and not _is_heading_row(line)):
            break
        out.append(line)
        if len(out) == LOOK_BACK_LINES:
            break
    return out


def table_context(text: str, start: int, end: int, floor: int = 0) -> str:
    """Title/caption lines and heading rows of the table spanning ``text[start:end]`` (its
    span starts at its caption), looking up to a few lines above it, not below ``floor``."""
    body = text[start:end].split("\n")
    first_row = next((i for i, line in enumerate(body) if _is_row(line.strip())), len(body))
    row_at = start + sum(len(line) + 1 for line in body[:first_row])
    above = _lines_before(text, row_at, floor)[::-1]
    captions = [ln for ln in above if not _is_row(ln)]
    heads = [ln for ln in above if _is_row(ln)]
    for line in body[first_row:]:
        line = line.strip()
        if not line or not _is_row(line):
            continue
        if not _is_heading_row(line) or len(heads) >= MAX_HEADING_ROWS:
            break
        heads.append(line)
    head_text = _clip("\n".join(heads[:MAX_HEADING_ROWS]), MAX_HEADINGS)
    budget = MAX_CONTEXT - len(head_text) - 1
    kept: list[str] = []
    for line in captions[-3:]:
        room = budget - sum(len(k) + 1 for k in kept)
        if room <= 10:
            break
        kept.append(_clip(line, room))
    return "\n".join([*kept, head_text]).strip()


def _is_subheading(line: str) -> bool:
    if not (3 <= len(line) <= SUBHEADING_MAX) or not line[0].isupper():
        return False
    if line.endswith(_END_PUNCT) or _is_row(line) or _ITEM_OR_PART.match(line):
        return False
    if "$" in line or "%" in line:  # a cover's security line, a figure
        return False
    if is_furniture(line):
        return False
    words = [w for w in _WORD.findall(line) if len(w) >= 4]
    if not words:
        return False
    titled = sum(w[0].isupper() for w in words)
    return titled >= TITLE_SHARE * len(words)


class Subheadings:
    """Sub-heading lines of a document (outside tables), searchable by offset."""

    def __init__(self, text: str, table_spans: list[tuple[int, int]]):
        self.starts: list[int] = []
        self.lines: list[str] = []
        tables = sorted(table_spans)
        table_starts = [a for a, _ in tables]
        pos = 0
        for line in text.split("\n"):
            k = bisect.bisect_right(table_starts, pos) - 1
            inside = k >= 0 and tables[k][0] <= pos < tables[k][1]
            if not inside and _is_subheading(line.strip()):
                self.starts.append(pos)
                self.lines.append(line.strip())
            pos += len(line) + 1

    def before(self, offset: int, floor: int) -> str:
        """The last sub-heading starting at or before ``offset`` and at or after ``floor``."""
        k = bisect.bisect_right(self.starts, offset) - 1
        if k >= 0 and self.starts[k] >= floor:
            return self.lines[k]
        return ""
