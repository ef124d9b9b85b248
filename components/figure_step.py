"""What a figure step shows in its card: the facts a look-up used (each with its source and
page, alternatives beside it) and the arithmetic of a compute step.

Drawn from the step's events (``facts_found``, ``figure_computed``), live or replayed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st

from components.figures_view import table_frame
from components.text import md_escape
from core.figures.units import amount
from core.foundation.pages import page_ref

FIGURE_TOOLS = ("figure_lookup", "compute")


def facts_frame(facts: Sequence[Any]) -> pd.DataFrame:
    """One row per fact: input, line item, period, value (as printed and read), source, page."""
    rows = []
    for f in facts:
        where = f"XBRL {f.concept}" if f.source == "xbrl" and f.concept else f"{f.source} row"
        if f.dims:
            where += f" ({f.dims})"
        rows.append({"input": f.ref, "line item": f.label, "period": f.period,
                     "printed": f.printed, "value": amount(f.value, f.unit),
                     "unit": f.unit, "source": where,
                     "page": page_ref(f.page, getattr(f, "page_label", None), short=True),
                     "": "used" if f.used else "alternative"})
    return pd.DataFrame(rows, columns=["input", "line item", "period", "printed", "value",
                                       "unit", "source", "page", ""])


def _said(missing: Sequence[str], no_statements: Sequence[str], notes: Sequence[str]) -> None:
    for m in missing:
        st.warning("Missing: " + md_escape(m) + " — not guessed.")
    for name in no_statements:
        st.info(md_escape(f"{name} holds no financial statements (no figures to read)."))
    for note in notes:
        st.caption(md_escape(note))


def render_facts_found(e: Any, *, key: str) -> None:
    """A look-up step's facts (``FactsFound``)."""
    periods = ", ".join(getattr(e, "periods", []) or [])
    used = sum(1 for f in e.facts if f.used)
    st.markdown(f"**Facts looked up** — {md_escape(e.metric)}"
                + (f" for {md_escape(periods)}" if periods else "")
                + f": {used} found" + (f", {len(e.missing)} missing" if e.missing else ""))
    if e.facts:
        st.dataframe(facts_frame(e.facts), hide_index=True, width="stretch",
                     key=f"{key}_facts")
    _said(e.missing, getattr(e, "no_statements", []), getattr(e, "notes", []))


def render_figure_computed(e: Any, *, key: str) -> None:
    """A compute step's result (``FigureComputed``): value, formula, work, table."""
    r = e.result
    value = r.display or ("not computed" if r.value is None else str(r.value))
    st.markdown(f"**Computed:** {md_escape(value)}")
    st.caption("Formula: " + md_escape(e.formula))
    if r.work:
        st.caption("Work: " + md_escape(r.work))
    frame = table_frame(r, {})
    if not frame.empty:
        st.dataframe(frame, hide_index=True, width="stretch", key=f"{key}_work")
    _said(r.missing, r.no_statements, r.notes)
