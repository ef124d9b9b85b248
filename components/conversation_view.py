"""A conversation on the Research screen: the earlier questions of a follow-up run above it
(each with its answer's first line and a link to its run), what the follow-up carried over,
and the follow-up box under a finished answer. Data from ``core.app.conversation``."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

from components.text import md_escape, preview
from core.app.conversation import Turn

FOLLOW_FORM = "res_follow_form"
FOLLOW_BOX = "res_follow_text"


def render_thread(turns: Sequence[Turn], carried: str, *,
                  on_open: Callable[[str], None]) -> None:
    """The earlier questions, oldest first, each a button opening its run (``on_open``
    with the run's id); then ``carried``.

    Buttons, not ``st.page_link``: a page link to the page already open reruns it with the
    new run but leaves the address bar naming the old one (so a refresh or Back went
    astray); ``on_open`` sets the address as a follow-up does."""
    if turns:
        with st.container(border=True, key="res_thread"):
            st.caption(f"Conversation · {len(turns)} earlier question(s)")
            for i, turn in enumerate(turns, 1):
                st.button(f"{i}. {preview(turn.question, 120)}", type="tertiary",
                          key=f"res_thread_{turn.run_id}", on_click=on_open,
                          args=(turn.run_id,), help="Open this question's run.")
                said = turn.answer or f"(no answer: {turn.status})"
                st.caption(md_escape(preview(said, 300)))
    if carried:
        st.caption("↪ " + md_escape(carried))


def follow_up_box(*, key: str = FOLLOW_FORM) -> str | None:
    """The follow-up form under a finished answer: the words typed when sent, else None."""
    with st.form(key, clear_on_submit=True, border=True):
        text = st.text_input(
            "Ask a follow-up", key=FOLLOW_BOX,
            placeholder="e.g. and AMD? · what about 2023? · rank them by net margin instead",
            help="Asked in this conversation: the companies, measure and periods of the "
                 "question above are carried over unless you name others.")
        sent = st.form_submit_button("Ask the follow-up", type="primary")
    return text if sent and text and text.strip() else None
