"""Page spans for EDGAR HTML: page breaks found by the HTML walk, printed page numbers.

EDGAR HTML marks a printed page break with ``page-break-before/after: always`` (or
``break-before/after: page``) on an hr, div or p, and older filings with a
``<!-- PAGEBREAK -->`` comment. The walk records each break as the index of the first block
of the new page. Each page's printed number is read from its foot: the last line that is not
a "Table of Contents" link, when it is a bare page label ("23", "Page 23", "- 23 -", "F-7").

Pages are numbered by the printed numbers when they are reliable (most labels agree with a
neighbour, increasing by one per physical page), else by physical count (1, 2, 3, ...).
Pages outside the printed run (an unnumbered cover, "F-" or "S-" pages, an unnumbered
exhibit index) take their physical count; an unlabelled page inside the run is counted on
from the page before it.
"""

from __future__ import annotations

import bisect
import re

from core.ingest.tables import Block
from core.types import Page

PAGE_BREAK = re.compile(r"break-(before|after)\s*:\s*(?:always|page|left|right|recto|verso)", re.I)
COMMENT_BREAK = "PAGEBREAK"
_PLAIN = re.compile(r"^(?:page\s*)?[-–—]?\s*(\d{1,3})\s*[-–—]?$", re.I)
_LABEL = re.compile(r"^(?:[a-z]{1,2}\s*[-–—]\s*\d{1,3}|\(?[ivxlc]{1,6}\)?)$", re.I)
_NAV = re.compile(
    r"^(?:table of contents|index|index to (?:consolidated )?financial statements|"
    r"back to contents|return to (?:top|table of contents))$",
    re.I,
)
FOOT_BLOCKS = 3  # how many trailing blocks of a page may hide the number behind nav links
MIN_RELIABLE = 3  # printed numbers needed before they are trusted
RELIABLE_SHARE = 0.8  # share of plain labels that must agree with a neighbour


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


def footer_label(blocks: list[Block]) -> str | None:
    """The printed page label at the foot of one page's blocks, if any."""
    for kind, text in reversed(blocks[-FOOT_BLOCKS:]):
        if kind != "text":
            return None
        line = text.rsplit("\n", 1)[-1].strip()
        if _NAV.match(line):
            continue
        return line if _PLAIN.match(line) or _LABEL.match(line) else None
    return None


def _plain_number(label: str | None) -> int | None:
    match = _PLAIN.match(label) if label else None
    return int(match.group(1)) if match else None


def _accepted(values: list[int | None]) -> dict[int, int]:
    """Physical index -> printed number, for labels that agree with a labelled neighbour
    (one more per physical page) and keep the numbering increasing."""
    labelled = [(i, v) for i, v in enumerate(values) if v is not None]
    ok: dict[int, int] = {}
    last = 0
    for k, (i, v) in enumerate(labelled):
        agrees = any(
            0 <= k + d < len(labelled) and labelled[k + d][1] - v == labelled[k + d][0] - i
            for d in (-1, 1)
        )
        if agrees and v > last:
            ok[i] = v
            last = v
    return ok


def number_pages(labels: list[str | None]) -> list[int]:
    """Page numbers for pages whose footer labels are ``labels`` (see module docstring)."""
    physical = list(range(1, len(labels) + 1))
    values = [_plain_number(label) for label in labels]
    n_labelled = sum(v is not None for v in values)
    ok = _accepted(values)
    if len(ok) < MIN_RELIABLE or len(ok) < RELIABLE_SHARE * n_labelled:
        return physical
    anchors = sorted(ok)
    numbers: list[int] = []
    for i in range(len(labels)):
        if i in ok:
            numbers.append(ok[i])
            continue
        k = bisect.bisect_left(anchors, i)
        if 0 < k < len(anchors):
            prev, nxt = anchors[k - 1], anchors[k]
            if ok[nxt] - ok[prev] == nxt - prev:  # a gap inside one run: count on
                numbers.append(ok[prev] + i - prev)
                continue
        numbers.append(i + 1)
    return numbers


def page_spans(blocks: list[Block], breaks: list[int], kept: list[int]) -> list[Page]:
    """Page spans in the text assembled from ``blocks[i] for i in kept`` (joined by blank
    lines). ``breaks`` are the block indices where a new page starts; none gives no pages.
    A page left without text (only furniture) gets no span but keeps its place in the count.
    """
    cuts = sorted({b for b in breaks if 0 < b < len(blocks)})
    if not cuts:
        return []
    bounds = [0, *cuts, len(blocks)]
    ranges = list(zip(bounds, bounds[1:], strict=False))
    numbers = number_pages([footer_label(blocks[a:b]) for a, b in ranges])
    starts: list[int] = []
    pos = 0
    for i in kept:
        starts.append(pos)
        pos += len(blocks[i][1]) + 2
    pages: list[Page] = []
    for number, (a, b) in zip(numbers, ranges, strict=True):
        lo, hi = bisect.bisect_left(kept, a), bisect.bisect_left(kept, b)
        if lo < hi:
            end = starts[hi - 1] + len(blocks[kept[hi - 1]][1])
            pages.append(Page(number=number, start=starts[lo], end=end))
    return pages
