"""Policy decisions as badges with one consistent colour per decision."""

from __future__ import annotations

import streamlit as st

from components.text import md_escape
from core.app.report import TOOL_WORDS

DECISION_STYLE: dict[str, tuple[str, str]] = {
    # decision: (badge colour, symbol); symbols any text font has, not emoji
    "CONTINUE": ("blue", "→"),
    "REVISE": ("orange", "↻"),
    "FINISH": ("green", "✓"),
}
COVERAGE_STYLE: dict[str, str] = {"answered": "green", "partial": "orange", "none": "red"}
TOOL_LABEL = TOOL_WORDS  # one naming of the tools for screen and exports


def decision_style(decision: str) -> tuple[str, str]:
    """(colour, icon) of a policy decision; unknown decisions are grey."""
    return DECISION_STYLE.get(decision.upper(), ("gray", "•"))


def render_policy_badge(decision: str, reason: str = "") -> None:
    """The policy's decision as a coloured badge, followed by its reason."""
    colour, icon = decision_style(decision)
    st.badge(f"Policy: {icon} {decision.upper()}", color=colour)
    if reason:
        st.caption(md_escape(reason))


def render_coverage_badge(coverage: str) -> None:
    """How well the step's evidence answers its sub-question."""
    st.badge(f"coverage: {coverage}", color=COVERAGE_STYLE.get(coverage, "gray"))
