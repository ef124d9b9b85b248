"""Peers: the catalogue's metrics for every company loaded (or those picked) by fiscal year,
each figure cited, with a chart and CSV / Excel export."""

from __future__ import annotations

import streamlit as st

from components import services
from components.peer_grid import render_peer_grid
from components.search_view import open_chunk

st.title("Peers")
st.caption("The metric catalogue's figures side by side: each company's filings read as an "
           "answer reads them (the year's own filing first, XBRL before a table row), derived "
           "metrics computed from their inputs.")
corpus = services.current().corpus
if not corpus.documents():
    st.info("The corpus is empty: add filings in the **Library**, then compare their figures "
            "here.")
    st.page_link("app_pages/library.py", label="Go to the Library")
    st.stop()


def _open(chunk_id: str) -> None:
    found = corpus.store.get_chunks([chunk_id])
    if found:
        open_chunk(found[0])


render_peer_grid(corpus.store, on_open=_open)
