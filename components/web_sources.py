"""The web snapshot's articles as a table (demo articles labelled, their URLs unverified),
and the Library's form to add saved pages or search results to it."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from components import keys
from components.text import md_escape
from core.foundation.errors import AppError
from core.retrieval import web_saved
from core.retrieval.web_saved import WebSource

KIND = {"demo": "Demo article", "saved": "Saved by you", "": "Web page"}


def sources_frame(sources: Sequence[WebSource]) -> pd.DataFrame:
    """One row per article: kind, date, title, publisher, URL (marked unverified for demos)."""
    return pd.DataFrame([{
        "Kind": KIND.get(s.provenance, "Web page"),
        "Date": s.date or "undated",
        "Title": s.title,
        "Publisher": s.publisher or "",
        "URL": f"(unverified) {s.url}" if s.provenance == "demo" else s.url,
    } for s in sources], columns=["Kind", "Date", "Title", "Publisher", "URL"])


def render_web_sources(sources: Sequence[WebSource]) -> None:
    """The snapshot table with a line saying what demo articles are (plain cell text)."""
    demo = sum(s.provenance == "demo" for s in sources)
    saved = sum(s.provenance == "saved" for s in sources)
    st.caption(f"{demo} demo article(s) written for this project from memory — not copies of "
               f"real news, their URLs unverified — and {saved} page(s) saved by you. Web steps "
               "search these when no Tavily key is set; citations and exports label demo "
               "articles as such.")
    if sources:
        st.dataframe(sources_frame(sources), hide_index=True, width="stretch")


def _add_to_snapshot(add, settings, web) -> None:
    """Run ``add()`` (a core.retrieval.web_saved call), then let web search see the result."""
    try:
        written = add()
    except AppError as exc:
        st.error(f"Not added: {md_escape(str(exc))}")
        return
    if hasattr(web, "refresh"):
        web.refresh()
    n = len(written) if isinstance(written, list) else 1
    st.session_state[keys.APP_FLASH].append(
        ("success", f"Added {n} page(s) to the web snapshot ({settings.saved_web_dir})."))
    st.rerun()


def render_web_snapshot(settings, web) -> None:
    """The Library's web snapshot section: its articles, and a form to add saved pages or
    search results (``web``, the web search, is refreshed after an addition)."""
    st.subheader("Web snapshot")
    render_web_sources(web_saved.list_sources(settings))
    with st.expander("Add your own saved page or search results"):
        page, results = st.tabs(["A saved page", "Search results (JSON)"])
        with page, st.form("lib_web_page", border=False):
            f = st.file_uploader("Page saved from your browser (.html, .md or .txt)",
                                 type=["html", "htm", "md", "txt"], key="lib_web_file")
            c1, c2 = st.columns(2)
            url = c1.text_input("Its address (URL)", key="lib_web_url")
            title = c2.text_input("Title", key="lib_web_title")
            c3, c4 = st.columns(2)
            date = c3.text_input("Published", placeholder="2024-08-19", key="lib_web_date")
            publisher = c4.text_input("Publisher", key="lib_web_publisher")
            if st.form_submit_button("Add the page") and f is not None:
                _add_to_snapshot(lambda: web_saved.add_saved_page(
                    settings, data=f.getvalue(), file_name=f.name, url=url, title=title,
                    date=date or None, publisher=publisher), settings, web)
        with results, st.form("lib_web_results", border=False):
            j = st.file_uploader("Results as JSON: Tavily's reply, or a list of {url, title, "
                                 "content, published_date}", type=["json"], key="lib_web_json")
            if st.form_submit_button("Add the results") and j is not None:
                _add_to_snapshot(lambda: web_saved.add_search_results(settings, j.getvalue()),
                                 settings, web)
