"""Financial statements printed outside Item 8 are filed under Item 8.

Many 10-Ks answer Item 8 with a pointer ("The information required by this Item is set forth
in our Consolidated Financial Statements ... included in this Annual Report") and print the
statements after Item 15 or 16, on F-pages (NVIDIA, Netflix, GAINSCO). Sectioned by
headings, the statements and notes land in "Item 15" or "Item 16. Form 10-K Summary" and a
search filtered to Item 8 finds nothing.

When Item 8 holds no statement (a statement title followed by its table), the statements
block printed after it is found: it starts at the first statement title followed by a
table (moved up to the auditor's report or the index of statements printed just above it)
and ends at the exhibit index, the signatures, or the next section, whichever comes first.
That span becomes a section titled like Item 8; the sections around it keep their titles.
"""

from __future__ import annotations

import bisect
import re

from core.foundation.types import Section

_STATEMENT = re.compile(
    r"^(?:condensed\s+)?(?:consolidated\s+)?(?:condensed\s+)?(?:balance\s+sheets?|statements?\s+of\s+"
    r"(?:operations|income|earnings|cash\s+flows|financial\s+(?:position|condition)|"
    r"comprehensive\s+(?:income|loss)))\b[^|\n]{0,60}$",
    re.I | re.M,
)
_OPENERS = re.compile(
    r"^(?:report\s+of\s+independent\s+registered\s+public\s+accounting\s+firm|"
    r"index\s+to\s+(?:consolidated\s+)?financial\s+statements(?:\s+and\s+[^|\n]{0,40})?)"
    r"[^|\n\d]{0,40}$",
    re.I | re.M,
)
_CLOSERS = re.compile(
    r"^(?:signatures?|exhibit\s+index|index\s+to\s+exhibits|exhibits)\s*$", re.I | re.M
)
TABLE_WITHIN = 600  # a statement title is followed by its table within this many chars
MIN_ROWS = 5  # a statement's table has at least this many rows and amounts
_AMOUNT = re.compile(r"\d,\d{3}|\d\.\d|\(\d+\)")
OPENER_BACK = 30_000  # how far above the first statement its auditor's report may start


def _is_statement_table(body: str) -> bool:
    return body.count("\n") + 1 >= MIN_ROWS and len(_AMOUNT.findall(body)) >= MIN_ROWS


def _titles_with_tables(text: str, lo: int, hi: int, spans: list[tuple[int, int]]) -> list[int]:
    """Offsets of statement titles in ``text[lo:hi]`` closely followed by a table of
    amounts (a list of statements with page numbers is not one)."""
    starts = [a for a, _ in spans]
    found = []
    for m in _STATEMENT.finditer(text, lo, hi):
        k = bisect.bisect_right(starts, m.start())
        for a, b in spans[max(0, k - 1) : k + 1]:
            if m.start() - 200 <= a <= m.end() + TABLE_WITHIN and b > m.end() and \
                    _is_statement_table(text[max(a, m.end()) : b]):
                found.append(m.start())
                break
    return found


def statements_span(
    text: str, sections: list[Section], table_spans: list[tuple[int, int]]
) -> tuple[int, int, Section] | None:
    """(start, end, Item 8 section) of statements printed after an Item 8 without them."""
    item8 = next((s for s in sections if s.item == "8"), None)
    if item8 is None:
        return None
    spans = sorted(table_spans)
    if _titles_with_tables(text, item8.start, item8.end, spans):
        return None
    after = _titles_with_tables(text, item8.end, len(text), spans)
    if not after:
        return None
    anchor = after[0]
    start = anchor
    openers = list(_OPENERS.finditer(text, max(item8.end, anchor - OPENER_BACK), anchor))
    if openers:
        start = openers[0].start()
    ends = [m.start() for m in _CLOSERS.finditer(text, anchor)]
    ends += [s.start for s in sections if s.start > anchor]
    return start, min(ends, default=len(text)), item8


def relocate_statements(
    text: str, sections: list[Section], table_spans: list[tuple[int, int]]
) -> list[Section]:
    """``sections`` with the statements printed after Item 8 filed under Item 8."""
    found = statements_span(text, sections, table_spans)
    if found is None:
        return sections
    start, end, item8 = found
    out: list[Section] = []
    for s in sections:
        if s.end <= start or s.start >= end:
            out.append(s)
            continue
        if s.start < start:
            out.append(s.model_copy(update={"end": start}))
        out.append(item8.model_copy(update={"start": max(start, s.start), "end": min(end, s.end)}))
        if s.end > end:
            out.append(s.model_copy(update={"start": end}))
    merged: list[Section] = []
    for s in out:  # one Item 8 section for the whole block
        if merged and merged[-1].title == s.title and merged[-1].end == s.start:
            merged[-1] = merged[-1].model_copy(update={"end": s.end})
        else:
            merged.append(s)
    return merged
