"""Library renderers: ingest outcomes, the documents table, chunks of a section."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd
import streamlit as st

from components import keys
from components.text import md_escape, preview
from core.foundation.pages import span_ref
from core.foundation.types import Chunk, DocumentMeta


@dataclass
class IngestOutcome:
    """What happened to one file or URL of an ingest batch."""

    name: str
    ok: bool
    meta: DocumentMeta | None = None
    added: bool = False
    timings: dict[str, float] = field(default_factory=dict)
    error: str = ""

    @property
    def summary(self) -> str:
        """One line: sections, chunks and tables, or the error."""
        if not self.ok or self.meta is None:
            return self.error
        m = self.meta
        state = "added" if self.added else "already in the corpus (unchanged)"
        return (f"{state}: {len(m.sections)} sections, {m.n_chunks} chunks, "
                f"{m.n_tables} tables")


def outcomes_frame(outcomes: Sequence[IngestOutcome]) -> pd.DataFrame:
    """The per-file summary table of an ingest batch."""
    rows = []
    for o in outcomes:
        m = o.meta
        rows.append({
            "file": o.name,
            "result": ("✓ added" if o.added else "= unchanged") if o.ok else "✗ failed",
            "company": m.company if m else "",
            "form": m.form_type if m else "",
            "period": m.period if m else "",
            "sections": len(m.sections) if m else None,
            "chunks": m.n_chunks if m else None,
            "tables": m.n_tables if m else None,
            "seconds": round(sum(o.timings.values()), 2) if o.ok else None,
            "error": o.error,
        })
    return pd.DataFrame(rows)


def render_outcomes(outcomes: Sequence[IngestOutcome]) -> None:
    """Summary of the last ingest: a table plus one clear error box per failed file."""
    if not outcomes:
        return
    ok = sum(o.ok for o in outcomes)
    st.markdown(f"**Last ingest:** {ok} of {len(outcomes)} succeeded.")
    frame = outcomes_frame(outcomes)
    if not frame["error"].astype(bool).any():
        frame = frame.drop(columns=["error"])
    st.dataframe(frame, hide_index=True, width="stretch")
    for o in outcomes:
        if not o.ok:
            st.error(f"**{md_escape(o.name)}** was not ingested: {md_escape(o.error)}")


def documents_frame(docs: Sequence[DocumentMeta]) -> pd.DataFrame:
    """Documents as the library table shows them: the filer's identity (company, CIK,
    ticker) first; no pages, CIK, ticker or corrected column when no document has one."""
    frame = pd.DataFrame([
        {
            "company": d.company,
            "CIK": d.cik,
            "ticker": d.ticker,
            "form": d.form_type,
            "period": d.period,
            "corrected": ", ".join(META_FIELDS.get(f, f) for f in d.corrected),
            "sections": len(d.sections),
            "chunks": d.n_chunks,
            "tables": d.n_tables,
            "pages": d.n_pages or None,
            "file": d.file_name,
            "doc id": d.doc_id,
            "ingested": (d.ingested_at or "")[:19].replace("T", " "),
            "name check": d.name_conflict,
        }
        for d in docs
    ])
    if not frame.empty and frame["pages"].isna().all():
        frame = frame.drop(columns=["pages"])
    for column in ("CIK", "ticker", "corrected", "name check"):
        if not frame.empty and not frame[column].astype(bool).any():
            frame = frame.drop(columns=[column])
    return frame


def render_documents(docs: Sequence[DocumentMeta]) -> None:
    """The documents table, after a warning for each filing whose printed company name
    disagrees with its filer's."""
    for d in docs:
        if d.name_conflict:
            st.warning(md_escape(d.name_conflict))
    st.dataframe(
        documents_frame(docs),
        hide_index=True,
        width="stretch",
        column_config={
            "CIK": st.column_config.TextColumn(
                help="The filer's SEC Central Index Key: one company's filings share it"),
            "sections": st.column_config.NumberColumn(help="Sections detected (Items)"),
            "chunks": st.column_config.NumberColumn(help="Retrievable chunks"),
            "tables": st.column_config.NumberColumn(help="Tables kept as table chunks"),
        },
    )


META_FIELDS = {"company": "Company", "form_type": "Form", "period": "Period",
               "ticker": "Ticker"}


def changed_meta(doc: DocumentMeta, entered: dict[str, str]) -> dict[str, str]:
    """The fields of the correction form whose value differs from the document's (an emptied
    box is a change too, and is refused by the store with its reason)."""
    return {name: value for name, value in entered.items()
            if value.strip() != (getattr(doc, name) or "").strip()}


def doc_label(d: DocumentMeta) -> str:
    """Short human label of a document."""
    name = d.company if d.company != "unknown" else d.file_name
    form = f" {d.form_type}" if d.form_type != "unknown" else ""
    period = f" {d.period}" if d.period != "unknown" else ""
    return f"{name}{form}{period} · {d.doc_id[:8]}"


FOCUS_BOX = "lib_focus_box"  # the cited chunk's container (scrolled into view)
PAGE_SIZE = 15  # chunks listed at once in the section browser


def chunk_label(chunk: Chunk, limit: int = 110) -> str:
    """A collapsed chunk's label: '#12 · p. 14 · table — its first words…', escaped."""
    where = span_ref(chunk.page, chunk.page_end, chunk.page_label, short=True)
    page = f" · {where}" if where else ""
    kind = f" · {chunk.kind}" if chunk.kind != "text" else ""
    return md_escape(f"#{chunk.index}{page}{kind} — {preview(chunk.text, limit)}")


def focus_from_link(store) -> str | None:
    """Select the document and section of the chunk named in the URL (``?chunk=<id>``, what
    a citation opens) the first time that link is seen; returns the chunk to focus."""
    wanted = st.query_params.get("chunk")
    if wanted and st.session_state.get(keys.LIB_LINK_SEEN) != wanted:
        st.session_state[keys.LIB_LINK_SEEN] = wanted
        found = store.get_chunks([wanted])
        if found:
            st.session_state[keys.LIB_BROWSE_DOC] = found[0].doc_id
            st.session_state[keys.LIB_BROWSE_SECTION] = found[0].section
            if st.session_state.get(keys.LIB_FOCUS_CHUNK) != wanted:
                st.session_state[keys.LIB_FOCUS_SPAN] = None
            st.session_state[keys.LIB_FOCUS_CHUNK] = wanted
        else:
            st.warning("The cited chunk is no longer in the corpus (its filing was deleted or "
                       "re-ingested differently).")
    return st.session_state.get(keys.LIB_FOCUS_CHUNK)


def open_in_browser(store, chunk_id: str, row: str = "") -> None:
    """Open chunk ``chunk_id`` in the section browser below (its document and section
    picked, the chunk open and scrolled into view, ``row`` of a figure's fact marked); the
    URL names it (``?chunk=``), so the link can be shared. Call from a widget callback."""
    from components.citation_panel import row_span

    found = store.get_chunks([chunk_id])
    if not found:
        return
    chunk = found[0]
    st.session_state[keys.LIB_BROWSE_DOC] = chunk.doc_id
    st.session_state[keys.LIB_BROWSE_SECTION] = chunk.section
    st.session_state[keys.LIB_FOCUS_CHUNK] = chunk.chunk_id
    span = row_span(chunk.text, row) if row else None
    st.session_state[keys.LIB_FOCUS_SPAN] = list(span) if span else None
    st.session_state[keys.LIB_LINK_SEEN] = chunk.chunk_id
    st.query_params["chunk"] = chunk.chunk_id


def render_section_chunks(chunks: Sequence[Chunk], focus: str | None, *, key: str) -> None:
    """A section's chunks as a paged list of collapsed entries (first words shown, the full
    text on click); the focused chunk opens on its page, marked, and scrolls into view."""
    ids = [c.chunk_id for c in chunks]
    shown = list(chunks)
    if len(chunks) > PAGE_SIZE:
        pages = (len(chunks) + PAGE_SIZE - 1) // PAGE_SIZE
        start_page = ids.index(focus) // PAGE_SIZE + 1 if focus in ids else 1
        page = st.number_input(f"Chunks page (1–{pages}, {PAGE_SIZE} per page)", 1, pages,
                               start_page, key=f"{key}_page_{focus if focus in ids else ''}")
        shown = shown[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
    for chunk in shown:
        if chunk.chunk_id == focus:
            with st.container(key=FOCUS_BOX, border=True):
                st.badge("cited chunk", color="orange")
                render_chunk(chunk, focus=True,
                             span=st.session_state.get(keys.LIB_FOCUS_SPAN))
            continue
        with st.expander(chunk_label(chunk)):
            render_chunk(chunk)
    if focus in {c.chunk_id for c in shown}:
        from components.scroll import scroll_to

        scroll_to(FOCUS_BOX, focus, key=f"{key}_scroll")


def render_chunk(chunk: Chunk, *, focus: bool = False,
                 span: tuple[int, int] | None = None) -> None:
    """One chunk's full text, escaped; a table as a grid headed by the filing's column
    headings. A focused (cited) chunk has its cited part (``span``), else all of it,
    marked."""
    from components.citation_panel import highlighted, render_grid
    from core.app.table_grid import table_grid

    where = span_ref(chunk.page, chunk.page_end, chunk.page_label)
    page = f" · {where}" if where else ""
    st.caption(f"`{chunk.chunk_id}` · {md_escape(chunk.section)}{page} · {chunk.kind}")
    grid = table_grid(chunk.text, tuple(span) if focus and span else None, chunk.context) \
        if chunk.kind == "table" else None
    if grid is not None:
        render_grid(grid, key=f"lib_grid_{chunk.chunk_id}")
    elif chunk.kind == "table" and not focus:
        st.code(chunk.text, language=None, wrap_lines=False)
    elif focus:
        st.markdown(highlighted(chunk.text, tuple(span) if span else (0, len(chunk.text)),
                                "orange-background" if span else "yellow-background"))
    else:
        st.markdown(md_escape(chunk.text).replace("\n", "  \n"))
