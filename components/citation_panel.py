"""The cited passage beside the answer: source, place, the cited sentence highlighted, and the
passage where it lives in the filing (the rendered PDF page with the passage marked, or the
section's text around it for HTML and text filings)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

import pandas as pd
import streamlit as st

from components.text import md_escape
from core.app.cited import CitedPassage, best_span, squeeze
from core.app.table_grid import Grid, table_grid
from core.figures.printed_row import quoted
from core.foundation.pages import label_for
from core.foundation.types import Chunk

PASSAGE, IN_FILING = "Passage", "In the filing"
MARK = "orange-background"
NEIGHBOUR_MARK = "gray-background"
ROW_MARK = "background-color: #ffe0b2"


def highlighted(text: str, span: tuple[int, int] | None, colour: str = MARK) -> str:
    """``text`` as escaped Markdown with ``span`` marked in ``colour`` (line by line)."""
    if not span:
        return md_escape(text).replace("\n", "  \n")
    start, end = span
    marked = "\n".join(f":{colour}[{md_escape(line)}]" if line.strip() else line
                       for line in text[start:end].split("\n"))
    return (md_escape(text[:start]) + marked + md_escape(text[end:])).replace("\n", "  \n")


def row_span(text: str, row: str) -> tuple[int, int] | None:
    """Where a fact's printed row ('Revenue | $12,345 | $12,300') is in a chunk's text: the
    exact row (letters and digits compared), else the line holding its label and most of
    its figures."""
    if not row.strip() or not text.strip():
        return None
    needle, _ = squeeze(row)
    hay, index = squeeze(text)
    if needle and (at := hay.find(needle)) >= 0:
        return index[at], index[at + len(needle) - 1] + 1
    cells = [c.strip() for c in row.split("|") if c.strip()]
    label = squeeze(cells[0])[0] if cells else ""
    figures = [squeeze(c)[0] for c in cells[1:] if re.search(r"\d", c)]
    best, best_score, start = None, 0.0, 0
    for line in text.split("\n"):
        flat = squeeze(line)[0]
        if label and flat.startswith(label):
            score = 1 + sum(f in flat for f in figures) / max(1, len(figures))
            if score > best_score:
                best, best_score = (start, start + len(line.rstrip())), score
        start += len(line) + 1
    return best


def with_row(p: CitedPassage, row: str) -> CitedPassage:
    """``p`` with the fact's row as the part to highlight (the page image marks it too)."""
    span = row_span(p.text, row)
    return replace(p, highlight=span, claim="") if span else p


def grid_frame(grid: Grid) -> pd.DataFrame:
    """A table grid as a frame (its column headings as the frame's columns)."""
    return pd.DataFrame(grid.rows, columns=grid.header)


def render_grid(grid: Grid, *, key: str | None = None) -> None:
    """A table as a grid: its caption above, the filing's column headings, the cited row(s)
    marked."""
    for line in grid.caption[-3:]:
        st.caption(md_escape(line))
    frame = grid_frame(grid)
    marked = set(grid.marked)
    styled = frame.style.apply(lambda row: [ROW_MARK if row.name in marked else ""] * len(row),
                               axis=1)
    st.dataframe(styled, hide_index=True, width="stretch", key=key)
    if marked:
        st.caption("The cited row is marked.")
    for line in grid.after[:3]:
        st.caption(md_escape(line))


def passage_header(p: CitedPassage) -> None:
    """'[n] Source' and where it is (section, printed page)."""
    st.markdown(f"**[{p.n}] {md_escape(p.source)}**")
    where = p.where if p.kind != "web" else p.web_where
    if where:
        st.caption(md_escape(where))
    if p.unverified:
        st.warning("Demo article: written for this project from memory, not a copy of real "
                   "news; its URL is unverified.")
    elif p.provenance == "saved":
        st.caption("A page you saved to the web snapshot.")


def render_passage(p: CitedPassage, row: str = "") -> None:
    """The passage with the cited sentence (or the figure's ``row``) highlighted, context
    headings shown apart."""
    if p.kind == "missing":
        st.warning(f"[{p.n}] The cited passage is no longer in the corpus and was not stored "
                   "with this run (its document was deleted or re-ingested differently).")
        return
    grid = table_grid(p.text, p.highlight, p.context) if p.chunk is not None and \
        p.chunk.kind == "table" else None
    if grid is not None:
        render_grid(grid)
    else:
        if p.context:
            st.caption("Table: " + md_escape(p.context).replace("\n", " · "))
        with st.container(border=True):
            st.markdown(highlighted(p.text, p.highlight) or "_(empty passage)_")
    if row:
        found = "highlighted above" if p.highlight else "not found word for word in the passage"
        st.caption(f"The row the figure was read from: “{md_escape(quoted(row))}” ({found})")
    elif p.claim:
        found = "highlighted above" if p.highlight else "not found word for word in the passage"
        st.caption(f"The answer says: “{md_escape(p.claim)}” ({found})")
    if p.kind == "stored":
        st.caption("Shown as stored with the run (this passage is not a chunk of the corpus).")


def render_section_context(p: CitedPassage, neighbours: Sequence[Chunk],
                           open_section: Callable[[], None] | None, *, key: str) -> None:
    """The cited chunk among its section's neighbours, the passage marked."""
    st.caption(f"{md_escape(p.source)} · {md_escape(p.section)} — the cited passage is marked; "
               "the text around it is the filing's own, in reading order.")
    for c in neighbours or ([p.chunk] if p.chunk else []):
        cited = p.chunk is not None and c.chunk_id == p.chunk.chunk_id
        span = (p.highlight or (0, len(c.text))) if cited else None
        grid = table_grid(c.text, p.highlight if cited else None, c.context) \
            if c.kind == "table" else None
        if grid is not None:
            render_grid(grid, key=f"{key}_grid_{c.chunk_id}")
        elif cited:
            st.markdown(highlighted(c.text, span, MARK if p.highlight else NEIGHBOUR_MARK))
        else:
            st.markdown(md_escape(c.text).replace("\n", "  \n"))
    if open_section is not None and st.button("Open the whole section in the Library",
                                              key=f"{key}_lib"):
        open_section()


def render_page_view(p: CitedPassage, page_image: Callable[[CitedPassage, int], object],
                     *, key: str, what: str = "the cited sentence") -> None:
    """The PDF page(s) holding the passage, rendered, the passage marked (``what``: the
    highlighted part, named in the caption)."""
    first = p.page or 1
    pages = list(range(first, max(first, p.page_end or first) + 1))
    page = pages[0]
    if len(pages) > 1:
        page = st.segmented_control("Page", pages, default=pages[0], key=f"{key}_page",
                                    format_func=lambda n: f"PDF page {n}") or pages[0]
    try:
        shown = page_image(p, page)
    except Exception as exc:  # noqa: BLE001 - the passage itself is still shown
        st.warning(f"The page could not be rendered: {md_escape(str(exc))}")
        return
    printed = label_for(page, first, p.page_label)
    label = (f"printed page {printed}, " if printed else "") + f"PDF page {page} of {{n}}"
    marked = (f"{what} is marked in orange, the rest of the passage in yellow"
              if shown.sentence_marked else "the passage is marked in yellow"
              if shown.passage_marked else "the passage could not be located word for word on "
              "the rendered page (its text was extracted differently); the index places it here")
    caption = f"{md_escape(p.source)}: {label.format(n=shown.n_pages)} — {marked}"
    st.image(shown.png, width="stretch")
    st.caption(caption)
    if st.button("Open the page large", key=f"{key}_large", icon="🔍",
                 help="The rendered page in a wide window, readable at full size."):
        _large_page(shown.png, caption)


@st.dialog("The cited page", width="large")
def _large_page(png: bytes, caption: str) -> None:
    """The rendered PDF page, as wide as the window allows (Esc or ✕ closes it)."""
    st.image(png, width="stretch")
    st.caption(caption)


def render_citation_panel(
    p: CitedPassage,
    *,
    key: str,
    page_image: Callable[[CitedPassage, int], object] | None = None,
    open_section: Callable[[], None] | None = None,
    on_close: Callable[[], None] | None = None,
    row: str = "",
) -> None:
    """The side panel of one citation: passage first, then where it is in the filing.

    ``row``: a fact's printed row, opened from the computation table; it is highlighted
    instead of the answer's sentence (in the passage, the section text and the PDF page)."""
    if row:
        p = with_row(p, row)
    with st.container(border=True):
        head, close = st.columns([5, 1], vertical_alignment="center")
        with head:
            passage_header(p)
        if on_close is not None:
            close.button("✕", key=f"{key}_close", help="Close the passage", on_click=on_close)
        if p.kind != "chunk":
            render_passage(p, row)
            return
        view = st.segmented_control(
            "View", [PASSAGE, IN_FILING], default=PASSAGE, key=f"{key}_view",
            label_visibility="collapsed",
            help="In the filing: the PDF page itself, or the section's text around the passage.",
        ) or PASSAGE
        if view == PASSAGE:
            render_passage(p, row)
            return
        if p.is_pdf and page_image is not None and p.page:
            render_page_view(p, page_image, key=key,
                             what="the figure's row" if row else "the cited sentence")
        else:
            if p.original is None and p.document is not None and p.document.n_pages:
                st.caption("The original file was not kept for this document (ingested before "
                           "originals were kept): re-ingest it to see its pages.")
            render_section_context(p, p.neighbours, open_section, key=key)


def quote_of(p: CitedPassage, limit: int = 320) -> str:
    """The sentence a hover preview shows: the highlighted part, else the passage's start."""
    span = p.highlight or best_span(p.claim, p.text)
    text = p.text[span[0]:span[1]] if span else p.text
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
