"""Turn one page of pypdf layout-mode text into paragraphs and " | " table rows.

Layout mode keeps words whole and columns aligned with runs of spaces (plain mode breaks
words across lines on many filings). A line whose columns are separated by three or more
spaces and whose value columns hold figures (a few words at most) is a table row;
consecutive rows form a table block, whose cells are then put in their columns
(``pdf_columns``: a blank cell keeps its place). An indented line starts a new paragraph; a line
following a full-width line is its continuation (joined with a space, unless it opens an
Item or Part heading, or is a short line after a finished sentence: a heading).
"""

from __future__ import annotations

import re

from core.ingest.pdf_columns import align
from core.ingest.tables import Block, assemble, merge_cells
from core.ingest.text import clean_inline, is_furniture, repair_replacement_chars

_GAP = re.compile(r" {3,}")
_JUSTIFIED = re.compile(r"\S  \S")
_RUNS_ON = re.compile(r"(?:,|\b[a-z]+)$")
_FIGURE = re.compile(r"\d|^[—–-]$")
_HYPHEN_BREAK = re.compile(r"(?<=[a-z])-\n(?=[a-z])")
_HEADING = re.compile(r"(?:part|items?)\s+[0-9ivx]", re.I)
PARAGRAPH_INDENT = 4
MAX_WORDS_PER_VALUE = 4
SOFT_WRAP_CHARS = 90
CAPTION_LINES = 3
CAPTION_LINE_CHARS = 80
MAX_HEADING_IN_TABLE = 60
SHORT_LINE = 60  # a line this short after a finished sentence starts something new
_SENTENCE_END = (".", ":", ";", "?", "!")


def _row(line: str) -> str | None:
    """ " | "-joined cells when the line looks like a table row with figures, else None."""
    stripped = line.strip()
    if len(_JUSTIFIED.findall(stripped)) >= 3:  # words spread by justification: prose
        return None
    cells = _GAP.split(stripped)
    if len(cells) < 2 or not any(_FIGURE.search(c) for c in cells[1:]):
        return None
    if any(len(c.split()) > MAX_WORDS_PER_VALUE for c in cells[1:]):  # a sentence, not values
        return None
    if len(cells[0].split()) >= 6 and any(_RUNS_ON.search(c) for c in cells[1:]):
        return None  # "The years ended | December 26, 2015, | ... and": a sentence again
    return " | ".join(merge_cells([clean_inline(c) for c in cells]))


def _lines(raw: str) -> list[str]:
    lines = []
    for line in raw.split("\n"):
        body = line.lstrip()
        lines.append(line[: len(line) - len(body)] + repair_replacement_chars(body.rstrip()))
    while lines and (not lines[0].strip() or is_furniture(lines[0])):
        lines.pop(0)
    while lines and (not lines[-1].strip() or is_furniture(lines[-1])):
        lines.pop()
    return lines


def _trailing_captions(buf: list[str]) -> list[str]:
    """Pop the short heading lines that end a paragraph right above a table."""
    captions: list[str] = []
    while (
        buf
        and len(captions) < CAPTION_LINES
        and len(buf[-1]) <= CAPTION_LINE_CHARS
        and not buf[-1].endswith((".", ",", ";"))  # a sentence's end, not a heading
    ):
        captions.insert(0, buf.pop())
    return captions


def _wraps_into(prev: str, line: str) -> bool:
    """True when physical line ``line`` continues ``prev``: ``prev`` ran full width, and it
    did not end a sentence right before what looks like a heading or an Item/Part line."""
    if len(prev) < SOFT_WRAP_CHARS or _HEADING.match(line):
        return False
    return not (prev.endswith(_SENTENCE_END) and line[:1].isupper() and len(line) < SHORT_LINE)


def page_blocks(raw: str, join_wraps: bool = True) -> list[Block]:
    """Blocks of one page: ("text", paragraph) and ("table", rows).

    ``join_wraps`` joins a full-width line with the next (layout mode only: plain-mode lines
    have no reliable width)."""
    blocks: list[Block] = []
    kind, buf = "text", []
    raw_rows: dict[int, str] = {}  # index in buf -> layout line of a table row

    def close() -> None:
        nonlocal buf
        if kind == "table" and raw_rows:
            aligned = align(list(raw_rows.values()))
            for k, row in zip(raw_rows, aligned or [], strict=False):
                buf[k] = row
        raw_rows.clear()
        text = "\n".join(buf).strip()
        if text:
            blocks.append((kind, text))
        buf = []

    lines = _lines(raw)
    prev = ""
    for i, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            close()
            continue
        row = _row(line)
        if row is None and kind == "table" and len(stripped) <= MAX_HEADING_IN_TABLE:
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            if _row(nxt) is not None:  # "Current assets:" between rows stays in the table
                buf.append(clean_inline(stripped))
                continue
        new_kind = "table" if row is not None else "text"
        indent = len(line) - len(line.lstrip())
        if new_kind != kind or (new_kind == "text" and indent >= PARAGRAPH_INDENT):
            captions = _trailing_captions(buf) if new_kind == "table" else []
            close()
            blocks.extend(("text", line) for line in captions)
            kind = new_kind
        text = row if row is not None else clean_inline(stripped)
        if join_wraps and kind == "text" and buf and _wraps_into(prev, text):
            buf[-1] += " " + text  # a full-width line wrapped into this one: same sentence
        else:
            if row is not None:
                raw_rows[len(buf)] = line
            buf.append(text)
        prev = text
    close()
    return [(k, t) if k == "text" or t.count("\n") >= 1 else ("text", t) for k, t in blocks]


def page_text(raw: str, join_wraps: bool = True) -> tuple[str, list[tuple[int, int]]]:
    """Clean text of one page and the spans of its tables (captions included)."""
    raw = _HYPHEN_BREAK.sub("-", raw)
    return assemble(page_blocks(raw, join_wraps))
