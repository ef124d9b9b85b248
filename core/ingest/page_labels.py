"""Printed page labels ("5", "F-7", "ii") read from page headers and footers.

A page's candidate label is a page number printed alone on a line ("23", "Page 23",
"- 23 -", "F-7", "ii") or at the end of a short running footer ("Apple Inc. | 2024 Form
10-K | 5", "Financial Statements | Notes | 9"). A candidate is only trusted when a nearby
labelled page agrees with it (same prefix, one more per physical page), so a table row or
a table-of-contents line that happens to end a page with a number is not taken for one.
Unlabelled pages inside an agreeing run are counted on ("3" between "2" and "4").
"""

from __future__ import annotations

import re

MAX_LINE_CHARS = 120  # a running footer is short; prose ending in a number is not one
NEIGHBOUR_PAGES = 3  # how far a confirming label may be
_DASHED = re.compile(r"^(?:page\s*)?[-–—]\s*(\d{1,3})\s*[-–—]$", re.I)
_ROMAN = re.compile(r"^\(?(?:page\s+)?([ivxlc]{1,6})\)?$", re.I)
_AT_END = re.compile(
    r"(?:^|[\s|])(?:page\s+)?(?P<label>(?:[A-Z]{1,2}\s?[-–—]\s?)?\d{1,3})$", re.I
)
_PREFIXED = re.compile(r"^([A-Z]{1,2})\s?[-–—]\s?(\d{1,3})$", re.I)
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}


def _roman_value(text: str) -> int | None:
    total, prev = 0, 0
    for ch in reversed(text.lower()):
        value = _ROMAN_VALUES[ch]
        total += -value if value < prev else value
        prev = max(prev, value)
    return total if total > 0 and _to_roman(total) == text.lower() else None


def _to_roman(value: int) -> str:
    out = ""
    for number, sym in ((100, "c"), (90, "xc"), (50, "l"), (40, "xl"), (10, "x"), (9, "ix"),
                        (5, "v"), (4, "iv"), (1, "i")):
        while value >= number:
            out, value = out + sym, value - number
    return out


def label_in_line(line: str) -> str | None:
    """The page label a header/footer line prints, normalised ("F-7", "23", "ii"), or None."""
    line = " ".join(line.replace("|", " | ").split()).strip(" |")
    if not line or len(line) > MAX_LINE_CHARS:
        return None
    found = _DASHED.match(line)
    if found:
        return found.group(1)
    found = _ROMAN.match(line)
    if found and _roman_value(found.group(1)):
        return found.group(1).lower()
    found = _AT_END.search(line)
    if not found:
        return None
    label = found.group("label")
    prefixed = _PREFIXED.match(label)
    return f"{prefixed.group(1).upper()}-{prefixed.group(2)}" if prefixed else label


def _parse(label: str) -> tuple[str, int]:
    """(kind, value): ("", 23), ("F-", 7), ("roman", 2)."""
    if label.isdigit():
        return "", int(label)
    prefixed = _PREFIXED.match(label)
    if prefixed:
        return prefixed.group(1).upper() + "-", int(prefixed.group(2))
    return "roman", _roman_value(label) or 0


def _format(kind: str, value: int) -> str:
    return _to_roman(value) if kind == "roman" else f"{kind}{value}"


def accept_labels(candidates: list[str | None]) -> list[str | None]:
    """Per physical page, the printed label when a neighbour confirms it (see module doc)."""
    parsed = [(_parse(c) if c else None) for c in candidates]
    labelled = [i for i, p in enumerate(parsed) if p is not None and p[1] > 0]
    accepted: dict[int, tuple[str, int]] = {}
    for k, i in enumerate(labelled):
        kind, value = parsed[i]
        for j in labelled[max(0, k - 2) : k] + labelled[k + 1 : k + 3]:
            if abs(j - i) <= NEIGHBOUR_PAGES and parsed[j] == (kind, value + j - i):
                accepted[i] = (kind, value)
                break
    out: list[str | None] = [None] * len(candidates)
    anchors = sorted(accepted)
    for i in anchors:
        out[i] = _format(*accepted[i])
    for a, b in zip(anchors, anchors[1:], strict=False):
        (kind_a, va), (kind_b, vb) = accepted[a], accepted[b]
        if kind_a == kind_b and vb - va == b - a:
            for k in range(a + 1, b):
                out[k] = _format(kind_a, va + k - a)
    return out
