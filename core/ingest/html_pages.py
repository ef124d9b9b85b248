"""Page spans for EDGAR HTML: page breaks found by the HTML walk, printed page labels.

EDGAR HTML marks a printed page break with ``page-break-before/after: always`` (or
``break-before/after: page``) on an hr, div or p, and older filings with a
``<!-- PAGEBREAK -->`` comment. The walk records each break as the index of the first block
of the new page. Pages are numbered physically (1, 2, 3, ... in break order), like a PDF of
the filing. Each page's printed label is read from its foot: the last line that is not a
"Table of Contents" link, when it is a bare page label ("23", "Page 23", "- 23 -", "F-7") or
a short running footer ending in one ("Apple Inc. | 2024 Form 10-K | 5"); labels are only
trusted when neighbouring pages agree (``page_labels``). The block carrying a trusted label
is page furniture and is left out of the text.
"""

from __future__ import annotations

import bisect
import re

from core.foundation.types import Page
from core.ingest.page_labels import MAX_LINE_CHARS, accept_labels, label_in_line
from core.ingest.tables import Block

PAGE_BREAK = re.compile(r"break-(before|after)\s*:\s*(?:always|page|left|right|recto|verso)", re.I)
COMMENT_BREAK = "PAGEBREAK"
_NAV = re.compile(
    r"^(?:table of contents|index|index to (?:consolidated )?financial statements|"
    r"back to contents|return to (?:top|table of contents))$",
    re.I,
)
FOOT_BLOCKS = 3  # how many trailing blocks of a page may hide the number behind nav links


def break_sides(style: str | None) -> tuple[bool, bool]:
    """(break before, break after) declared by an inline style."""
    before = after = False
    if not style or ("reak" not in style and "REAK" not in style):  # fast path
        return before, after
    for match in PAGE_BREAK.finditer(style):
        if match.group(1).lower() == "before":
            before = True
        else:
            after = True
    return before, after


def footer_label(blocks: list[Block]) -> tuple[int, str] | None:
    """(index in ``blocks``, label) of the printed page label at the foot of one page's
    blocks, if any. A table counts only when it is a single short row (a footer table)."""
    for k in range(len(blocks) - 1, max(-1, len(blocks) - 1 - FOOT_BLOCKS), -1):
        kind, text = blocks[k]
        if kind != "text" and ("\n" in text or len(text) > MAX_LINE_CHARS):
            return None
        line = text.rsplit("\n", 1)[-1].strip()
        if _NAV.match(line):
            continue
        label = label_in_line(line)
        return (k, label) if label else None
    return None


def page_ranges(n_blocks: int, breaks: list[int]) -> list[tuple[int, int]]:
    """(first block, end block) of each page; no breaks give no pages."""
    cuts = sorted({b for b in breaks if 0 < b < n_blocks})
    if not cuts:
        return []
    bounds = [0, *cuts, n_blocks]
    return list(zip(bounds, bounds[1:], strict=False))


def page_labels(blocks: list[Block], ranges: list[tuple[int, int]]) -> tuple[list, set[int]]:
    """Trusted printed label of each page, and the indices of the blocks printing them."""
    found = [footer_label(blocks[a:b]) for a, b in ranges]
    labels = accept_labels([f[1] if f else None for f in found])
    furniture = set()
    for (a, _), hit, label in zip(ranges, found, labels, strict=True):
        if hit and label == hit[1] and len(blocks[a + hit[0]][1]) <= MAX_LINE_CHARS:
            furniture.add(a + hit[0])
    return labels, furniture


def page_spans(
    blocks: list[Block], ranges: list[tuple[int, int]], kept: list[int], labels: list
) -> list[Page]:
    """Page spans in the text assembled from ``blocks[i] for i in kept`` (joined by blank
    lines). A page left without text (only furniture) gets no span but keeps its place in
    the count.
    """
    if not ranges:
        return []
    starts: list[int] = []
    pos = 0
    for i in kept:
        starts.append(pos)
        pos += len(blocks[i][1]) + 2
    pages: list[Page] = []
    for number, ((a, b), label) in enumerate(zip(ranges, labels, strict=True), start=1):
        lo, hi = bisect.bisect_left(kept, a), bisect.bisect_left(kept, b)
        if lo < hi:
            end = starts[hi - 1] + len(blocks[kept[hi - 1]][1])
            pages.append(Page(number=number, start=starts[lo], end=end, label=label))
    return pages
