"""The final answer with its [n] citations; selecting one opens the cited evidence."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from components.text import md_escape, safe_answer

STOP_STYLE = {"completed": "green", "policy_finish": "green"}


def citation_label(c: dict[str, Any]) -> str:
    """'[n] label' for a citation dict (keys n, evidence_id, kind, label, url)."""
    return f"[{c.get('n')}] {c.get('label') or c.get('evidence_id')}"


def render_answer(
    answer: str,
    citations: Sequence[dict[str, Any]],
    *,
    key: str,
    stop_reason: str = "",
    stop_message: str = "",
    source: str = "",
    invalid_markers: Sequence[str] = (),
    not_found: Sequence[str] = (),
    open_citation: Callable[[dict[str, Any]], None] | None = None,
) -> None:
    """Answer text (links/images/HTML stripped), its sources and a citation picker."""
    with st.container(border=True):
        head, badge = st.columns([4, 1], vertical_alignment="center")
        head.subheader("Answer")
        if stop_reason:
            with badge:
                st.badge(stop_reason.replace("_", " "), color=STOP_STYLE.get(stop_reason, "orange"))
        st.markdown(safe_answer(answer) or "_No answer._")
        if source:
            st.caption(f"Written by the {'LLM' if source == 'llm' else 'offline engine'}"
                       + (f" · {md_escape(stop_message)}" if stop_message else ""))
        if invalid_markers:
            st.warning("Removed citation markers with no matching evidence: "
                       + md_escape(", ".join(invalid_markers)))
        if not_found:
            st.info("Not found in the evidence: " + md_escape("; ".join(not_found)))
    if not citations:
        st.caption("This answer cites no evidence.")
        return
    st.markdown("**Sources**")
    lines = []
    for c in citations:
        where = c.get("url") if c.get("kind") == "web" else c.get("evidence_id")
        icon = "web" if c.get("kind") == "web" else "filing"
        lines.append(f"- *{icon}* · {md_escape(citation_label(c))} · {md_escape(where or '')}")
    st.markdown("\n".join(lines))
    numbers = [c.get("n") for c in citations]
    by_n = {c.get("n"): c for c in citations}
    picked = st.pills(
        "Open a citation", numbers, format_func=lambda n: f"[{n}]", key=key,
        help="Shows the cited chunk in its document, section and page.",
    )
    if picked is not None and open_citation is not None:
        open_citation(by_n[picked])
