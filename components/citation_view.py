"""A cited piece of evidence shown where it lives: document, section, page, neighbours."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from components.library import render_chunk
from components.text import md_escape
from core.types import Chunk, DocumentMeta


def neighbours(section_chunks: Sequence[Chunk], chunk_id: str, radius: int = 1) -> list[Chunk]:
    """The cited chunk with up to ``radius`` chunks either side in its section."""
    ids = [c.chunk_id for c in section_chunks]
    if chunk_id not in ids:
        return []
    i = ids.index(chunk_id)
    return list(section_chunks[max(0, i - radius): i + radius + 1])


def render_chunk_citation(
    n: int,
    chunk: Chunk | None,
    doc: DocumentMeta | None,
    section_chunks: Sequence[Chunk],
    *,
    open_in_library: Callable[[], None] | None = None,
    key: str,
) -> None:
    """Citation [n] of a filing chunk: breadcrumb, the chunk highlighted between neighbours."""
    with st.container(border=True):
        if chunk is None:
            st.warning(f"[{n}] The cited chunk is no longer in the corpus (its document was "
                       "deleted or re-ingested differently).")
            return
        name = (doc.company if doc and doc.company != "unknown" else
                doc.file_name if doc else chunk.doc_id)
        form = f" {doc.form_type} {doc.period}" if doc else ""
        page = f" › page {chunk.page}" if chunk.page else ""
        st.markdown(f"**[{n}] {md_escape(name + form)} › {md_escape(chunk.section)}{page}**")
        st.caption(f"Chunk {chunk.chunk_id} · {chunk.index + 1} of the document's chunks · "
                   f"file {md_escape(doc.file_name) if doc else '?'}")
        shown = neighbours(section_chunks, chunk.chunk_id) or [chunk]
        for c in shown:
            render_chunk(c, focus=c.chunk_id == chunk.chunk_id)
        if open_in_library is not None and st.button(
            "Open the section in the Library", key=f"{key}_lib"
        ):
            open_in_library()


def render_web_citation(n: int, evidence: dict[str, Any] | None, url: str) -> None:
    """Citation [n] of a web page: title, date, URL (as text) and the quoted passage."""
    with st.container(border=True):
        ev = evidence or {}
        title = ev.get("title") or ev.get("label") or url
        st.markdown(f"**[{n}] web · {md_escape(title)}**")
        st.caption(f"{md_escape(ev.get('date') or 'undated')} · {md_escape(url)}")
        text = ev.get("text") or ""
        if text:
            st.markdown(md_escape(text).replace("\n", "  \n"))
        else:
            st.caption("The passage is not stored with this run.")


def render_evidence_citation(n: int, evidence: dict[str, Any]) -> None:
    """Citation [n] from the run's stored evidence (chunk no longer in the corpus, baseline)."""
    with st.container(border=True):
        page = f" › page {evidence.get('page')}" if evidence.get("page") else ""
        section = f" › {md_escape(evidence['section'])}" if evidence.get("section") else ""
        st.markdown(f"**[{n}] {md_escape(evidence.get('label') or evidence.get('id'))}"
                    f"{section}{page}**")
        st.caption(f"Evidence {md_escape(evidence.get('id', ''))} as stored with the run")
        st.markdown(md_escape(evidence.get("text") or "").replace("\n", "  \n"))


def citation_opener(corpus, run_id: str, settings) -> Callable[[dict[str, Any]], None]:
    """A callback for ``render_answer``: draws the selected citation where it lives.

    Filing chunks are read from the corpus with their neighbours ("Open the section
    in the Library" switches page with document and section preselected); web
    passages, and chunks the corpus no longer holds (e.g. the baseline's fixed-size
    chunks), come from the run record's stored evidence.
    """

    def _open(c: dict[str, Any]) -> None:
        n, eid = c.get("n"), c.get("evidence_id", "")
        stored = _stored_evidence(settings, run_id, eid)
        if c.get("kind") == "web":
            render_web_citation(n, stored, c.get("url") or eid)
            return
        store = corpus.store
        found = store.get_chunks([eid])
        if not found:
            if stored:
                render_evidence_citation(n, stored)
            else:
                render_chunk_citation(n, None, None, [], key=f"cite_{run_id}_{n}")
            return
        chunk = found[0]
        doc = store.get_document(chunk.doc_id)
        section = store.chunks(chunk.doc_id, chunk.section)

        def to_library() -> None:
            from components import keys

            st.session_state[keys.LIB_BROWSE_DOC] = chunk.doc_id
            st.session_state[keys.LIB_BROWSE_SECTION] = chunk.section
            st.session_state[keys.LIB_FOCUS_CHUNK] = chunk.chunk_id
            st.switch_page("pages/library.py")

        render_chunk_citation(n, chunk, doc, section, open_in_library=to_library,
                              key=f"cite_{run_id}_{n}")

    return _open


def _stored_evidence(settings, run_id: str, evidence_id: str) -> dict[str, Any] | None:
    """The evidence ``evidence_id`` as saved with run ``run_id`` (or a hit's preview)."""
    from core.errors import AppError
    from core.runs import load_run

    try:
        record = load_run(settings, run_id)
    except AppError:
        return None
    evidence = list(record.evidence) or (list(record.answer.evidence) if record.answer else [])
    for ev in evidence:
        if ev.id == evidence_id or ev.url == evidence_id:
            return ev.model_dump()
    for event in record.events:
        for hit in getattr(event, "hits", []) or []:
            if hit.id == evidence_id:
                return {"id": hit.id, "label": hit.label, "title": hit.label, "date": hit.date,
                        "section": hit.section, "page": hit.page, "text": hit.text}
    return None
