"""Find the Items of a 10-K or 10-Q, skipping the table of contents.

Every Item title appears first in the table of contents (and again in cross-references), so
each line that starts like an Item heading is only a candidate. Among them we choose the
chain, in document order, whose Items strictly follow the form's order and which scores best:
one point per Item, one more when substantial text follows it before the next candidate, half
a point for heading cues (own block, upper case). TOC entries sit a few characters apart, so
the chain of real headings wins; on a tie the later occurrence wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.foundation.types import Page, Section
from core.ingest.items import TEN_K, TEN_K_ORDER, TEN_Q, TEN_Q_ORDER, pick_title
from core.ingest.xref import ALIASES, Entry, chain_in_index, find_index, index_spans
from core.ingest.xref import words as xref_words

_ITEM_LINE = re.compile(
    r"^[ \t]*(?:part[ \t]+(?P<part>iv|iii|ii|i)\b[ \t,.:\-–—|]*)?items?[ \t]+"
    r"(?P<a>\d{1,2}[a-c]?)(?:\(t\))?"
    r"(?:[ \t]*(?:,|and|&|through|to)[ \t]*(?P<b>\d{1,2}[a-c]?)(?:\(t\))?)?"
    r"(?P<after>[^\n]*)",
    re.I | re.M,
)
# pypdf sometimes glues a heading to the previous sentence: "...in Asia.Item 3.\nLegal ..."
_GLUED_ITEM = re.compile(
    r"(?<=[.”\")])items?[ \t]+(?P<a>\d{1,2}[a-c]?)(?P<b>)(?P<part>)\.[ \t]*$", re.I | re.M
)
_AFTER_OK = re.compile(r"^(?:[ \t]*[.:\-–—|](?!\d)|[ \t]*$|[ \t]+[A-Z\[“\"'])")  # not 8-K "2.02"
_PART_LINE = re.compile(
    r"^[ \t]*part[ \t]+(?P<part>iv|iii|ii|i)\b(?![^\n]*\bitem)[^\n]{0,80}$", re.I | re.M
)
SUBSTANTIAL_CHARS = 400
_COVER_CUES = re.compile(r"securities and exchange commission|form\s+10-[kq]", re.I)


@dataclass
class _Candidate:
    pos: int
    end: int
    items: tuple[str, ...]
    part: str | None
    heading: str
    first: int = 0
    last: int = 0
    weight: float = 1.0


def _part_at(parts: list[tuple[int, str]], pos: int) -> str | None:
    current = None
    for p, name in parts:
        if p > pos:
            break
        current = name
    return current


def _candidates(text: str, ten_q: bool) -> list[_Candidate]:
    parts = [(m.start(), m.group("part").upper()) for m in _PART_LINE.finditer(text)]
    found: list[_Candidate] = []
    matches = [*_ITEM_LINE.finditer(text), *_GLUED_ITEM.finditer(text)]
    for m in sorted(matches, key=lambda m: m.start()):
        after = m.group("after") if m.re is _ITEM_LINE else ""
        if not _AFTER_OK.match(after):
            continue
        items = tuple(x.upper() for x in (m.group("a"), m.group("b")) if x)
        heading = after.strip(" \t.:-–—|")
        if not heading:  # "Item 1A." alone: the title is on the next line
            nxt = text[m.end() + 1 : text.find("\n", m.end() + 1)]
            heading = nxt[:200] if 0 < len(nxt) < 200 else ""
        part = (m.group("part") or "").upper() or _part_at(parts, m.start())
        found.append(_Candidate(m.start(), m.end(), items, part, heading))
    keep: list[_Candidate] = []
    for cand in found:
        if ten_q:
            order = _ten_q_order(cand)
            if order is None:
                continue
            cand.first, cand.last = order
        else:
            if any(i not in TEN_K_ORDER for i in cand.items):
                continue
            cand.first, cand.last = TEN_K_ORDER[cand.items[0]], TEN_K_ORDER[cand.items[-1]]
        keep.append(cand)
    return keep


def _ten_q_order(cand: _Candidate) -> tuple[int, int] | None:
    part = cand.part if cand.part in ("I", "II") else None
    if part is None:
        part = "II" if cand.items[0] in ("1A", "5", "6") else "I"
        cand.part = part
    keys = [(part, i) for i in cand.items]
    if any(k not in TEN_Q_ORDER for k in keys):
        return None
    return TEN_Q_ORDER[keys[0]], TEN_Q_ORDER[keys[-1]]


def _weigh(text: str, cands: list[_Candidate]) -> None:
    for i, cand in enumerate(cands):
        nxt = cands[i + 1].pos if i + 1 < len(cands) else len(text)
        cand.weight = 1.0
        if nxt - cand.end >= SUBSTANTIAL_CHARS:
            cand.weight += 1.0
        if cand.pos == 0 or text[max(0, cand.pos - 2) : cand.pos] == "\n\n":
            cand.weight += 0.5
        label = text[cand.pos : cand.end]
        letters = [c for c in label if c.isalpha()]
        if len(letters) > 8 and all(c.isupper() for c in letters):
            cand.weight += 0.5


def _best_chain(cands: list[_Candidate]) -> list[_Candidate]:
    """Highest-weight chain with strictly increasing Item order; later wins ties."""
    n = len(cands)
    score = [0.0] * n
    prev = [-1] * n
    for i, cand in enumerate(cands):
        best, best_j = 0.0, -1
        for j in range(i):
            if cands[j].last < cand.first and score[j] >= best:
                best, best_j = score[j], j
        score[i], prev[i] = best + cand.weight, best_j
    if not n:
        return []
    i = max(range(n), key=lambda k: (score[k], k))
    chain: list[_Candidate] = []
    while i >= 0:
        chain.append(cands[i])
        i = prev[i]
    return chain[::-1]


def item_title(items: tuple[str, ...], part: str | None, heading: str, ten_q: bool) -> str:
    """'Item 1A. Risk Factors' (10-K) or 'Part II — Item 1A. Risk Factors' (10-Q)."""
    if ten_q:
        names = [pick_title(TEN_Q[(part or "I", i)], heading) for i in items]
    else:
        names = [pick_title(TEN_K[i], heading) for i in items]
    label = f"Items {items[0]} and {items[1]}" if len(items) > 1 else f"Item {items[0]}"
    title = f"{label}. {' and '.join(dict.fromkeys(names))}"
    return f"Part {part} — {title}" if ten_q else title


def _title(cand: _Candidate, ten_q: bool) -> str:
    return item_title(cand.items, cand.part, cand.heading, ten_q)


def _start_with_part_line(text: str, cand: _Candidate, floor: int) -> int:
    """Move a section start up to a "PART II" line right above its first Item."""
    window = text[max(floor, cand.pos - 200) : cand.pos].rstrip("\n")
    last = window.split("\n")[-1]
    if last and _PART_LINE.match(last):
        return max(floor, cand.pos - 200) + len(window) - len(last)
    return cand.pos


def _front(text: str, start: int) -> list[Section]:
    """The "Cover" (or "Preamble") section before the first Item, if it holds text."""
    if not text[:start].strip():
        return []
    name = "Cover" if _COVER_CUES.search(text[:start]) else "Preamble"
    return [Section(title=name, start=0, end=start)]


def detect_sections(
    text: str, form_type: str | None = None, pages: list[Page] | None = None
) -> list[Section]:
    """Split text into Item sections (10-K by default, 10-Q when the form says so; other
    forms, whose Items differ, stay one "Document" section).

    Text before the first Item becomes "Cover" (or "Preamble"); without at least two Items
    the whole text is one "Document" section. When the only Item lines are those of a
    cross-reference index, sections follow the index's page references (``xref``; needs
    ``pages`` with printed labels).
    """
    form = (form_type or "").upper()
    if form and form != "UNKNOWN" and not form.startswith(("10-K", "10-Q")):
        return [Section(title="Document", start=0, end=len(text))]  # 8-K, 20-F...: other Items
    ten_q = form.startswith("10-Q")
    cands = _candidates(text, ten_q)
    _weigh(text, cands)
    chain = _best_chain(cands)
    indexed = _from_index(text, pages or [], [c.pos for c in chain], ten_q)
    if indexed:
        return indexed
    if len(chain) < 2:
        return [Section(title="Document", start=0, end=len(text))]
    starts: list[int] = []
    for k, cand in enumerate(chain):
        floor = chain[k - 1].end if k else 0
        starts.append(_start_with_part_line(text, cand, floor))
    sections = _front(text, starts[0])
    for k, cand in enumerate(chain):
        end = starts[k + 1] if k + 1 < len(chain) else len(text)
        sections.append(
            Section(
                title=_title(cand, ten_q),
                item=cand.items[0],
                part=cand.part if ten_q else None,
                start=starts[k],
                end=end,
            )
        )
    return sections


def _entry_key(entry: Entry, ten_q: bool) -> tuple[str | None, str] | None:
    """(part, item) of an index entry when the form has that Item, else None."""
    if not ten_q:
        return (None, entry.item) if entry.item in TEN_K else None
    part = entry.part if entry.part in ("I", "II") else None
    part = part or ("II" if entry.item in ("1A", "5", "6") else "I")
    return (part, entry.item) if (part, entry.item) in TEN_Q else None


def _from_index(
    text: str, pages: list[Page], chain_positions: list[int], ten_q: bool
) -> list[Section] | None:
    """Sections from a cross-reference index, when the Item headings found are its lines."""
    index = find_index(text) if pages else None
    if index is None or not chain_in_index(chain_positions, index):
        return None
    keys = [_entry_key(e, ten_q) for e in index.entries]
    index.entries = [e for e, k in zip(index.entries, keys, strict=True) if k]
    keys = [k for k in keys if k]
    titles = []
    for entry, (part, item) in zip(index.entries, keys, strict=True):
        official = TEN_Q[(part, item)] if ten_q else TEN_K[item]
        titles.append(xref_words(" ".join(official)) | entry.words
                      | xref_words(ALIASES.get((part or "", item), "")))
    spans = index_spans(text, pages, index, titles)
    if not spans:
        return None
    sections = _front(text, spans[0][1])
    for entry, start, end in spans:
        part, item = keys[entry]
        heading = " ".join(sorted(index.entries[entry].words))
        sections.append(Section(title=item_title((item,), part, heading, ten_q), item=item,
                                part=part if ten_q else None, start=start, end=end))
    return sections
