"""One side of the Compare page: a run's cost, answer and evidence."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from components.answer import render_answer
from components.text import md_escape, preview
from core.agent.state import Evidence
from core.runs import RunRecord

SCORE_LABELS = {
    "faithfulness": "Faithfulness",
    "answer_correctness": "Correctness",
    "context_precision": "Context precision",
    "context_recall": "Context recall",
    "evidence_recall": "Evidence recall",
    "citation_validity": "Citation validity",
    "cited_sentences": "Cited sentences",
}


def evidence_frame(evidence: Sequence[Evidence]) -> pd.DataFrame:
    """The numbered evidence of a run: [n], source, where, score, text preview."""
    return pd.DataFrame([
        {
            "[n]": n,
            "kind": e.kind,
            "source": e.title or e.label if e.kind == "web" else e.label,
            "where": (f"{e.date or 'undated'} · {e.url or e.id}" if e.kind == "web" else
                      f"{e.section or ''}{f' · p. {e.page}' if e.page else ''}"),
            "score": round(e.score, 4),
            "text": preview(e.text, 220),
        }
        for n, e in enumerate(evidence, start=1)
    ])


def run_metrics(record: RunRecord) -> dict[str, Any]:
    """Time, LLM calls, tokens, steps and evidence count of a run."""
    u = record.total_usage
    evidence = record.evidence or (record.answer.evidence if record.answer else [])
    return {
        "seconds": record.wall_s,
        "calls": u.calls,
        "tokens": u.total,
        "steps": len({h.step for h in record.history}) if record.kind == "deep" else 1,
        "evidence": len(evidence),
    }


def render_side(
    record: RunRecord,
    *,
    title: str,
    subtitle: str,
    key: str,
    open_citation: Callable[[dict[str, Any]], None] | None = None,
    scores: Sequence[Any] = (),
) -> None:
    """Metrics, answer with citations, and evidence of one run."""
    st.subheader(title)
    st.caption(subtitle)
    m = run_metrics(record)
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Time", f"{m['seconds']:.1f} s")
    c2.metric("LLM calls", m["calls"])
    c3.metric("Tokens", f"{m['tokens']:,}")
    c4.metric("Evidence", m["evidence"], help=f"{m['steps']} step(s)")
    shown = [m for m in scores if m.value is not None]
    if shown:
        cols = st.columns(len(shown))
        for col, m in zip(cols, shown, strict=True):
            col.metric(SCORE_LABELS.get(m.key, m.key), f"{m.value:.2f}",
                       help=f"{m.name} · judge: {m.judge}" + (f" · {m.note}" if m.note else ""))
    answer = record.answer
    if answer is None:
        st.warning("This run has no answer" + (f": {md_escape(record.error)}" if record.error
                                               else "."))
        return
    render_answer(
        answer.text, [c.model_dump() for c in answer.citations], key=key,
        stop_reason=record.stop_reason.code if record.stop_reason else "",
        source=answer.source, invalid_markers=answer.invalid_markers,
        not_found=answer.not_found, open_citation=open_citation,
    )
    evidence = record.evidence or answer.evidence
    if evidence:
        st.markdown("**Evidence**")
        st.dataframe(evidence_frame(evidence), hide_index=True, width="stretch",
                     column_config={"text": st.column_config.TextColumn(width="large")})
