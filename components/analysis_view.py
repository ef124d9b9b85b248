"""The analyses an answer states, drawn under it: for each ``AnalysisResult`` the verdict
line, what decided it, the peer table (subject, period and the date it ends, figure, inputs,
source [n]) and a plotly bar chart of the rows. A row without a figure stays in the table
("not found", with the reason) and is listed under the chart as not charted: never dropped.

``[n]`` is the 1-based place of a row's chunk among the answer's numbered evidence
(``Answer.evidence``), the number the answer's own markers use, so "Open a source" opens
the chunk in the citation panel like any marker (the fact's printed row highlighted).
Frame and figure builders are plain functions (tested without a browser);
``render_analyses`` draws them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from components.figures_view import FigureSource, OpenSource, evidence_numbers, source_pills
from components.text import md_escape
from core.analysis.model import AnalysisResult, PeerRow
from core.foundation.pages import page_ref

PEER_COLUMNS = ["#", "subject", "period", "ends", "figure", "source", "inputs"]
KIND_TITLES = {"compare": "Comparison", "rank": "Ranking", "verdict": "Verdict",
               "multi": "Figures", "criterion": "Criterion", "pick": "Largest / smallest"}
WINNER_COLOUR, PEER_COLOUR, THRESHOLD_COLOUR = "#1f4e79", "#9dbad8", "#b35900"
RANKED = ("compare", "rank", "pick")
"""Kinds whose first row is the verdict's: its bar is drawn darker."""


def as_analyses(items: Iterable[Any] | None) -> list[AnalysisResult]:
    """``AnalysisResult`` records from models or their dicts (events and run records)."""
    return [i if isinstance(i, AnalysisResult) else AnalysisResult.model_validate(i)
            for i in items or []]


def title_of(result: AnalysisResult) -> str:
    """'Comparison · operating margin'."""
    kind = KIND_TITLES.get(result.spec.kind, result.spec.kind.title())
    return f"{kind} · {result.spec.name}" if result.spec.name else kind


def verdict_line(result: AnalysisResult) -> str:
    """The line that answers the question: the lead, else the verdict, else why neither."""
    if result.lead:
        return result.lead
    if result.verdict:
        return f"{result.verdict}."
    missing = "; ".join(result.missing) or "; ".join(r.missing for r in result.rows
                                                     if r.missing)
    return "Not decided: " + (missing or "the figures it needs were not found") + "."


def _printed_rows(result: AnalysisResult) -> dict[str, str]:
    """Chunk id -> the first fact row printed in it among the figures combined (the row
    to highlight when the source opens)."""
    out: dict[str, str] = {}
    for figure in result.figures:
        for i in figure.inputs:
            if i.fact is not None and i.fact.chunk_id:
                out.setdefault(i.fact.chunk_id, i.fact.row)
    return out


def source_cell(row: PeerRow, numbers: Mapping[str, int], pages: Mapping[str, str]) -> str:
    """'[2] p. 54'; '[2] p. 54, [3] PDF p. 61'; 'p. 54 (not in the answer's evidence)'; ''
    (``pages``: evidence id -> its page as Sources says it, ``evidence_pages``)."""
    parts = []
    for cid in dict.fromkeys(row.chunk_ids):
        n, page = numbers.get(cid), pages.get(cid)
        where = " ".join(x for x in (f"[{n}]" if n else "", page or "") if x)
        if not n:
            where = (where + " " if where else "") + "(not in the answer's evidence)"
        parts.append(where)
    return ", ".join(parts)


def peer_frame(result: AnalysisResult, numbers: Mapping[str, int],
               pages: Mapping[str, str] | None = None) -> pd.DataFrame:
    """The peer table: one row per subject in the verdict's order, missing ones kept."""
    pages = pages or {}
    rows = []
    for i, r in enumerate(result.rows, start=1):
        found = r.value is not None
        rows.append({"#": r.rank if r.rank is not None else (i if found else None),
                     "subject": r.label or r.company, "period": r.period,
                     "ends": r.period_end or "",
                     "figure": (r.display or str(r.value)) if found else "not found",
                     "source": source_cell(r, numbers, pages),
                     "inputs": r.inputs if found else (r.missing or r.inputs or "not found")})
    frame = pd.DataFrame(rows, columns=PEER_COLUMNS)
    if not frame.empty and frame["#"].isna().all():
        frame = frame.drop(columns=["#"])
    if not frame.empty and not frame["ends"].astype(bool).any():
        frame = frame.drop(columns=["ends"])
    return frame


def _axis(unit: str) -> str:
    return {"percent": "%", "ratio": "ratio", "times": "times", "days": "days"}.get(unit, unit)


def charted(result: AnalysisResult) -> tuple[list[PeerRow], list[PeerRow]]:
    """``(rows drawn as bars, rows without a figure)``, both in the table's order."""
    return ([r for r in result.rows if r.value is not None],
            [r for r in result.rows if r.value is None])


def chart_figure(result: AnalysisResult):
    """Bars of the rows' figures in the table's order, each labelled with its figure as
    stated; the verdict's row darker (compare, rank, pick), a threshold drawn as a line."""
    import plotly.graph_objects as go

    bars, _ = charted(result)
    names = [r.label or r.company for r in bars]
    if len(set(names)) < len(names):  # one subject over several periods
        names = [f"{n} {r.period}".strip() for n, r in zip(names, bars, strict=True)]
    winner = result.spec.kind in RANKED and result.decided
    colours = [WINNER_COLOUR if (winner and r.rank == 1) or not winner else PEER_COLOUR
               for r in bars]
    values = [float(r.value) for r in bars]  # type: ignore[arg-type]
    texts = [r.display or f"{r.value:g}" for r in bars]
    hover = [f"{n} · {r.period}" + (f" (ends {r.period_end})" if r.period_end else "")
             for n, r in zip(names, bars, strict=True)]
    fig = go.Figure(go.Bar(x=names, y=values, text=texts, textposition="outside",
                           marker_color=colours, cliponaxis=False, customdata=hover,
                           hovertemplate="%{customdata}: %{text}<extra></extra>"))
    threshold = result.spec.threshold
    if threshold is not None and result.spec.test in ("above", "below"):
        fig.add_hline(y=threshold, line_dash="dash", line_color=THRESHOLD_COLOUR,
                      annotation_text=f"threshold {threshold:g}",
                      annotation_position="top left")
    top = max([abs(v) for v in values] + [abs(threshold or 0)]) * 1.2 or 1
    low = min([0.0, *values]) * 1.2
    name = result.spec.name or "figure"
    fig.update_layout(title=f"{name[:1].upper()}{name[1:]}", height=300,
                      margin=dict(l=10, r=10, t=40, b=10), yaxis_title=_axis(result.unit),
                      xaxis_title=None, xaxis_type="category", yaxis_range=[low, top],
                      showlegend=False)
    return fig


def analysis_sources(result: AnalysisResult, numbers: Mapping[str, int]) -> list[FigureSource]:
    """The sources the peer table cites, one per [n] and subject, in table order."""
    printed = _printed_rows(result)
    out: list[FigureSource] = []
    seen: set[tuple[int, str]] = set()
    for r in result.rows:
        label = " · ".join(x for x in (r.label or r.company, r.period) if x)
        for cid in dict.fromkeys(r.chunk_ids):
            n = numbers.get(cid)
            if not n or (n, label) in seen:
                continue
            seen.add((n, label))
            out.append(FigureSource(n, printed.get(cid, ""), label))
    return out


def all_sources(results: Sequence[AnalysisResult],
                numbers: Mapping[str, int]) -> list[FigureSource]:
    """Every analysis's sources, in order (what the answer's citations must include)."""
    return [s for r in results for s in analysis_sources(r, numbers)]


def evidence_pages(evidence: Sequence[Any]) -> dict[str, str]:
    """Evidence id -> its page as Sources says it ('p. 58', the printed number; 'PDF p. 61'
    when none is known; '' when unknown): the peer table said the PDF page as 'p. 61'
    beside Sources' 'page 58' for the same citation."""
    return {e.id: page_ref(getattr(e, "page", None), getattr(e, "page_label", None),
                           short=True) for e in evidence}


def text_width(values: Sequence[Any], *, least: int = 160, most: int = 1100) -> int:
    """Pixels a grid column needs to show its longest text whole (~7 px a character at the
    grid's font), between ``least`` and ``most``: a fixed "large" column cut the inputs."""
    longest = max((len(str(v)) for v in values if v is not None), default=0)
    return max(least, min(most, 7 * longest + 24))


def render_analysis(result: AnalysisResult, numbers: Mapping[str, int],
                    pages: Mapping[str, str], *, key: str,
                    on_open: OpenSource | None = None) -> None:
    """One analysis: verdict line, basis, notes, peer table, chart, missing rows, sources."""
    with st.container(border=True, key=key):
        head, badge = st.columns([4, 1], vertical_alignment="center")
        head.caption(md_escape(title_of(result)))
        if result.verdict:
            with badge:
                st.badge(result.verdict[:40], color="blue")
        line = verdict_line(result)
        st.markdown(f"**{md_escape(line)}**" if result.decided else md_escape(line))
        if result.basis:
            st.caption("Decided by: " + md_escape(result.basis))
        for note in result.notes:
            st.caption(md_escape(note))
        frame = peer_frame(result, numbers, pages)
        if not frame.empty:
            st.dataframe(frame, hide_index=True, width="stretch", key=f"{key}_table",
                         column_config={"inputs": st.column_config.TextColumn(
                                            width=text_width(frame["inputs"])),
                                        "#": st.column_config.NumberColumn(width="small")})
        _, lost = charted(result)
        if result.chartable:
            st.plotly_chart(chart_figure(result), key=f"{key}_chart",
                            config={"displayModeBar": False})
        if lost:
            what = "Not charted" if result.chartable else "No figure"
            st.warning(f"{what}: " + md_escape("; ".join(
                f"{r.label or r.company} ({r.missing or 'not found'})" for r in lost))
                + " — not guessed.")
        for m in result.missing:
            if not any(r.missing and r.missing in m for r in lost):  # said above
                st.warning("Missing: " + md_escape(m))
        source_pills(analysis_sources(result, numbers), f"{key}_source", on_open,
                     "Open a source (the chunk the figure is printed in)")


def render_analyses(results: Sequence[AnalysisResult], evidence_ids: Sequence[str],
                    pages: Mapping[str, str] | None = None, *, key: str,
                    on_open: OpenSource | None = None) -> None:
    """Every analysis the answer states, in order (nothing when there is none); sources
    numbered by ``evidence_ids`` (the answer's numbered evidence), ``pages`` by id."""
    if not results:
        return
    numbers = evidence_numbers(evidence_ids)
    pages = pages or {}
    for i, result in enumerate(results):
        render_analysis(result, numbers, pages, key=f"{key}_analysis_{i}", on_open=on_open)
