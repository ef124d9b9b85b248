"""Running headers and footers of PDF pages: found, removed, and their page labels kept.

Page furniture repeats on every page: a footer that prints the page number ("Apple Inc. |
Q3 2022 Form 10-Q | 19", "Financial Statements | Notes to Financial Statements | 9") and
headers without one ("Apple Inc.", "PART I", "Table of Contents"). Left in, each becomes text
of the page (or a chunk of its own) that ranks for any query naming the company or form.

Only the first and last ``EDGE_LINES`` non-empty lines of a page are looked at. A line is
furniture when it carries the page's printed label (trusted only when neighbouring pages
agree, see ``page_labels``), or when the same line (digits ignored) sits at that edge of
at least ``REPEAT_SHARE`` of the pages (and at least ``MIN_REPEATS``; never on the cover page,
whose edges may name the company). Lines are removed from
the page's raw text before paragraphs and tables are built, so no chunk carries them.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from core.ingest.page_labels import MAX_LINE_CHARS, accept_labels, label_in_line

EDGE_LINES = 2
REPEAT_SHARE = 0.3
MIN_REPEATS = 3
_DIGITS = re.compile(r"\d+")


def _key(line: str) -> str:
    return _DIGITS.sub("#", " ".join(line.split()).lower())


def _edges(lines: list[str]) -> tuple[list[int], list[int]]:
    """Indices of the first and of the last ``EDGE_LINES`` non-empty lines."""
    filled = [i for i, line in enumerate(lines) if line.strip()]
    top = filled[:EDGE_LINES]
    bottom = [i for i in filled[-EDGE_LINES:] if i not in top]
    return top, bottom


def _label_line(lines: list[str], top: list[int], bottom: list[int]) -> tuple[int, str] | None:
    """The line printing the page label: the lowest footer line that holds one, else a
    header line that is nothing but the label."""
    for i in reversed(bottom):
        label = label_in_line(lines[i])
        if label:
            return i, label
    for i in top:
        label = label_in_line(lines[i])
        bare = " ".join(lines[i].split()).lower().removeprefix("page").strip(" -–—()")
        if label and bare == label.lower():
            return i, label
    return None


def _repeated(pages: list[list[str]], zones: list[tuple[list[int], list[int]]]) -> set[tuple]:
    """(zone, key) pairs repeated at one page edge often enough to be furniture."""
    counts: Counter = Counter()
    for lines, (top, bottom) in zip(pages, zones, strict=True):
        keys = {("top", _key(lines[i])) for i in top} | {("bottom", _key(lines[i])) for i in bottom}
        counts.update(keys)
    need = max(MIN_REPEATS, math.ceil(REPEAT_SHARE * len(pages)))
    return {
        zk for zk, n in counts.items()
        if n >= need and zk[1].count("#") <= 1 and len(zk[1]) <= MAX_LINE_CHARS
    }


def strip_furniture(raws: list[str]) -> tuple[list[str], list[str | None]]:
    """Each page's raw text without its running header/footer lines, and its printed label
    (None when the page prints none or it cannot be trusted)."""
    pages = [raw.split("\n") for raw in raws]
    zones = [_edges(lines) for lines in pages]
    found = [_label_line(lines, *zone) for lines, zone in zip(pages, zones, strict=True)]
    labels = accept_labels([f[1] if f else None for f in found])
    repeated = _repeated(pages, zones)
    out: list[str] = []
    for n, (lines, (top, bottom), hit, label) in enumerate(
        zip(pages, zones, found, labels, strict=True)
    ):
        drop: set[int] = set()
        if n:  # the cover page has no running header: its edges name the company
            drop |= {i for i in top if ("top", _key(lines[i])) in repeated}
            drop |= {i for i in bottom if ("bottom", _key(lines[i])) in repeated}
        if hit and label and hit[1] == label:
            drop.add(hit[0])
        out.append("\n".join(line for i, line in enumerate(lines) if i not in drop))
    return out, labels
