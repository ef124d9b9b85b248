"""Search: a query over every filing (hybrid, vector or keyword; company, form and section
filters), the scope the query names said, hits marked and opened in the Library."""

from __future__ import annotations

import streamlit as st

from components import services
from components.search_view import render_search

st.title("Search")
st.caption("Find passages in the filings loaded, as the agent's retrieval does: hybrid search "
           "(vector and keyword rankings fused) by default. A query naming a company or a "
           "year searches that company's filings; each hit opens in its filing in the Library.")
render_search(services.current().corpus)
