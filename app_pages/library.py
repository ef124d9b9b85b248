"""Library: add filings (upload or EDGAR URL), list and delete them, a filing's or a
company's figures (catalogue metrics and segments by period, with sources and a chart),
browse sections; the web snapshot's articles (demo ones labelled) and the analyst's saved
pages."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import streamlit as st

from components import keys, services
from components.doctor_panel import render_doctor_panel
from components.edgar_fetch import render_edgar_fetch
from components.ingest_view import follow_batch, outcomes
from components.library import (
    META_FIELDS,
    IngestOutcome,
    changed_meta,
    doc_label,
    focus_from_link,
    open_in_browser,
    render_documents,
    render_outcomes,
    render_section_chunks,
)
from components.library_figures import render_figures_panel
from components.text import md_escape
from components.web_sources import render_web_snapshot
from core.app import jobs
from core.app.doctor_stores import stale_facts
from core.foundation.errors import AppError

UPLOAD_TYPES = ["htm", "html", "xhtml", "xml", "pdf", "txt", "md"]

st.title("Library")
st.caption(
    "The filings the agent can search. Upload 10-K/10-Q files (EDGAR HTML or inline XBRL, PDF, "
    "text) or paste an EDGAR URL; each file is parsed into sections, chunked (tables kept) "
    "and indexed for keyword and vector search."
)

# the composition root of this run: the analyst's corpus, or the sample corpus when a
# citation of a sample-corpus run (Evaluate) links here with ?corpus=sample (read only)
app = services.linked(st.query_params.get("corpus"))
settings, corpus = app.settings, app.corpus


def _ingest(items: list[tuple[str, Callable[..., object]]], sizes: list[int] | None = None
            ) -> None:
    """Ingest the items in a background job (one failing file does not stop the others);
    the page follows its progress and other pages stay usable meanwhile."""
    from core.app.ingest_jobs import start_batch

    batch = [(name, (sizes or [0] * len(items))[i], run) for i, (name, run) in enumerate(items)]
    job = start_batch(f"ingest-{uuid.uuid4().hex[:8]}", batch, corpus=corpus)
    st.session_state[keys.LIB_JOB] = job.id
    st.session_state[keys.LIB_UPLOAD_NONCE] += 1
    st.rerun()


def _follow_ingest() -> None:
    """Follow this session's ingest until it is done, then show its outcomes."""
    job = jobs.get(st.session_state.get(keys.LIB_JOB) or "")
    if job is None:
        return
    if not job.done:
        st.subheader("Ingesting")
        follow_batch(job, st.empty())
    report: list[IngestOutcome] = outcomes(job.progress)
    st.session_state[keys.LIB_LAST_REPORT] = report
    st.session_state[keys.LIB_JOB] = None
    jobs.forget(job.id)
    st.rerun()


def _browse_sections(by_id: dict) -> None:
    """The section browser: a document, one of its sections, its chunks page by page (the
    cited one open when a link named it)."""
    st.subheader("Browse sections")
    sections = corpus.store.sections()
    focus = focus_from_link(corpus.store)  # ?chunk=<id>: a citation's chunk, opened here
    b1, b2 = st.columns(2)
    doc_id = b1.selectbox("Document", list(by_id), format_func=lambda i: doc_label(by_id[i]),
                          key=keys.LIB_BROWSE_DOC)
    titles = sections.get(doc_id, [])
    section = b2.selectbox("Section", titles, key=keys.LIB_BROWSE_SECTION,
                           help="Sections in reading order, as detected from the filing's Items.")
    if section:
        chunks = corpus.store.chunks(doc_id, section)
        st.caption(f"{len(chunks)} chunks in {md_escape(section)} · click one to read it whole")
        render_section_chunks(chunks, focus, key=f"lib_chunks_{doc_id}_{section}")


def _leave_sample() -> None:
    """Back to the analyst's corpus: the link and the sample's selections go."""
    for name in ("corpus", "chunk"):
        st.query_params.pop(name, None)
    for key in (keys.LIB_BROWSE_DOC, keys.LIB_BROWSE_SECTION, keys.LIB_FOCUS_CHUNK,
                keys.LIB_FOCUS_SPAN):
        st.session_state.pop(key, None)


def _sample_view() -> None:
    """The sample corpus, read only: its filings and the section browser."""
    st.info("You are reading the **sample corpus** (Evaluate's fictional sample filing, kept "
            "apart from yours). Nothing here can be changed; your own filings are unaffected.")
    st.button("Back to your corpus", key="lib_leave_sample", on_click=_leave_sample)
    docs = corpus.documents()
    if not docs:
        st.caption("The sample corpus is empty: load the sample on the Evaluate page.")
        st.stop()
    st.subheader(f"Documents in the sample corpus ({len(docs)})")
    render_documents(docs)
    _browse_sections({d.doc_id: d for d in docs})
    st.stop()


def _load_sample() -> None:
    files = services.sample_files()
    if not files:
        st.error("No sample filing found under data/sample/. Upload a filing instead.")
        return
    _ingest([(p.name, lambda p=p, **kw: corpus.ingest_path(p, **kw)) for p in files],
            [p.stat().st_size for p in files])


def _reingest(doc) -> None:
    source = doc.source or ""
    if source.startswith(("http://", "https://")):
        loader = lambda **kw: corpus.ingest_url(source, **kw)  # noqa: E731
    elif source and Path(source).is_file():
        data = Path(source).read_bytes()
        loader = lambda **kw: corpus.ingest_bytes(  # noqa: E731
            data, doc.file_name, source=source, **kw)
    else:
        st.error(f"The original file of {md_escape(doc.file_name)} is no longer available "
                 f"({md_escape(source) or 'uploaded in the browser'}): upload it again instead.")
        return
    try:
        corpus.delete(doc.doc_id)
    except AppError as exc:
        st.error(f"Could not remove the old copy: {md_escape(str(exc))}")
        return
    _ingest([(doc.file_name, loader)])


def _correct_form(doc) -> None:
    """Edit a document's metadata; filters and citations follow the stored values."""
    with st.form(f"lib_meta_form_{doc.doc_id}", border=False):
        cols = st.columns(4)
        entered = {
            name: col.text_input(label, value=getattr(doc, name) or "",
                                 key=f"lib_meta_{name}_{doc.doc_id}")
            for col, (name, label) in zip(cols, META_FIELDS.items(), strict=True)
        }
        st.caption("Period reads FY2023, 2024-Q1 or a period-end date (2023-04-30); tickers are "
                   "separated by commas.")
        saved = st.form_submit_button("Save corrections")
    if not saved:
        return
    changes = changed_meta(doc, entered)
    if not changes:
        st.info("Nothing changed.")
        return
    try:
        meta = corpus.update_document(doc.doc_id, **changes)
    except AppError as exc:
        st.error(f"Not saved: {md_escape(str(exc))}")
        return
    st.session_state[keys.APP_FLASH].append(
        ("success", f"Saved {', '.join(changes)} of {meta.file_name}."))
    st.rerun()


if app.link:
    _sample_view()
_follow_ingest()

docs = corpus.documents()

# --- empty state ---------------------------------------------------------------
if not docs:
    with st.container(border=True):
        st.subheader("Your corpus is empty")
        sample = services.sample_files()
        names = ", ".join(p.name for p in sample) or "none found"
        st.write(
            "Load the project's sample 10-K in one click to try the agent, or add your own "
            "filings below. Web questions use the bundled web snapshot (data/web_snapshot/) "
            "when no Tavily key is set."
        )
        if st.button("Load the sample filing", type="primary", disabled=not sample,
                     key="lib_load_sample", help=f"Sample files: {names}"):
            _load_sample()

render_outcomes(st.session_state[keys.LIB_LAST_REPORT])

# --- add filings ---------------------------------------------------------------
st.subheader("Add filings")
up_col, url_col = st.columns([3, 2], gap="large")
with up_col:
    files = st.file_uploader(
        "Upload one or more filings",
        type=UPLOAD_TYPES,
        accept_multiple_files=True,
        key=f"lib_uploader_{st.session_state[keys.LIB_UPLOAD_NONCE]}",
        help=f"Up to {services.base_settings().max_file_mb:g} MB each; "
             "the type is checked by content, not by extension.",
    )
    with st.expander("Optional metadata (applies to every file of this upload)"):
        m1, m2, m3 = st.columns(3)
        company = m1.text_input("Company", key="lib_meta_company") or None
        form_type = m2.text_input("Form", placeholder="10-K", key="lib_meta_form") or None
        period = m3.text_input("Period", placeholder="FY2023", key="lib_meta_period") or None
    if st.button("Ingest files", type="primary", disabled=not files, key="lib_ingest"):
        meta = dict(company=company, form_type=form_type, period=period)
        uploads = [(f.name, f.getvalue()) for f in files]
        _ingest([(name, lambda data=data, name=name, **kw: corpus.ingest_bytes(
            data, name, **meta, **kw)) for name, data in uploads],
            [len(data) for _, data in uploads])
with url_col:
    url = st.text_input(
        "…or an EDGAR URL",
        placeholder="https://www.sec.gov/Archives/edgar/data/…/…-10k.htm",
        key="lib_url",
        help="http(s) only; downloads are limited to SEC hosts.",
    )
    if st.button("Fetch and ingest", disabled=not url, key="lib_fetch"):
        target_url = url.strip()
        _ingest([(target_url, lambda **kw: corpus.ingest_url(target_url, **kw))])

render_edgar_fetch(settings, corpus, _ingest)
render_web_snapshot(settings, app.web)
if stale := stale_facts(corpus.store):
    st.warning(f"The figures of {len(stale)} filing(s) ({md_escape(', '.join(stale[:3]))}"
               f"{', …' if len(stale) > 3 else ''}) were read by an earlier version of the "
               "facts reader: figure answers can miss or mis-state them. Open **Check the "
               "corpus** below and repair to read them again from the kept originals.")
render_doctor_panel(settings, lambda: corpus.store)

if not docs:
    st.stop()

# --- documents -------------------------------------------------------------------
st.subheader(f"Documents ({len(docs)})")
render_documents(docs)
by_id = {d.doc_id: d for d in docs}
act_col, btn1, btn2 = st.columns([3, 1, 1], vertical_alignment="bottom")
target = act_col.selectbox(
    "Document", list(by_id), format_func=lambda i: doc_label(by_id[i]), key="lib_action_doc"
)

if btn1.button("Re-ingest", key="lib_reingest", width="stretch",
               help="Parse and index the document again from its original file or URL."):
    _reingest(by_id[target])
if btn2.button("Delete", key="lib_delete", width="stretch"):
    st.session_state[keys.LIB_CONFIRM_DELETE] = target
with st.expander("Correct company, form, period or ticker"):
    _correct_form(by_id[target])
pending = st.session_state.get(keys.LIB_CONFIRM_DELETE)
if pending in by_id:
    st.warning(f"Delete **{md_escape(doc_label(by_id[pending]))}** and all its chunks?")
    yes, no, _ = st.columns([1, 1, 4])
    if yes.button("Yes, delete", type="primary", key="lib_delete_yes"):
        corpus.delete(pending)
        st.session_state[keys.LIB_CONFIRM_DELETE] = None
        st.session_state[keys.APP_FLASH].append(
            ("success", f"Deleted {by_id[pending].file_name}."))
        st.rerun()
    if no.button("Cancel", key="lib_delete_no"):
        st.session_state[keys.LIB_CONFIRM_DELETE] = None
        st.rerun()

st.subheader("Figures")
render_figures_panel(corpus.store, docs,
                     on_open=lambda chunk, row: open_in_browser(corpus.store, chunk, row))
_browse_sections(by_id)
