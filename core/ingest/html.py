"""EDGAR HTML and inline-XBRL loader.

The tree is walked once: text is emitted at block boundaries, so nested div/span are read
once. ``ix:header``, ``display:none`` blocks, scripts and styles are dropped (dei facts are
read from ``ix:nonNumeric`` first). Tables become " | "-joined rows preceded by their
caption lines, and their spans are recorded for chunking. Page breaks met on the way
become page spans carrying the printed page labels (see ``html_pages``).
"""

from __future__ import annotations

import logging
import re
from collections import Counter

from lxml import etree
from lxml import html as lxml_html

from core.foundation.errors import IngestError
from core.foundation.types import ParsedDocument
from core.ingest.html_deep import parse_deep
from core.ingest.html_pages import (
    COMMENT_BREAK,
    break_sides,
    page_labels,
    page_ranges,
    page_spans,
)
from core.ingest.tables import (
    BLOCK_TAGS,
    SKIP_TAGS,
    Block,
    assemble,
    flat_text,
    is_hidden,
    render_table,
    table_rows,
)
from core.ingest.text import (
    clean_inline,
    declared_charset,
    decode_bytes,
    is_furniture,
    repair_replacement_chars,
)

DEI_NAMES = (
    "dei:EntityRegistrantName",
    "dei:DocumentType",
    "dei:DocumentFiscalYearFocus",
    "dei:DocumentFiscalPeriodFocus",
    "dei:DocumentPeriodEndDate",
    "dei:TradingSymbol",
    "dei:EntityCentralIndexKey",
)
_MANY = {"dei:TradingSymbol"}  # facts whose distinct values are all kept, ", "-joined
log = logging.getLogger(__name__)
_DEI_LOWER = {name.lower(): name for name in DEI_NAMES}
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>", re.S)
_BR = "\x1f"  # marks <br>: source newlines are mere spaces, <br> is a line break


class _Emitter:
    """Collects inline text into the current block and closes blocks on demand."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.buf: list[str] = []
        self.breaks: list[int] = []  # index of the first block of each new page

    def page_break(self) -> None:
        """Start a new page at the next block (repeated breaks make one)."""
        self.flush()
        n = len(self.blocks)
        if n and (not self.breaks or self.breaks[-1] != n):
            self.breaks.append(n)

    def flush(self) -> None:
        if not self.buf:
            return
        lines = (clean_inline(line) for line in "".join(self.buf).split(_BR))
        self.buf = []
        text = repair_replacement_chars("\n".join(line for line in lines if line))
        if text:
            self.blocks.append(("text", text))

    def add(self, kind: str, text: str) -> None:
        self.flush()
        text = repair_replacement_chars(text)
        if text:
            self.blocks.append((kind, text))


def read_dei(root) -> dict[str, str]:
    """First value of each wanted dei fact (``ix:nonNumeric``), hidden header included."""
    facts: dict[str, str] = {}
    for el in root.iter("ix:nonnumeric"):
        name = _DEI_LOWER.get((el.get("name") or "").lower())
        if name and (name not in facts or name in _MANY):
            value = clean_inline(el.text_content())
            if value and name in facts:
                if value not in facts[name].split(", "):
                    facts[name] += ", " + value
            elif value:
                facts[name] = value
    return facts


_OPEN, _CLOSE, _CLOSE_BREAK = 0, 1, 2


def _walk(root, out: _Emitter) -> None:
    """Depth-first walk without recursion (old markup nests deeply)."""
    stack: list[tuple[object, int]] = [(root, _OPEN)]
    while stack:
        el, step = stack.pop()
        if step:
            if el.tag in BLOCK_TAGS:
                out.flush()
            if step == _CLOSE_BREAK:
                out.page_break()
            if el.tail:
                out.buf.append(el.tail)
            continue
        tag = el.tag
        if tag is etree.Comment and COMMENT_BREAK in (el.text or ""):
            out.page_break()
        if not isinstance(tag, str) or tag in SKIP_TAGS or is_hidden(el):
            if isinstance(tag, str) and tag in BLOCK_TAGS:
                out.flush()
            if el.tail:
                out.buf.append(el.tail)
            continue
        before, after = break_sides(el.get("style"))
        if before:
            out.page_break()
        if tag == "br":
            out.buf.append(_BR)
            if el.tail:
                out.buf.append(el.tail)
            continue
        if tag == "table":
            text, is_data = render_table(table_rows(el))
            if text:
                out.add("table" if is_data else "text", text)
                if after:
                    out.page_break()
                if el.tail:
                    out.buf.append(el.tail)
                continue
        if tag in BLOCK_TAGS:
            out.flush()
        if el.text:
            out.buf.append(el.text)
        stack.append((el, _CLOSE_BREAK if after else _CLOSE))
        stack.extend((child, _OPEN) for child in reversed(el))
    out.flush()


_DIGITS = re.compile(r"\d+")
_HEADING = re.compile(r"^\s*(?:part\s+[ivx]+|items?\s+\d)", re.I)


def content_indices(blocks: list[Block], furniture: set[int] | None = None) -> list[int]:
    """Indices of the blocks that are not page furniture: ``furniture`` (blocks printing a
    page label), bare page numbers, "Table of Contents" links and short numbered running
    headers/footers (text or one-row tables) that repeat on many pages."""

    def short(kind: str, text: str) -> bool:
        return len(text) <= 100 and (kind == "text" or "\n" not in text)

    keys = Counter(_DIGITS.sub("#", text) for kind, text in blocks if short(kind, text))
    kept: list[int] = []
    for i, (kind, text) in enumerate(blocks):
        if furniture and i in furniture:
            continue
        if short(kind, text):
            key = _DIGITS.sub("#", text)
            if kind == "text" and is_furniture(text):
                continue
            if "#" in key and keys[key] >= 8 and not _HEADING.match(text):
                continue  # (an "ITEM 7." heading block repeats its shape, it is no footer)
        kept.append(i)
    return kept


def _too_deep(parser) -> bool:
    return any("Excessive depth" in entry.message for entry in parser.error_log)


def parse_root(data: bytes):
    """Decode the bytes honestly and parse them into an lxml HTML tree.

    libxml2 runs with ``huge_tree`` (nesting up to 2048 levels, text nodes over 10 MB);
    when even that depth is exceeded the rest of the file would be dropped silently, so it
    is parsed again by ``html_deep`` (no depth limit)."""
    text = decode_bytes(data, declared_charset(data))
    text = _XML_DECL.sub("", text, count=1)
    parser = lxml_html.HTMLParser(huge_tree=True)
    try:
        root = lxml_html.document_fromstring(text, parser=parser)
    except (etree.ParserError, ValueError) as exc:
        raise IngestError(f"The HTML could not be parsed ({exc}); is the file complete?") from exc
    if _too_deep(parser):
        log.info("HTML nested deeper than libxml2's limit: parsing it with html.parser")
        root = parse_deep(text)
    return root


def load_html(data: bytes) -> ParsedDocument:
    """Load EDGAR HTML / inline XBRL into clean text with tables, dei facts, title and,
    when the filing marks page breaks, page spans (physical numbers, printed labels)."""
    root = parse_root(data)
    dei = read_dei(root)
    title_el = root.find(".//title")
    title = flat_text(title_el) if title_el is not None else None
    out = _Emitter()
    body = root.find("body")
    _walk(body if body is not None else root, out)
    ranges = page_ranges(len(out.blocks), out.breaks)
    labels, furniture = page_labels(out.blocks, ranges)
    kept = content_indices(out.blocks, furniture)
    text, spans = assemble([out.blocks[i] for i in kept])
    pages = page_spans(out.blocks, ranges, kept, labels)
    return ParsedDocument(
        text=text,
        pages=pages,
        tables=len(spans),
        dei=dei,
        title=title or None,
        table_spans=spans,
    )
