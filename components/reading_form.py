"""The reading of the question at plan review: what the engine understood, shown first, and a
form to correct any slot (the kind of answer, the companies, the measure, the period, the
direction or threshold). Applying it makes the figure steps again from the slots
(``core.app.run_session.corrected_plan``); the text steps stay."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

from components.text import md_escape
from core.foundation.types import DocumentMeta
from core.reading.edit import (
    EDITABLE_KINDS,
    LATEST,
    TESTS,
    company_choices,
    edited_reading,
    year_choices,
)
from core.reading.model import KIND_WORDS, Reading


def render_reading(reading: Reading | None, documents: Sequence[DocumentMeta], *, key: str,
                   apply: Callable[[Reading], str | None]) -> None:
    """The reading line and the form that corrects it; ``apply`` returns an error to show,
    or None when the plan was made again."""
    if reading is None or not (reading.figures or reading.nearest):
        return
    st.markdown(f"**{md_escape(reading.summary())}**")
    if reading.unread:
        st.caption(md_escape(reading.not_answered()))
    other = reading.alternative
    if other is not None:
        st.caption(f"The two readers differ. {md_escape(other.summary())}")
        if st.button("Use this reading instead", key=f"{key}_other"):
            mine = reading.model_copy(update={"alternative": None})
            error = apply(other.model_copy(update={"source": "analyst", "alternative": mine}))
            if error:
                st.error(md_escape(error))
    with st.expander("Correct the reading", expanded=False):
        _form(reading, documents, key, apply)


def _form(reading: Reading, documents: Sequence[DocumentMeta], key: str,
          apply: Callable[[Reading], str | None]) -> None:
    from core.metrics import catalog

    choices = company_choices(documents)
    metrics = {k: m.label for k, m in sorted(catalog().metrics.items(),
                                             key=lambda kv: kv[1].label)}
    current = reading.measures[0].metric if reading.measures else \
        (reading.nearest[0] if reading.nearest else None)
    years = [LATEST, *year_choices(documents)]
    named = next((p for p in reading.periods if p in years), LATEST)
    with st.form(f"{key}_reading"):
        a, b = st.columns(2)
        kind = a.selectbox("Kind of answer", EDITABLE_KINDS, format_func=KIND_WORDS.get,
                           index=EDITABLE_KINDS.index(reading.kind)
                           if reading.kind in EDITABLE_KINDS else 0, key=f"{key}_kind")
        metric = b.selectbox("Measure", list(metrics), format_func=metrics.get,
                             index=list(metrics).index(current) if current in metrics else 0,
                             key=f"{key}_metric")
        picked = st.multiselect("Companies", list(choices), key=f"{key}_companies",
                                default=[shown for shown, ref in choices.items() if any(
                                    c.name == ref.name and c.cik in ("", ref.cik)
                                    for c in reading.companies)])
        c, d, e = st.columns(3)
        period = c.selectbox("Period", years, index=years.index(named), key=f"{key}_period")
        direction = d.selectbox("Higher or lower first", ["higher", "lower"],
                                index=1 if reading.direction == "lower" else 0,
                                key=f"{key}_direction",
                                help="Compare, rank, difference: which comes first.")
        tests = list(TESTS)
        test = e.selectbox("Yes / no tests", tests, format_func=TESTS.get,
                           index=tests.index(reading.test) if reading.test in tests else 0,
                           key=f"{key}_test", help="Yes / no and trend questions only.")
        threshold = st.number_input("Threshold (in the figure's unit: 20 for 20%)",
                                    value=reading.threshold, key=f"{key}_threshold")
        if st.form_submit_button("Apply this reading to the plan"):
            edited = edited_reading(reading, kind=kind,
                                    companies=[choices[n] for n in picked], metric=metric,
                                    period=period, direction=direction, test=test,
                                    threshold=threshold)
            error = apply(edited)
            if error:
                st.error(md_escape(error))
