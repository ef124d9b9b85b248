"""Where each fact is printed: the chunk and page holding a table row, and the table fact
an XBRL fact is printed as.

Chunk offsets are exact offsets into ``parsed.text``; a row belongs to the chunk whose
[start, end) holds it (overlapping text chunks: the first that holds the whole row). An
XBRL fact is printed as a table fact with the same magnitude (tables print an expense
"(262)" that XBRL tags as 262 with no sign), the same period end (within a few days: a
bare-year column's end is the fiscal year's approximate end) and the same kind and length
of period; among several, a statement table's row wins, then the first in reading order.
A dimensional fact (a segment's) is printed in a row or column that names its member: when
the filing prints the member's name (``members.printed_names``), only such a row links;
a segment's, product line's or region's row or column is taken before an entity's line of
the same figure (a row of its own kind first), and an
entity total never links to a row whose column is a member. The links are returned: a
member no heading names is named by the row its figures are printed in
(``members.finish_names``).
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from datetime import date

from core.foundation.types import Chunk, Fact, Page
from core.ingest.facts.members import axis_kind, entries, names_row

END_DAYS = 10


def chunk_finder(chunks: list[Chunk]):
    """``find(offset, length) -> Chunk | None``."""
    ordered = sorted(chunks, key=lambda c: (c.start, c.index))
    starts = [c.start for c in ordered]

    def find(offset: int, length: int = 1) -> Chunk | None:
        k = bisect.bisect_right(starts, offset)
        holding = [c for c in ordered[max(0, k - 4):k] if c.start <= offset < c.end]
        whole = [c for c in holding if offset + length <= c.end]
        pick = whole or holding
        return pick[0] if pick else None

    return find


def page_finder(pages: list[Page]):
    ordered = sorted(pages, key=lambda p: p.start)
    starts = [p.start for p in ordered]

    def find(offset: int) -> int | None:
        k = bisect.bisect_right(starts, offset) - 1
        if k >= 0 and offset <= ordered[k].end:
            return ordered[k].number
        return None

    return find


def _key(value: float) -> float:
    return round(abs(value), 2)


def _close(a: str | None, b: str | None) -> bool:
    if not a or not b:
        return False
    return abs((date.fromisoformat(a) - date.fromisoformat(b)).days) <= END_DAYS


def _kind(row: Fact) -> str:
    """The kind of a table's member row or column ('segment', 'geography', ...)."""
    found = entries(row.dims)
    return axis_kind(found[0][0]) if found else "other"


def link_xbrl(tagged: list[Fact], table: list[Fact], names: dict[str, str] | None = None
              ) -> dict[int, Fact]:
    """Give each XBRL fact the chunk, page, row, column and label of the table fact it is
    printed as, and each matched table fact its concept (in place); returns index in
    ``tagged`` -> that table fact. ``names``: members' printed names (a member named there
    links only to a row naming it; one not named links to a member's row or column before
    an entity's line)."""
    names = names or {}
    links: dict[int, Fact] = {}
    by_value: dict[float, list[int]] = defaultdict(list)
    for i, f in enumerate(table):
        if f.value and f.unit != "percent":
            by_value[_key(f.value)].append(i)
    for n, x in enumerate(tagged):
        if not x.value:
            continue
        best = None
        named = bool(x.dims) and any(m in names for _, m in entries(x.dims))
        kinds = {axis_kind(a) for a, _ in entries(x.dims)} - {"other"}  # a segment's ...
        for i in by_value.get(_key(x.value), []):
            t = table[i]
            if t.period_type != x.period_type or not _close(t.end, x.end):
                continue
            if x.period_type == "duration" and t.months and x.months and t.months != x.months:
                continue
            if not x.dims and t.dims:
                continue
            if named and not names_row(x, names, t):
                continue
            rank = (bool(kinds) and not t.dims, bool(kinds) and _kind(t) not in kinds | {"other"},
                    t.statement is None, bool(t.concept), i)
            if best is None or rank < best[0]:
                best = (rank, i)
        if best is None:
            continue
        t = links[n] = table[best[1]]
        x.chunk_id, x.page, x.row, x.column = t.chunk_id, t.page, t.row, t.column
        x.label, x.statement = t.label, t.statement
        if not x.dims and t.concept is None:
            t.concept = x.concept
    return links
