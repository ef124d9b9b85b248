"""Sections from a cross-reference index: filings that print their Items only in an index.

Some filers (Intel's 10-Qs, several banks' 10-Ks) order the report their own way and add a
"Form 10-Q Cross-Reference Index" near the end that maps each Item to printed pages
("Item 1. | Financial Statements | Pages | 4 - | 21"). The only "Item" lines are the index's,
so the usual heading search files the whole report under "Cover". Here the index is parsed
into (Item, printed pages), printed pages are mapped to physical pages through the page
labels, and each physical page goes to the most specific Item that lists it (the fewest
pages; the first listed on a tie); pages listed by no Item continue the Item before them.
Where an Item starts, its boundary moves down to the report's own heading for it when that
page prints one (so several Items sharing a page each get their part).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.foundation.types import Page

_INDEX_HEADING = re.compile(
    r"^[^\n]{0,30}(?:cross[- ]?reference\s+(?:index|sheet|table)|form\s+10-[kq]\s+index)"
    r"[^\n|]{0,20}$", re.I | re.M,
)
_ITEM = re.compile(r"^\s*items?\s+(\d{1,2}[a-c]?)\b", re.I)
_PART = re.compile(r"^\s*part\s+(iv|iii|ii|i)\b", re.I)
_END = re.compile(r"^\s*signatures?\s*$|^\s*exhibit index\s*$", re.I)
_LABEL = r"(?:[A-Z]{1,2}-)?\d{1,3}"
_REFS = rf"{_LABEL}(?:\s*(?:[-–—]|to|through|,|and)\s*{_LABEL})*"
_PAGE_WORD = re.compile(rf"\bpages?\b\s*:?\s*(?P<refs>{_REFS})", re.I)
_TRAILING = re.compile(rf"(?<![\w.,$-])(?P<refs>{_REFS})\s*$")
_ONE = re.compile(rf"({_LABEL})(?:\s*(?:[-–—]|to|through)\s*({_LABEL}))?")
_WORD = re.compile(r"[a-z]{4,}")
INDEX_CHARS = 8000  # an index runs one or two pages
MIN_ENTRIES = 3
MAX_RANGE = 300
HEADING_CHARS = 100
ALIASES = {  # headings filers use for an Item beside its official title
    ("II", "2"): "issuer purchases repurchases",
}


@dataclass
class Entry:
    """One Item of the index: its key, the printed pages listed for it, its words."""

    part: str | None
    item: str
    labels: list[str] = field(default_factory=list)
    words: set[str] = field(default_factory=set)


@dataclass
class CrossIndex:
    start: int
    end: int
    entries: list[Entry]


def _expand(refs: str) -> list[str]:
    out: list[str] = []
    for first, last in _ONE.findall(refs):
        prefix = first[: first.index("-") + 1] if "-" in first else ""
        a = int(first[len(prefix) :])
        tail = last[len(prefix) :] if last.startswith(prefix) else ""
        b = int(tail) if tail.isdigit() else a
        if a <= b <= a + MAX_RANGE:
            out.extend(f"{prefix}{n}" for n in range(a, b + 1))
    return out


def _refs(line: str) -> list[str]:
    flat = " ".join(line.replace("|", " ").split())
    found = _PAGE_WORD.search(flat) or _TRAILING.search(flat)
    return _expand(found.group("refs")) if found else []


def words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower().replace("’", "'")))


def find_index(text: str) -> CrossIndex | None:
    """The cross-reference index with at least ``MIN_ENTRIES`` Items listing pages."""
    for heading in _INDEX_HEADING.finditer(text):
        start = heading.end()
        entries: list[Entry] = []
        part: str | None = None
        pos = start
        for line in text[start : start + INDEX_CHARS].split("\n"):
            pos += len(line) + 1
            if _END.match(line):
                break
            found_part, found_item = _PART.match(line), _ITEM.match(line)
            if found_part and not found_item:
                part = found_part.group(1).upper()
                continue
            if found_item:
                entries.append(Entry(part, found_item.group(1).upper()))
                line = line[found_item.end() :]  # "Item 4" names no page 4
            if entries:
                entries[-1].labels.extend(_refs(line))
                entries[-1].words |= words(line)
        listed = [e for e in entries if e.labels]
        if len(listed) >= MIN_ENTRIES:
            return CrossIndex(heading.start(), min(pos, len(text)), entries)
    return None


def chain_in_index(positions: list[int], index: CrossIndex) -> bool:
    """True when most Item headings found elsewhere are in fact the index's own lines."""
    inside = sum(index.start <= p < index.end for p in positions)
    return not positions or inside >= 0.6 * len(positions)


def _owners(entries: list[Entry], pages: list[Page]) -> list[int | None]:
    """Per physical page (index into ``pages``), the entry owning it (see module doc)."""
    where: dict[str, int] = {}
    for k, page in enumerate(pages):
        if page.label and page.label not in where:
            where[page.label] = k
    covered = [{where[lb] for lb in e.labels if lb in where} for e in entries]
    owners: list[int | None] = []
    for k in range(len(pages)):
        mine = [i for i, pgs in enumerate(covered) if k in pgs]
        if mine:
            owners.append(min(mine, key=lambda i: (len(covered[i]), i)))
        else:
            owners.append(owners[-1] if owners else None)
    return owners


def _heading_at(text: str, lo: int, hi: int, wanted: set[str]) -> int | None:
    """Offset of the first short line in ``text[lo:hi]`` made only of ``wanted`` words."""
    pos = lo
    for line in text[lo:hi].split("\n"):
        found = words(line)
        if found and len(line) <= HEADING_CHARS and found <= wanted:
            return pos
        pos += len(line) + 1
    return None


def index_spans(
    text: str, pages: list[Page], index: CrossIndex, titles: list[set[str]]
) -> list[tuple[int, int, int]]:
    """(entry, start, end) spans from the first owned page to the end of the text;
    ``titles[i]`` holds the words of entry i's headings. Empty when no listed page exists."""
    owners = _owners(index.entries, pages)
    owned = {o for o in owners if o is not None}
    cuts: dict[int, int] = {}  # offset -> entry starting there
    for k, owner in enumerate(owners):
        if owner is None or (k and owners[k - 1] == owner):
            continue
        page = pages[k]
        at = _heading_at(text, page.start, page.end, titles[owner])
        cuts.setdefault(page.start if at is None else at, owner)
        for i, entry in enumerate(index.entries):  # Items sharing this page, e.g. one page
            if i not in owned and page.label in entry.labels:  # each for four Items
                at = _heading_at(text, page.start, page.end, titles[i])
                if at is not None:
                    cuts.setdefault(at, i)
    ordered = sorted(cuts.items())
    spans = []
    for n, (at, entry) in enumerate(ordered):
        end = ordered[n + 1][0] if n + 1 < len(ordered) else len(text)
        spans.append((entry, at, end))
    return [s for s in spans if s[2] > s[1]]
