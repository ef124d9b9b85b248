"""Evidence tables (every retrieval stage's rank and score) and the reranker chart."""

from __future__ import annotations

import html
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from components.text import preview
from core.agent.events import HitView

STAGES = ("keyword", "vector", "fused", "reranked")


def hits_frame(hits: Sequence[HitView]) -> pd.DataFrame:
    """One row per hit: rank, source, then score and rank at each stage it went through."""
    rows = []
    for h in hits:
        row: dict[str, object] = {
            "rank": h.rank,
            "source": h.label,
            "where": _where(h),
            "score": round(h.score, 4),
        }
        for stage in STAGES:
            s = h.stages.get(stage)
            row[stage] = round(s.score, 4) if s else None
            row[f"{stage} #"] = s.rank if s else None
        row["text"] = preview(h.text, 200)
        row["id"] = h.id
        rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    unused = [c for st_ in STAGES for c in (st_, f"{st_} #") if frame[c].isna().all()]
    return frame.drop(columns=unused)


def _where(h: HitView) -> str:
    if h.kind == "web":
        return f"{h.date or 'undated'} · {h.url or h.id}"
    page = f" · p. {h.page}" if h.page else ""
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
        "id": st.column_config.TextColumn(width="small"),
    }
    for stage in STAGES:
        config[stage] = st.column_config.NumberColumn(format="%.4f", help=f"{stage} score")
        config[f"{stage} #"] = st.column_config.NumberColumn(help=f"rank at the {stage} stage")
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
    fig = go.Figure(go.Bar(
        x=scores, y=labels, orientation="h", marker_color=colours,
        hovertext=[html.escape(preview(h.text, 160)) for h in ordered], hoverinfo="x+text",
    ))
    fig.update_layout(
        height=max(160, 34 * len(ordered) + 60),
        margin=dict(l=10, r=10, t=30, b=10),
        yaxis=dict(autorange="reversed"),
        xaxis_title="reranker score",
        title=dict(text="Reranker scores", font=dict(size=13)),
    )
    return fig


def bar_label(h: HitView) -> str:
    """Short label that tells hits apart: section, page and chunk number, or the page title."""
    if h.kind == "web":
        return preview(h.label, 44)
    page = f" p.{h.page}" if h.page else ""
    number = h.id.rsplit("-", 1)[-1].lstrip("0") or "0"
    return f"{preview(h.section or h.label, 30)}{page} #{number}"


def render_rerank_chart(hits: Sequence[HitView], *, key: str) -> None:
    """The reranker bar chart (nothing when there are no hits)."""
    if hits:
        st.plotly_chart(rerank_figure(hits), key=key, config={"displayModeBar": False})
