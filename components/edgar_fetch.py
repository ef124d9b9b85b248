"""Library: load filings from EDGAR by ticker. The analyst names a ticker (or CIK), forms and
fiscal years; the filings EDGAR lists are shown, and the chosen ones are downloaded and
ingested by the page's own background batch (its progress, its outcomes table). Listing and
loading are ``core.app.edgar_load``'s; an unreachable EDGAR is said plainly."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from components.text import md_escape
from core.app.edgar_load import list_filings, load_one
from core.foundation.errors import AppError
from core.ingest.edgar import EdgarUnreachable, parse_years

TICKER = "lib_edgar_ticker"
FORMS = "lib_edgar_forms"
YEARS = "lib_edgar_years"
LIST = "lib_edgar_list"
FOUND = "lib_edgar_found"
CHOSEN = "lib_edgar_chosen"
LOAD = "lib_edgar_load"
FORM_CHOICES = ["10-K", "10-Q", "10-K/A", "10-Q/A", "20-F", "8-K"]

Ingest = Callable[[list[tuple[str, Callable[..., object]]], list[int] | None], None]


def filings_frame(found) -> pd.DataFrame:
    """The filings EDGAR lists, as the table shows them."""
    return pd.DataFrame([{"company": f.company, "form": f.form,
                          "fiscal year": f"FY{f.fiscal_year}" if f.fiscal_year else "",
                          "period": f.report_date, "filed": f.filed,
                          "document": f.primary_document} for f in found])


def _list(settings, ticker: str, forms: list[str], years: str) -> None:
    st.session_state[FOUND] = None
    try:
        found = list_filings(settings, ticker, forms, parse_years(years))
    except EdgarUnreachable as exc:
        st.error(f"{md_escape(str(exc))} Check the network connection, or download the "
                 "filing in a browser and upload it above.")
        return
    except AppError as exc:
        st.error(md_escape(str(exc)))
        return
    if not found:
        span = f" for fiscal years {years}" if years.strip() else ""
        st.info(f"EDGAR lists no {'/'.join(forms)} filing of {md_escape(ticker.upper())}{span}.")
        return
    st.session_state[FOUND] = found


def render_edgar_fetch(settings, corpus, ingest: Ingest) -> None:
    """The "Load from EDGAR" panel; ``ingest(items, sizes)`` starts the page's batch."""
    with st.expander("Load from EDGAR by ticker"):
        c1, c2, c3 = st.columns([1, 2, 1], vertical_alignment="bottom")
        ticker = c1.text_input("Ticker or CIK", placeholder="NVDA", key=TICKER)
        forms = c2.multiselect("Forms", FORM_CHOICES, default=["10-K"], key=FORMS)
        years = c3.text_input("Fiscal years", placeholder="2022-2024", key=YEARS,
                              help="One year (2023) or a range (2022-2024); empty: all.")
        if st.button("List filings", key=LIST, disabled=not ticker.strip() or not forms):
            _list(settings, ticker.strip(), forms, years)
        found = st.session_state.get(FOUND) or []
        if not found:
            return
        st.caption(f"{md_escape(found[0].company)} · CIK {found[0].cik} · "
                   f"{len(found)} filing(s) on EDGAR")
        st.dataframe(filings_frame(found), hide_index=True, width="stretch")
        labels = {f.accession: f.label for f in found}
        chosen = st.multiselect("Filings to load", list(labels), default=list(labels),
                                format_func=labels.get, key=CHOSEN)
        if st.button(f"Load {len(chosen)} filing(s)", key=LOAD, type="primary",
                     disabled=not chosen):
            picked = [f for f in found if f.accession in chosen]
            st.session_state[FOUND] = None
            ingest([(f.primary_document, lambda f=f, **kw: load_one(corpus, f, **kw))
                    for f in picked], None)
