"""The final answer: its text with hoverable, clickable [n] markers, its sources, and the cited
passage opened in place (beside the answer, or below it in narrow columns)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import streamlit as st

from components.analysis_view import as_analyses, render_analyses
from components.citation_panel import quote_of
from components.cite_text import render_cited_text
from components.figures_view import as_results, render_figures
from components.text import md_escape, safe_answer
from core.app.cited import CitedPassage

STOP_STYLE = {"completed": "green", "policy_finish": "green"}


def citation_label(c: Mapping[str, Any]) -> str:
    """'[n] label' for a citation dict (keys n, evidence_id, kind, label, url)."""
    return f"[{c.get('n')}] {c.get('label') or c.get('evidence_id')}"


def source_line(c: Mapping[str, Any], p: CitedPassage | None = None) -> str:
    """One readable line per source: filing, section and page, or page title and site."""
    if c.get("kind") == "web":
        host = urlsplit(str(c.get("url") or c.get("evidence_id") or "")).hostname or ""
        line = f"[{c.get('n')}] {c.get('label') or host}" + (f" · {host}" if host else "")
        if p is not None and p.unverified:
            line += " (demo article, URL unverified)"
        return line
    if p is not None and p.kind == "chunk":
        return f"[{p.n}] {p.source} · {p.where}"
    return citation_label(c)


def check_summary(checks: Sequence[Mapping[str, Any]]) -> str:
    """'Self-check: 5 of 6 sentences supported by their citations; 1 removed (...)'."""
    ok = sum(c.get("verdict") == "supported" for c in checks)
    removed = [c for c in checks if not c.get("kept", True)]
    judge = "LLM" if any(c.get("judge") == "llm" for c in checks) else "offline rule"
    text = f"Self-check ({judge}): {ok} of {len(checks)} sentence(s) supported by their citations"
    if removed:
        text += f"; {len(removed)} removed: " + "; ".join(
            md_escape(f"“{c.get('sentence', '')[:80]}” ({c.get('reason', '')})")
            for c in removed[:3])
    return text + ". Hover a ✓ for the verdict."


def hover_info(passages: Mapping[int, CitedPassage]) -> dict[int, dict[str, str]]:
    """What hovering a marker shows: source, place and the cited sentence."""
    out = {}
    for n, p in passages.items():
        where = p.where if p.kind != "web" else p.web_where
        source = f"{p.source} (demo article)" if p.unverified else p.source
        out[n] = {"source": source, "where": where, "quote": quote_of(p)}
    return out


def row_key(key: str) -> str:
    """Session key of the fact row opened from the computation table of answer ``key``:
    ``{"n": n, "row": printed row}``."""
    return f"{key}_row"


def opened_row(key: str, n: int) -> str:
    """The fact row to highlight in citation ``n`` of answer ``key`` ('' when none)."""
    got = st.session_state.get(row_key(key)) or {}
    return str(got.get("row") or "") if got.get("n") == n else ""


def render_answer(
    answer: str,
    citations: Sequence[Mapping[str, Any]],
    *,
    key: str,
    stop_reason: str = "",
    stop_message: str = "",
    source: str = "",
    invalid_markers: Sequence[str] = (),
    not_found: Sequence[str] = (),
    passages: Mapping[int, CitedPassage] | None = None,
    panel: Callable[[CitedPassage], None] | None = None,
    beside: bool = True,
    open_citation: Callable[[Mapping[str, Any]], None] | None = None,
    checks: Sequence[Mapping[str, Any]] = (),
    figures: Sequence[Any] = (),
    evidence_ids: Sequence[str] = (),
    analyses: Sequence[Any] = (),
    evidence_pages: Mapping[str, str] | None = None,
) -> int | None:
    """Draw the answer and, when one is picked, its cited passage; returns the picked [n].

    ``passages`` (resolved citations) make the markers hoverable and ``panel`` draws the
    picked one: beside the answer (``beside``) or below it. ``open_citation`` is the older
    call shape: called with the picked citation dict instead of drawing a panel.
    ``figures`` (``FigureResult``) are drawn under the answer text as computation tables,
    their sources numbered by ``evidence_ids`` (the answer's numbered evidence); opening a
    source picks its [n] and keeps the fact's row under ``row_key(key)`` for the panel.
    ``analyses`` (``AnalysisResult``) are drawn between the text and the figures: verdict
    line, peer table and chart, their sources opened the same way (``evidence_pages``:
    evidence id -> page, for the table's source column)."""
    passages = passages or {}
    pick_key = f"{key}_pick"
    row = row_key(key)

    def open_source(n: int, printed: str) -> None:
        st.session_state[pick_key] = n
        st.session_state[row] = {"n": n, "row": printed}
    numbers = [c.get("n") for c in citations]
    can_split = beside and panel is not None and bool(citations)
    # The answer has the page's width until a passage is opened beside it (an empty column
    # held for it left half a wide screen blank).
    split = can_split and st.session_state.get(pick_key) in numbers
    main, side = st.columns([3, 2], gap="medium") if split else (st.container(), None)
    with main, st.container(border=True):
        head, badge = st.columns([4, 1], vertical_alignment="center")
        head.subheader("Answer")
        if stop_reason:
            with badge:
                st.badge(stop_reason.replace("_", " "), color=STOP_STYLE.get(stop_reason, "orange"))
        if citations:
            clicked = render_cited_text(answer, hover_info(passages), key=f"{key}_text",
                                        selected=st.session_state.get(pick_key), checks=checks)
            if clicked in numbers:
                st.session_state[pick_key] = clicked
                st.session_state.pop(row, None)
                if can_split and not split:  # drawn again with the passage's column
                    st.rerun()
        else:
            st.markdown(safe_answer(answer) or "_No answer._")
        render_analyses(as_analyses(analyses), evidence_ids, evidence_pages, key=f"{key}_an",
                        on_open=open_source if citations else None)
        render_figures(as_results(figures), evidence_ids, key=f"{key}_figs",
                       on_open=open_source if citations else None)
        if source:
            st.caption(f"Written by the {'LLM' if source == 'llm' else 'offline engine'}"
                       + (f" · {md_escape(stop_message)}" if stop_message else ""))
        if checks:
            st.caption(check_summary(checks))
        if invalid_markers:
            st.warning("Removed citation markers with no matching evidence: "
                       + md_escape(", ".join(invalid_markers)))
        if not_found:
            st.info("Not found in the evidence: " + md_escape("; ".join(not_found)))
        if not citations:
            st.caption("This answer cites no evidence.")
            return None
        st.markdown("**Sources**")
        st.markdown("\n".join(f"- {md_escape(source_line(c, passages.get(c.get('n'))))}"
                              for c in citations))
        picked = st.pills(
            "Open a citation", numbers, format_func=lambda n: f"[{n}]", key=pick_key,
            on_change=lambda: st.session_state.pop(row, None),
            help="Or click a [n] marker in the answer: the passage opens "
                 + ("beside it" if can_split else "below") + ", the cited sentence "
                 "highlighted, with the page it is on in the filing.",
        )
    if picked is None:
        return None
    chosen = passages.get(picked)
    if panel is not None and chosen is not None:
        with side if side is not None else st.container():
            panel(chosen)
    elif open_citation is not None:
        open_citation(next(c for c in citations if c.get("n") == picked))
    return picked
