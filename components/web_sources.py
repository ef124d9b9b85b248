"""The web snapshot's articles as a table: demo articles labelled, their URLs unverified."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

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
