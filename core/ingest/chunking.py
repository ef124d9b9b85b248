"""Chunk a parsed document inside its sections, with exact offsets into its text.

Each section is cut into text and table segments. Text is split by langchain's
RecursiveCharacterTextSplitter (paragraph, line, sentence, word); a table that fits one
chunk stays whole (kind "table"), a longer one is split between rows into balanced pieces
without overlap.
A small piece next to a segment boundary is packed with its neighbour when both fit; a
packed chunk is a "table" chunk when tables make up at least half of it.
Every chunk's text is exactly ``doc.text[start:end]``; ``context`` says where it sits (a
table piece: its caption and column headings; a text chunk: its sub-heading).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from langchain_text_splitters import RecursiveCharacterTextSplitter

from core.foundation.config import Settings
from core.foundation.types import Chunk, Page, ParsedDocument, Section
from core.ingest.context import Subheadings, table_context
from core.ingest.text import is_furniture

_TEXT_SEPARATORS = ["\n\n", "\n", ". ", "; ", ", ", " ", ""]
_LETTER = re.compile(r"[A-Za-z]")
MIN_LETTERS = 12
SHORT_DUPLICATE_CHARS = 300


@dataclass
class _Piece:
    kind: str
    start: int
    end: int
    segment: int
    table_chars: int = 0


def _segments(section: Section, spans: list[tuple[int, int]]) -> list[tuple[str, int, int]]:
    """(kind, start, end) covering the section: tables (clipped to it) and the text between."""
    out: list[tuple[str, int, int]] = []
    pos = section.start
    for start, end in spans:
        start, end = max(start, section.start), min(end, section.end)
        if end <= start or start < pos:
            continue
        if start > pos:
            out.append(("text", pos, start))
        out.append(("table", start, end))
        pos = end
    if pos < section.end:
        out.append(("text", pos, section.end))
    return out


def _locate(text: str, base: int, pieces: list[str], kind: str, seg: int) -> list[_Piece]:
    """Turn split strings back into exact spans (each piece is a substring of ``text``)."""
    found: list[_Piece] = []
    cursor = 0
    for piece in pieces:
        at = text.find(piece, cursor)
        if at < 0:  # cannot happen with keep_separator; keep offsets honest if it does
            continue
        found.append(_Piece(kind, base + at, base + at + len(piece), seg))
        cursor = at + 1
    return found


def _table_pieces(text: str, base: int, seg: int, size: int, fallback) -> list[_Piece]:
    """Split a long table between rows into balanced pieces (no orphan last row)."""
    lines, pos = [], 0
    for line in text.split("\n"):
        lines.append((pos, pos + len(line)))
        pos += len(line) + 1
    n = -(-len(text) // size)
    target = len(text) / n
    pieces: list[_Piece] = []
    first: int | None = None
    last_end = 0
    for a, b in lines:
        if b == a:
            continue
        if b - a > size:  # one enormous row: fall back to the word splitter
            if first is not None:
                pieces.append(_Piece("table", base + first, base + last_end, seg))
                first = None
            row = text[a:b]
            pieces.extend(_locate(row, base + a, fallback.split_text(row), "table", seg))
            continue
        if first is not None and (b - first > size or last_end - first >= target):
            pieces.append(_Piece("table", base + first, base + last_end, seg))
            first = None
        if first is None:
            first = a
        last_end = b
    if first is not None:
        pieces.append(_Piece("table", base + first, base + last_end, seg))
    for piece in pieces:
        piece.table_chars = piece.end - piece.start
    return pieces


def _pieces(doc: ParsedDocument, section: Section, settings: Settings) -> list[_Piece]:
    size, overlap = settings.chunk_size, min(settings.chunk_overlap, settings.chunk_size // 2)
    prose = RecursiveCharacterTextSplitter(
        chunk_size=size, chunk_overlap=overlap, separators=_TEXT_SEPARATORS, keep_separator="end"
    )
    pieces: list[_Piece] = []
    for seg, (kind, start, end) in enumerate(_segments(section, doc.table_spans)):
        text = doc.text[start:end]
        if not text.strip():
            continue
        if kind == "table":
            lead = len(text) - len(text.lstrip())
            body = text.strip()
            if len(body) <= size:
                pieces.append(_Piece(kind, start + lead, start + lead + len(body), seg, len(body)))
            else:
                pieces.extend(_table_pieces(body, start + lead, seg, size, prose))
            continue
        pieces.extend(_locate(text, start, prose.split_text(text), kind, seg))
    return _pack(pieces, size)


def _pack(pieces: list[_Piece], size: int) -> list[_Piece]:
    """Merge a small piece (under a quarter chunk) into its neighbour from another segment
    (never overlapping ones) when both fit one chunk: no orphan captions or footnotes."""
    packed: list[_Piece] = []
    for piece in pieces:
        last = packed[-1] if packed else None
        if (
            last is not None
            and last.segment != piece.segment
            and last.end <= piece.start
            and piece.end - last.start <= size
            and min(last.end - last.start, piece.end - piece.start) < size // 4
        ):
            table_chars = last.table_chars + piece.table_chars
            kind = "table" if 2 * table_chars >= piece.end - last.start else "text"
            packed[-1] = _Piece(kind, last.start, piece.end, piece.segment, table_chars)
        else:
            packed.append(piece)
    return packed


def _is_boilerplate(text: str) -> bool:
    """Too few letters, or nothing but page furniture."""
    if len(_LETTER.findall(text)) < MIN_LETTERS:
        return True
    return all(is_furniture(line) for line in text.splitlines() if line.strip())


def _page_at(doc: ParsedDocument, page_starts: list[int], offset: int) -> Page:
    k = bisect.bisect_right(page_starts, offset) - 1
    return doc.pages[max(k, 0)]


INHERIT_GAP = 300  # chars between two tables that are one table split by a blank line


def _titled(context: str) -> bool:
    """True when a table context holds a caption line, not only column headings."""
    return any(line and not line.startswith("| ") and " | " not in line
               for line in context.split("\n"))


class _Contexts:
    """``Chunk.context`` of pieces: their table's caption and headings, else the nearest
    sub-heading of their section (see ``core.ingest.context``)."""

    def __init__(self, doc: ParsedDocument):
        self.doc = doc
        self.spans = sorted(doc.table_spans)
        self.starts = [a for a, _ in self.spans]
        self.subheadings = Subheadings(doc.text, doc.table_spans)
        self.cache: dict[int, str] = {}

    def _table(self, piece: _Piece) -> int | None:
        k = bisect.bisect_right(self.starts, piece.start) - 1
        if k >= 0 and self.spans[k][1] > piece.start:
            return k  # the table the piece starts in
        nxt = k + 1
        if nxt < len(self.spans) and self.spans[nxt][0] < piece.end:
            return nxt  # a text piece packed with the table that follows it
        return None

    def of(self, piece: _Piece, section: Section) -> str:
        k = self._table(piece) if piece.table_chars else None
        if k is None:
            return self.subheadings.before(piece.start, section.start)
        return self._context(k)

    def _context(self, k: int) -> str:
        """Table k's context; a table split from the one above it by a blank line or a
        group label ("Current liabilities:") and without a title of its own inherits its."""
        if k not in self.cache:
            start, end = self.spans[k]
            floor = self.spans[k - 1][1] if k else 0
            own = table_context(self.doc.text, start, end, floor)
            if k and start - floor <= INHERIT_GAP and not _titled(own):
                own = self._context(k - 1)
            self.cache[k] = own
        return self.cache[k]


def chunk_document(
    doc: ParsedDocument, sections: list[Section], doc_id: str, settings: Settings
) -> list[Chunk]:
    """Chunks in document order with stable ids ``f"{doc_id}-{index:05d}"``.

    ``page`` / ``page_end`` are the pages holding the chunk's first and last characters.
    Boilerplate chunks and repeats of short chunks already emitted (running headers) are
    dropped.
    """
    page_starts = [p.start for p in doc.pages]
    contexts = _Contexts(doc)
    seen_short: set[str] = set()
    chunks: list[Chunk] = []
    for section in sections:
        for piece in _pieces(doc, section, settings):
            text = doc.text[piece.start : piece.end]
            if _is_boilerplate(text):
                continue
            if len(text) < SHORT_DUPLICATE_CHARS:
                if text in seen_short:
                    continue
                seen_short.add(text)
            page = page_end = label = None
            if page_starts:
                first = _page_at(doc, page_starts, piece.start)
                page, label = first.number, first.label
                page_end = _page_at(doc, page_starts, piece.end - 1).number
            index = len(chunks)
            chunks.append(
                Chunk(
                    chunk_id=f"{doc_id}-{index:05d}",
                    doc_id=doc_id,
                    index=index,
                    text=text,
                    section=section.title,
                    page=page,
                    page_end=page_end,
                    page_label=label,
                    context=contexts.of(piece, section),
                    start=piece.start,
                    end=piece.end,
                    kind=piece.kind,
                )
            )
    return chunks
