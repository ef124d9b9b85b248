"""The Compare page's parts: who covers each sub-question, how the answers differ, and one
side's cost, answer and evidence."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from components.answer import render_answer
from components.text import md_escape, preview
from core.agent.state import Evidence
from core.app.compare import DiffLine, SideVerdict, Verdict
from core.app.compare_verdict import Overall, coverage_count
from core.app.report import tool_words
from core.app.runs import RunRecord
from core.foundation.pages import page_ref

COVERAGE_MARK = {"covered": "✓ covered", "partial": "◐ partly", "missing": "✗ not covered"}
WINNER_WORDS = {"deep": "deep agent", "baseline": "baseline", "both": "both",
                "neither": "neither"}

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
                      " · ".join(x for x in (e.section or "", page_ref(e.page, e.page_label,
                                                                       short=True)) if x)),
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


def _cell(v: SideVerdict) -> str:
    cites = "".join(f"[{n}]" for n in v.markers)
    note = f" ({v.note})" if v.note else ""
    return f"{COVERAGE_MARK[v.coverage]}{note} {cites}".strip()


def verdicts_frame(verdicts: Sequence[Verdict]) -> pd.DataFrame:
    """One row per sub-question: each answer's coverage with its [n] evidence, and who wins."""
    return pd.DataFrame([{
        "sub-question": v.sub_question,
        "tool": tool_words(v.tool),
        "baseline": _cell(v.baseline),
        "deep agent": _cell(v.deep),
        "better": WINNER_WORDS[v.winner],
        "baseline's sentence": v.baseline.sentence,
        "deep's sentence": v.deep.sentence,
    } for v in verdicts])


def render_verdicts(verdicts: Sequence[Verdict]) -> None:
    """Which answer covers each sub-question, with which evidence."""
    st.subheader("Sub-question by sub-question")
    if not verdicts:
        st.info("No sub-questions to compare.")
        return
    deep, base = (coverage_count(verdicts, side).words() for side in ("deep", "baseline"))
    st.markdown(f"**The deep agent covers {deep} sub-question(s); the baseline covers "
                f"{base}.**")
    st.caption("A sub-question counts as covered when a cited sentence of the answer addresses "
               "it (similarity to the sub-question ≥ 0.5, partly ≥ 0.32) and is about its "
               "company and its measure or topic; one that asks which company wins needs a "
               "sentence naming one (else it is only partly covered). [n] is the evidence "
               "behind it. Uncited sentences count for nothing.")
    st.dataframe(verdicts_frame(verdicts), hide_index=True, width="stretch",
                 column_config={"sub-question": st.column_config.TextColumn(width="medium"),
                                "baseline's sentence": st.column_config.TextColumn(width="large"),
                                "deep's sentence": st.column_config.TextColumn(width="large")})


def render_diff(lines: Sequence[DiffLine]) -> None:
    """What both answers say, and what only one of them says."""
    st.subheader("How the answers differ")
    groups = {"both": [], "deep": [], "baseline": []}
    for line in lines:
        groups[line.kind].append(line)
    c1, c2, c3 = st.columns(3)
    for col, kind, title in ((c1, "deep", "Only the deep agent says"),
                             (c2, "both", "Both say"),
                             (c3, "baseline", "Only the baseline says")):
        with col:
            st.markdown(f"**{title}** ({len(groups[kind])})")
            for line in groups[kind][:12]:
                st.markdown(f"- {md_escape(preview(line.text, 260))}")
            if len(groups[kind]) > 12:
                st.caption(f"… and {len(groups[kind]) - 12} more")


def render_overall(o: Overall) -> None:
    """The comparison's one-line verdict and its reasons."""
    st.subheader("Verdict")
    box = st.success if o.winner == "deep" else st.warning if o.winner == "baseline" else st.info
    box(md_escape(o.line))
    st.caption("Counted on cited claims only (banners, notes and headings are not claims): "
               "sub-questions a cited claim covers (as in the table above; one partly covered "
               "weighs half when the counts are compared), filing passages cited "
               "(primary evidence, not web pages) and cited claims that state a figure.")


def render_side(
    record: RunRecord,
    *,
    title: str,
    subtitle: str,
    key: str,
    open_citation: Callable[[dict[str, Any]], None] | None = None,
    scores: Sequence[Any] = (),
    draw_answer: Callable[[RunRecord], None] | None = None,
    time_note: str = "",
) -> None:
    """Metrics, answer with citations, and evidence of one run."""
    st.subheader(title)
    st.caption(subtitle)
    m = run_metrics(record)
    c1, c2, c3, c4 = st.columns(4)
    c1.metric("Time", f"{m['seconds']:.1f} s",
              help=time_note or "Time to answer (plan review and one-time setup excluded).")
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
    if draw_answer is not None:
        draw_answer(record)
    else:
        render_answer(
            answer.text, [c.model_dump() for c in answer.citations], key=key,
            stop_reason=record.stop_reason.code if record.stop_reason else "",
            source=answer.source, invalid_markers=answer.invalid_markers,
            not_found=answer.not_found, open_citation=open_citation,
            checks=[c.model_dump() for c in answer.checks],
        )
    evidence = record.evidence or answer.evidence
    if evidence:
        st.markdown("**Evidence**")
        st.dataframe(evidence_frame(evidence), hide_index=True, width="stretch",
                     column_config={"text": st.column_config.TextColumn(width="large")})
