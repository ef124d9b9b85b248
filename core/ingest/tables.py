"""HTML tables as readable rows: "Total revenue | 26,974 | 26,914".

EDGAR tables spread one value over several cells (a "$" cell, the number, a ")" or "%"
cell) and pad rows with empty spacer cells. Rows keep each value under its column (see
``html_grid``) and join cells with " | "; ``merge_cells`` glues the fragments of one row
when positions are unknown.
"""

from __future__ import annotations

import re

from core.ingest.html_grid import CURRENCY, TRAILERS, grid_rows
from core.ingest.text import clean_inline

BLOCK_TAGS = frozenset(
    "address article aside blockquote body caption center dd div dl dt fieldset figcaption "
    "figure footer form h1 h2 h3 h4 h5 h6 header hr html li main nav ol p pre section table "
    "tbody td tfoot th thead tr ul".split()
)
SKIP_TAGS = frozenset("script style head title noscript template ix:header object".split())
_HIDDEN = re.compile(r"display\s*:\s*none", re.I)
CAPTION_MAX_BLOCKS = 3
CAPTION_MAX_CHARS = 400

Block = tuple[str, str]  # (kind "text" | "table", text)


def is_hidden(el) -> bool:
    """True for elements a browser would not show (``display:none``, ``hidden``)."""
    style = el.get("style")
    return bool(style and _HIDDEN.search(style)) or el.get("hidden") is not None


def flat_text(el) -> str:
    """Visible text of an element on one line: blocks become spaces, inline text is glued."""
    parts: list[str] = []
    stack: list[tuple[object, bool]] = [(el, False)]
    while stack:
        node, closing = stack.pop()
        if closing:
            if node.tag in BLOCK_TAGS or node.tag == "br":
                parts.append(" ")
            if node is not el and node.tail:
                parts.append(node.tail)
            continue
        tag = node.tag
        skip = not isinstance(tag, str) or (node is not el and tag in SKIP_TAGS)
        if skip or is_hidden(node):
            if node is not el and node.tail:
                parts.append(node.tail)
            continue
        if tag in BLOCK_TAGS:
            parts.append(" ")
        if node.text:
            parts.append(node.text)
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(node))
    return clean_inline("".join(parts))


def merge_cells(cells: list[str]) -> list[str]:
    """Drop empty cells, glue "$" to the number after it and ")" / "%" to the one before."""
    out: list[str] = []
    pending = ""
    for cell in cells:
        if not cell:
            continue
        if cell in CURRENCY:
            pending += cell
            continue
        if TRAILERS.match(cell) and out and not pending:
            out[-1] += cell
            continue
        out.append(pending + cell)
        pending = ""
    if pending:
        out.append(pending)
    return out


def _colspan(td) -> int:
    try:
        return int(td.get("colspan") or 1)
    except ValueError:
        return 1


def table_rows(table) -> list[list[str]]:
    """Rows of a table (its own rows, not those of nested tables), each value under its
    column (``html_grid``: blank cells kept in place, "$" and "%" glued to figures)."""
    caption = table.find("caption")
    head: list[list[str]] = []
    if caption is not None and flat_text(caption):
        head.append([flat_text(caption)])
    cells = [
        [(flat_text(td), _colspan(td)) for td in tr
         if td.tag in ("td", "th") and not is_hidden(td)]
        for tr in table.xpath("./tr|./*/tr")
        if not is_hidden(tr)
    ]
    return head + grid_rows(cells)


def render_table(rows: list[list[str]]) -> tuple[str, bool]:
    """Render rows as text; the flag says whether it is a data table (else prose/layout).

    A table whose rows hold at most one filled cell only wraps prose and returns
    ("", False) so the caller walks it as ordinary blocks; a single row reads as one line.
    """
    if not rows or max(sum(1 for c in r if c) for r in rows) <= 1:
        return "", False
    if len(rows) == 1:
        return " ".join(c for c in rows[0] if c), False
    return "\n".join(" | ".join(r).strip() for r in rows), True


def assemble(blocks: list[Block]) -> tuple[str, list[tuple[int, int]]]:
    """Join blocks with blank lines; each table span starts at its caption lines."""
    parts: list[str] = []
    starts: list[int] = []
    spans: list[tuple[int, int]] = []
    pos = 0
    for i, (kind, text) in enumerate(blocks):
        starts.append(pos)
        parts.append(text)
        end = pos + len(text)
        if kind == "table":
            first, used = i, 0
            for j in range(i - 1, max(-1, i - 1 - CAPTION_MAX_BLOCKS), -1):
                prev_kind, prev = blocks[j]
                if prev_kind != "text" or used + len(prev) > CAPTION_MAX_CHARS:
                    break
                first, used = j, used + len(prev)
            start = max(starts[first], spans[-1][1] + 2 if spans else 0)
            spans.append((start, end))
        pos = end + 2
    return "\n\n".join(parts), spans
