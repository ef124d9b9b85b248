"""Evidence tables (every retrieval stage's rank and score) and the reranker chart.

Stage cells read "#3 · 0.0465" (rank first: raw scores of different stages are not on one
scale) and "–" where a hit did not go through a stage. The chart shows the reranker's
scores relative to the best one (raw scores on hover): fused RRF scores differ in the
third decimal and would otherwise draw bars of one length.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from components.text import preview
from core.agent.events import HitView
from core.foundation.pages import page_ref

STAGES = ("keyword", "vector", "fused", "reranked")


def stage_cell(stage) -> str:
    """'#3 · 0.0465' for a stage a hit went through, '–' otherwise."""
    if stage is None:
        return "–"
    return f"#{stage.rank} · {stage.score:.4g}"


def hits_frame(hits: Sequence[HitView]) -> pd.DataFrame:
    """One row per hit: rank, source, where, then rank and score at each stage it went
    through (stages no hit went through are left out), a text preview and the id."""
    rows = []
    for h in hits:
        row: dict[str, object] = {"rank": h.rank, "source": h.label, "where": _where(h)}
        for stage in STAGES:
            row[stage] = stage_cell(h.stages.get(stage))
        row["text"] = preview(h.text, 200)
        row["id"] = h.id
        rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    unused = [st_ for st_ in STAGES if (frame[st_] == "–").all()]
    return frame.drop(columns=unused)


def relative_scores(scores: Sequence[float]) -> list[float]:
    """Scores mapped to 10..100 (best = 100, worst = 10): min-max, so small differences show;
    all equal -> all 100."""
    if not scores:
        return []
    lo, hi = min(scores), max(scores)
    if hi - lo <= 1e-12:
        return [100.0 for _ in scores]
    return [round(10 + 90 * (s - lo) / (hi - lo), 1) for s in scores]


def _where(h: HitView) -> str:
    if h.kind == "web":
        unverified = " (demo article, URL unverified)" if "demo article" in (h.label or "") else ""
        return f"{h.date or 'undated'} · {h.url or h.id}{unverified}"
    where = page_ref(h.page, getattr(h, "page_label", None), short=True)
    page = f" · {where}" if where else ""
    return f"{h.section or ''}{page}"


def render_hits(hits: Sequence[HitView], *, key: str, height: int | None = None) -> None:
    """The hits table; text is shown as plain cell text (never rendered as markup)."""
    if not hits:
        st.info("No results for this query. The policy may revise the step.")
        return
    frame = hits_frame(hits)
    config = {
        "rank": st.column_config.NumberColumn(width="small"),
        "source": st.column_config.TextColumn(width="medium"),
        "text": st.column_config.TextColumn(width="large"),
        "id": st.column_config.TextColumn(width="small", help="Chunk id or URL"),
    }
    for stage in STAGES:
        config[stage] = st.column_config.TextColumn(
            help=f"Rank and score at the {stage} stage (– : not found by it)")
    st.dataframe(frame, hide_index=True, width="stretch", column_config=config, key=key,
                 height=height or "auto")


def rerank_figure(hits: Sequence[HitView]):
    """A horizontal plotly bar chart of the reranker's scores, best on top."""
    import plotly.graph_objects as go

    ordered = sorted(hits, key=lambda h: h.rank)
    # plotly renders a subset of HTML (links included) in labels: escape untrusted text
    labels = [html.escape(f"[{h.rank}] {bar_label(h)}") for h in ordered]
    scores = [h.stages["reranked"].score if "reranked" in h.stages else h.score for h in ordered]
    colours = ["#2e7d32" if h.kind == "web" else "#1f4e79" for h in ordered]
    hover = [html.escape(f"rank {h.rank} · raw score {s:.4g} · {preview(h.text, 140)}")
             for h, s in zip(ordered, scores, strict=True)]
    fig = go.Figure(go.Bar(
        x=relative_scores(scores), y=labels, orientation="h", marker_color=colours,
        hovertext=hover, hoverinfo="text",
    ))
    fig.update_layout(
        height=max(160, 34 * len(ordered) + 60),
        margin=dict(l=10, r=10, t=30, b=10),
        yaxis=dict(autorange="reversed"),
        xaxis=dict(title="score relative to the best (best = 100; raw score on hover)",
                   range=[0, 105]),
        title=dict(text="Evidence kept, best first", font=dict(size=13)),
    )
    return fig


def bar_label(h: HitView) -> str:
    """Short label that tells hits apart: section, page and chunk number, or the page title."""
    if h.kind == "web":
        return preview(h.label, 44)
    where = page_ref(h.page, getattr(h, "page_label", None), short=True)
    page = f" {where}" if where else ""
    number = h.id.rsplit("-", 1)[-1].lstrip("0") or "0"
    return f"{preview(h.section or h.label, 30)}{page} #{number}"


def render_rerank_chart(hits: Sequence[HitView], *, key: str) -> None:
    """The reranker bar chart (nothing when there are no hits)."""
    if hits:
        st.plotly_chart(rerank_figure(hits), key=key, config={"displayModeBar": False})
