"""The Library's figures panel: a filing's or a company's catalogue metrics by fiscal period
(income statement, cash flows, balance sheet, ratios) and its segments, each figure with its
source, a plotly chart of the metric picked, and its facts opened in the section browser.

The figures are ``core.app.filing_figures``'s (the figures an answer would state); frame and
figure builders are plain functions (tested without a browser); ``render_figures_panel``
draws them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd
import streamlit as st

from components.figures_view import BAR_COLOUR
from components.text import md_escape
from core.app.filing_figures import GROUPS, FiguresView, MetricLine, SegmentLine, figures_of
from core.figures.model import FigureResult
from core.figures.printed_row import quoted
from core.figures.units import amount
from core.foundation.pages import page_ref
from core.foundation.types import DocumentMeta, Fact
from core.store.companies import companies, distinct_names

SCOPE = "lib_fig_scope"  # "company:<key>" or "doc:<doc id>"
SEGMENT_METRIC = "lib_fig_segment_metric"
KIND_WORDS = {"segment": "Business segments", "product": "Products and services",
              "geography": "Geographic areas", "other": "Other dimensions"}
PERIOD_COLOURS = ["#c6d7ea", "#9dbad8", "#5b8cc0", "#1f4e79"]
OpenChunk = Callable[[str, str], None]
"""Called with ``(chunk id, printed row)`` when the analyst opens a figure's source."""
PageOf = Callable[[Fact | None], str]
"""Says where a fact is printed ('p. 53', 'PDF p. 54'): ``FiguresView.page_of``."""


def scopes(docs: Sequence[DocumentMeta]) -> dict[str, tuple[str, list[str]]]:
    """What the panel can show: each company (all its filings), then each filing:
    option -> (label, doc ids)."""
    out: dict[str, tuple[str, list[str]]] = {}
    groups = companies(list(docs))
    shown = distinct_names(groups)  # two filers of one name: each with its CIK
    for c in groups:
        n = len(c.doc_ids)
        out[f"company:{c.key}"] = (f"{shown[c.key]} (company, {n} filing"
                                   f"{'s' if n > 1 else ''})", list(c.doc_ids))
    group_of = {i: c.key for c in groups for i in c.doc_ids}
    for d in docs:
        name = d.company if d.company != "unknown" else d.file_name
        if d.doc_id in group_of and shown[group_of[d.doc_id]] != name and \
                d.company != "unknown":
            name = shown[group_of[d.doc_id]]
        out[f"doc:{d.doc_id}"] = (f"{name} {d.form_type} {d.period} · {d.file_name}",
                                  [d.doc_id])
    return out


def _pdf_page(fact: Fact | None) -> str:
    """A fact's page when its printed number is unknown: 'PDF p. 54'."""
    return page_ref(fact.page, None, short=True) if fact is not None else ""


def source_of(result: FigureResult, page_of: PageOf = _pdf_page) -> str:
    """'p. 54 · XBRL us-gaap:Revenues'; 'computed from 2 facts (p. 54)'; '' (``page_of``
    says a fact's page: ``FiguresView.page_of``, the printed number when known)."""
    facts = [i.fact for i in result.inputs if i.fact is not None]
    if not facts or result.value is None:
        return ""
    where = ", ".join(dict.fromkeys(page_of(f) for f in sorted(facts, key=lambda f: f.page or 0)
                                    if f.page))
    if len(facts) == 1 and result.request.metric == facts[0].metric:
        f = facts[0]
        found = f"XBRL {f.concept}" if f.source == "xbrl" and f.concept else "table row"
        return " · ".join(x for x in (where, found) if x)
    return f"computed from {len(facts)} facts" + (f" ({where})" if where else "")


def metrics_frame(lines: Sequence[MetricLine], periods: Sequence[str],
                  page_of: PageOf = _pdf_page) -> pd.DataFrame:
    """Metric x period (latest first) as stated, and where the latest figure comes from."""
    latest = list(reversed(periods))
    rows = []
    for line in lines:
        row = {"metric": line.label[:1].upper() + line.label[1:]}
        for p in latest:
            cell = line.cells.get(p)
            row[p] = cell.display if cell is not None and cell.value is not None else "–"
        shown = next((line.cells[p] for p in latest if p in line.cells
                      and line.cells[p].value is not None), None)
        row["source (latest)"] = source_of(shown, page_of) if shown is not None else ""
        rows.append(row)
    return pd.DataFrame(rows, columns=["metric", *latest, "source (latest)"])


def sources_frame(line: MetricLine, names: dict[str, str],
                  page_of: PageOf = _pdf_page) -> pd.DataFrame:
    """Every fact behind a metric's figures: period, figure, input, value, filing, page,
    how it was found, the row as printed."""
    rows = []
    for period in sorted(line.cells, reverse=True):
        result = line.cells[period]
        if result.value is None:
            continue
        for i in result.inputs:
            f = i.fact
            if f is None:
                continue
            rows.append({"period": period, "figure": result.display, "input": i.label,
                         "value": amount(f.value, f.unit), "filing": names.get(f.doc_id,
                                                                             f.doc_id),
                         "page": page_of(f), "found as": (f"XBRL {f.concept}" if f.source ==
                                                      "xbrl" and f.concept else "table row"),
                         "printed row": quoted(f.row) if f.row else ""})
    return pd.DataFrame(rows, columns=["period", "figure", "input", "value", "filing", "page",
                                       "found as", "printed row"])


def metric_chart(line: MetricLine, periods: Sequence[str]):
    """Bars of one metric by period, oldest first, each labelled as stated."""
    import plotly.graph_objects as go

    shown = [(p, line.cells[p]) for p in periods if p in line.cells
             and line.cells[p].value is not None]
    unit = shown[0][1].unit if shown else ""
    fig = go.Figure(go.Bar(x=[p for p, _ in shown], y=[r.value for _, r in shown],
                           text=[r.display for _, r in shown], textposition="outside",
                           marker_color=BAR_COLOUR, cliponaxis=False,
                           hovertemplate="%{x}: %{text}<extra></extra>"))
    values = [abs(r.value) for _, r in shown] or [1]
    low = min([0.0, *(r.value for _, r in shown)]) * 1.2
    fig.update_layout(title=f"{line.label[:1].upper()}{line.label[1:]} by period", height=280,
                      margin=dict(l=10, r=10, t=40, b=10), xaxis_type="category",
                      yaxis_title={"percent": "%"}.get(unit, unit), xaxis_title=None,
                      yaxis_range=[low, max(values) * 1.2 or 1])
    return fig


def segments_frame(lines: Sequence[SegmentLine], periods: Sequence[str],
                   page_of: PageOf = _pdf_page) -> pd.DataFrame:
    """Member x period (latest first, USD millions as printed) and the latest one's page."""
    latest = list(reversed(periods))
    rows = []
    for line in lines:
        row = {"member": line.name}
        for p in latest:
            item = line.cells.get(p)
            row[p] = amount(item.value, item.unit) if item and item.value is not None else "–"
        fact = next((line.cells[p].fact for p in latest if p in line.cells), None)
        row["source (latest)"] = " · ".join(x for x in (
            page_of(fact) if fact and fact.page else "",
            f"XBRL {fact.concept}" if fact and fact.concept else "table column") if x)
        rows.append(row)
    return pd.DataFrame(rows, columns=["member", *latest, "source (latest)"])


def segments_chart(lines: Sequence[SegmentLine], periods: Sequence[str], title: str):
    """Grouped bars: each member's figure (USD millions) in each period."""
    import plotly.graph_objects as go

    fig = go.Figure()
    colours = PERIOD_COLOURS[-len(periods):] if len(periods) <= len(PERIOD_COLOURS) \
        else [BAR_COLOUR] * len(periods)
    for p, colour in zip(periods, colours, strict=True):
        have = [line for line in lines if p in line.cells]
        fig.add_bar(name=p, x=[line.name for line in have], marker_color=colour,
                    y=[line.cells[p].value / 1e6 for line in have],
                    hovertemplate="%{x}, " + p + ": $%{y:,.0f} million<extra></extra>")
    fig.update_layout(title=title, barmode="group", height=300, yaxis_title="USD millions",
                      margin=dict(l=10, r=10, t=40, b=10), legend=dict(orientation="h"))
    return fig


def _open_pills(line: MetricLine, key: str, on_open: OpenChunk | None,
                page_of: PageOf = _pdf_page) -> None:
    """'Open in the filing' for each distinct fact row behind the metric's figures."""
    if on_open is None:
        return
    found: dict[tuple[str, str], str] = {}
    for period in sorted(line.cells, reverse=True):
        for i in line.cells[period].inputs:
            f = i.fact
            if f is not None and f.chunk_id and (f.chunk_id, f.row) not in found:
                found[(f.chunk_id, f.row)] = f"{f.label} · {page_of(f) or 'page unknown'}"
    options = list(found)
    if not options:
        return
    pick = f"{key}_open"

    def opened() -> None:
        i = st.session_state.get(pick)
        st.session_state[pick] = None
        if i is not None:
            on_open(*options[i])

    st.pills("Open in the filing (the statement, its row highlighted, below)",
             list(range(len(options))), key=pick, on_change=opened,
             format_func=lambda i: found[options[i]])


def _metric_tab(lines: list[MetricLine], view: FiguresView, names: dict[str, str], *,
                key: str, on_open: OpenChunk | None) -> None:
    event = st.dataframe(metrics_frame(lines, view.periods, view.page_of), hide_index=True,
                         width="stretch", key=f"{key}_table", on_select="rerun",
                         selection_mode="single-row")
    picked = list(getattr(getattr(event, "selection", None), "rows", []) or [])
    line = lines[picked[0]] if picked and picked[0] < len(lines) else lines[0]
    st.caption(f"Showing {md_escape(line.label)}: pick another row of the table to chart it.")
    chart, detail = st.columns([2, 3], gap="medium")
    with chart:
        st.plotly_chart(metric_chart(line, view.periods), key=f"{key}_chart_{line.key}",
                        config={"displayModeBar": False})
    with detail:
        st.dataframe(sources_frame(line, names, view.page_of), hide_index=True, width="stretch",
                     key=f"{key}_sources_{line.key}")
        for result in line.cells.values():
            for m in result.missing[:1]:
                st.caption("Not found: " + md_escape(m))
        _open_pills(line, f"{key}_{line.key}", on_open, view.page_of)


def _segments_tab(view: FiguresView, *, key: str) -> None:
    metrics = sorted({s.metric for s in view.segments}, key=lambda m: m != "revenue")
    metric = st.radio("Measure", metrics, key=f"{key}_{SEGMENT_METRIC}", horizontal=True,
                      format_func=lambda m: m.replace("_", " ").capitalize())
    shown = [s for s in view.segments if s.metric == metric]
    for kind, words in KIND_WORDS.items():
        lines = [s for s in shown if s.kind == kind]
        if not lines:
            continue
        st.markdown(f"**{words}**")
        st.dataframe(segments_frame(lines, view.periods, view.page_of), hide_index=True,
                     width="stretch", key=f"{key}_seg_{kind}_{metric}")
        st.plotly_chart(segments_chart(lines, view.periods, f"{words}: {metric.replace('_', ' ')}"),
                        key=f"{key}_seg_chart_{kind}_{metric}",
                        config={"displayModeBar": False})


def render_figures_panel(store, docs: Sequence[DocumentMeta], *, key: str = "lib_fig",
                         on_open: OpenChunk | None = None) -> None:
    """The panel: pick a company or a filing, then its figures by statement and segment."""
    options = scopes(docs)
    if not options:
        return
    choice = st.selectbox("Figures of", list(options), key=SCOPE,
                          format_func=lambda o: options[o][0],
                          help="A company's figures come from all its filings: each period "
                               "from its own filing first, as answers read them.")
    label, doc_ids = options.get(choice, next(iter(options.values())))
    view = cached_view(store, tuple(doc_ids), _stamp(docs, doc_ids))
    if not view.lines:
        st.info("No figures were read from " + md_escape(label) + (
            " (it holds no financial statements or tagged facts)." if view.facts == 0 else
            " for the catalogue's metrics."))
        return
    st.caption(f"{len(view.lines)} catalogue metrics and {len(view.segments)} segment lines "
               f"for {', '.join(view.periods)}, read from {view.facts:,} facts: each the "
               "figure an answer would state, with the page and tag or row it comes from.")
    names = {d.doc_id: d.file_name for d in docs}
    groups = [(g, words) for g, words in GROUPS.items() if view.group(g)]
    tabs = st.tabs([words for _, words in groups] + (["Segments"] if view.segments else []))
    for tab, (group, _) in zip(tabs, groups, strict=False):
        with tab:
            _metric_tab(view.group(group), view, names, key=f"{key}_{group}", on_open=on_open)
    if view.segments:
        with tabs[-1]:
            _segments_tab(view, key=key)


def _stamp(docs: Sequence[DocumentMeta], doc_ids: Sequence[str]) -> str:
    """Changes when one of the filings is re-ingested or corrected (the cache's key)."""
    return "|".join(f"{d.doc_id}:{d.ingested_at}:{d.company}:{d.period}" for d in docs
                    if d.doc_id in doc_ids)


@st.cache_data(show_spinner="Reading the figures…", max_entries=32, ttl=3600)
def cached_view(_store, doc_ids: tuple[str, ...], stamp: str) -> FiguresView:
    """``figures_of`` for these filings, kept while they are unchanged (``stamp``)."""
    return figures_of(_store, list(doc_ids))
