"""The learned policy beside the rule: held-out accuracy of each, which one decides, weights."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from components.text import md_escape


def render_policy(model: Any | None) -> None:
    """Rule vs learned accuracy on held-out runs (``core.agent.policy.learned.PolicyModel``)."""
    if model is None:
        st.caption("No learned policy yet: the rule decides CONTINUE / REVISE / FINISH. Fit one "
                   "from the stored runs (and their evaluations) to compare it with the rule.")
        return
    c1, c2, c3 = st.columns(3)
    c1.metric("Rule accuracy (held-out)", f"{model.rule_accuracy:.2f}",
              help="Agreement of the rule's decisions with the outcome-corrected labels.")
    c2.metric("Learned accuracy (held-out)", f"{model.learned_accuracy:.2f}",
              help="Logistic regression, grouped k-fold by run (a run is never both trained "
                   "on and scored).")
    c3.metric("Decides", "learned" if model.better else "rule")
    (st.success if model.better else st.info)(md_escape(model.verdict))
    st.caption(f"{model.examples} decision(s) from {model.runs} run(s); fitted "
               f"{model.fitted_at.replace('T', ' ')[:16]} UTC.")
    with st.expander("Weights (standardised features)"):
        frame = pd.DataFrame(model.weights, index=model.labels, columns=model.features).round(2)
        st.dataframe(frame, width="stretch")
