"""The Peers page's renderers: pickers (companies, metrics, fiscal years), the sortable grid
(company x fiscal year, one numeric column per metric), the picked cell's citation, a
chart, every cell's sources with a link into the Library, CSV and Excel export.

The grid is ``core.app.peer_grid``'s (the figures an answer would state), cached per corpus
version (``corpus_stamp``); frame and chart builders are plain functions, tested without
a browser. Session keys are prefixed ``peer_``.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from components.text import md_escape
from core.app.peer_export import column_name, empty_rows, grid_rows, source_rows, to_csv, to_xlsx
from core.app.peer_grid import (
    DEFAULT_METRICS,
    DEFAULT_YEARS,
    PeerCell,
    PeerGrid,
    corpus_stamp,
    fiscal_years,
    metric_choices,
    peer_grid,
)
from core.figures.units import number
from core.foundation.safety import clean_meta
from core.store.companies import companies as filers
from core.store.companies import distinct_names

PEER_COMPANIES = "peer_companies"
PEER_METRICS = "peer_metrics"
PEER_YEARS = "peer_years"
PEER_TABLE = "peer_table"
PEER_CHART_METRIC = "peer_chart_metric"
PEER_SOURCES = "peer_sources"
LIBRARY = "library"  # the Library's URL path: a source link opens ?chunk=<id> there
YEAR_COLOURS = ["#c6d7ea", "#9dbad8", "#5b8cc0", "#1f4e79", "#0d2b45"]
NUMBER_FORMATS = {"%": ("", 2, "%"), "USD millions": ("$", 0, ""), "USD per share": ("$", 2, ""),
                  "ratio": ("", 2, ""), "times": ("", 2, "x"), "days": ("", 1, ""),
                  "shares": ("", 0, "")}
"""How a metric column's numbers are shown: (before, decimals, after), rounded as every
answer rounds (``core.figures.units.number``, a half up); the data stays numeric, so a
column sorts by value."""


def number_format(unit: str):
    """The formatter of a column in ``unit`` ('$413' for 412.5 in USD millions)."""
    if unit not in NUMBER_FORMATS:
        return "{:,.4g}"
    before, places, after = NUMBER_FORMATS[unit]

    def shown(v: float) -> str:
        body = number(v, places)  # the sign before the '$': '-$413'
        return f"{'-' if body.startswith('-') else ''}{before}{body.lstrip('-')}{after}"
    return shown
OpenChunk = Callable[[str], None]


def stamp_of(store) -> str:
    """The corpus version: moves when any filing is added, removed or corrected."""
    registry = getattr(store, "registry", None)
    generation = registry.generation() if registry is not None else None
    return corpus_stamp(store.documents(), generation)


@st.cache_data(show_spinner=False, max_entries=8, ttl=3600)
def cached_years(_store, stamp: str, company_keys: tuple[str, ...]) -> list[str]:
    return fiscal_years(_store, list(company_keys))


@st.cache_data(show_spinner="Looking up the figures…", max_entries=16, ttl=3600)
def cached_grid(_store, stamp: str, metrics: tuple[str, ...], company_keys: tuple[str, ...],
                years: tuple[str, ...]) -> PeerGrid:
    """``peer_grid`` for these choices, kept while the corpus is unchanged (``stamp``)."""
    return peer_grid(_store, metrics=list(metrics), companies=list(company_keys),
                     years=list(years))


def grid_frame(grid: PeerGrid) -> pd.DataFrame:
    """The grid as shown: numbers (sortable), empty where a figure is missing."""
    columns = ["company", "fiscal year", *(column_name(grid, m) for m in grid.metrics)]
    return pd.DataFrame(grid_rows(grid), columns=columns)


def styled_grid(grid: PeerGrid):
    """``grid_frame`` with each metric column shown in its unit and a missing figure as a
    blank cell (the numbers underneath stay numbers: a column sorts by value)."""
    frame = grid_frame(grid)
    formats = {}
    for m in grid.metrics:
        name = column_name(grid, m)
        unit = name.removeprefix(grid.metrics[m]).strip(" ()")
        formats[name] = number_format(unit)
    return frame.style.format(formats, na_rep="")


def sources_frame(grid: PeerGrid) -> pd.DataFrame:
    """Every cell's citation, each printed source with a link that opens it in the Library;
    what does not apply is blank."""
    rows = source_rows(grid)
    if not rows:
        return pd.DataFrame()
    for row in rows:
        chunk = row.pop("chunk")
        row["open"] = f"{LIBRARY}?chunk={chunk}" if chunk else None
        for name, value in row.items():
            if name != "open":
                row[name] = "" if value is None else str(value)
    return pd.DataFrame(rows)


def grid_chart(grid: PeerGrid, metric: str):
    """Grouped bars: each company's figure of ``metric`` in each fiscal year (missing: no
    bar, never zero)."""
    import plotly.graph_objects as go

    fig = go.Figure()
    years = grid.periods
    colours = YEAR_COLOURS[-len(years):] if len(years) <= len(YEAR_COLOURS) \
        else [YEAR_COLOURS[-1]] * len(years)
    for period, colour in zip(years, colours, strict=True):
        cells = [(clean_meta(name, limit=40), grid.cell(key, metric, period))
                 for key, name in grid.companies.items()]  # plotly reads tags in labels
        shown = [(name, c) for name, c in cells if c is not None and c.value is not None]
        fig.add_bar(name=period, x=[name for name, _ in shown], marker_color=colour,
                    y=[c.value for _, c in shown], text=[c.display for _, c in shown],
                    hovertemplate="%{x}, " + period + ": %{text}<extra></extra>")
    fig.update_layout(title=f"{grid.metrics[metric]} by company and fiscal year",
                      barmode="group", height=340, margin=dict(l=10, r=10, t=40, b=10),
                      yaxis_title=column_name(grid, metric).removeprefix(grid.metrics[metric])
                      .strip(" ()"), legend=dict(orientation="h"), xaxis_type="category")
    return fig


def picked_cell(grid: PeerGrid, event) -> PeerCell | None:
    """The cell the analyst selected in the grid (None: none, or not a metric column)."""
    cells = list(getattr(getattr(event, "selection", None), "cells", []) or [])
    if not cells:
        return None
    row, column = cells[0][0], cells[0][1]
    rows = grid_rows(grid)
    if not isinstance(row, int) or not 0 <= row < len(rows):
        return None
    by_column = {column_name(grid, m): m for m in grid.metrics}
    metric = by_column.get(str(column))
    key = next((k for k, n in grid.companies.items() if n == rows[row]["company"]), None)
    if metric is None or key is None:
        return None
    return grid.cell(key, metric, str(rows[row]["fiscal year"]))


def column_width(name: str) -> int:
    """Pixels for a grid column: its heading whole ('Revenue (USD millions)'), within
    bounds; the company and year columns fixed."""
    fixed = {"company": 230, "fiscal year": 95}
    return fixed.get(name) or min(220, max(110, round(7.5 * len(name)) + 30))


def _column_config(grid: PeerGrid) -> dict:
    """Fixed widths (company and year pinned), so a wide grid scrolls beside them."""
    config = {name: st.column_config.TextColumn(name, pinned=True, width=column_width(name))
              for name in ("company", "fiscal year")}
    for m in grid.metrics:
        name = column_name(grid, m)
        config[name] = st.column_config.Column(name, width=column_width(name))
    return config


def render_cell(grid: PeerGrid, cell: PeerCell, on_open: OpenChunk | None) -> None:
    """The picked cell: its figure, the work of a derived one, each source (openable)."""
    name = grid.companies.get(cell.company, cell.company)
    head = f"**{md_escape(name)} · {md_escape(grid.metrics[cell.metric])} · {cell.period}**"
    if cell.value is None:
        st.markdown(f"{head}: not found — {md_escape(cell.reason)}")
        return
    st.markdown(f"{head}: {md_escape(cell.display)}")
    if cell.work:
        st.caption("Computed: " + md_escape(cell.work))
    for i, s in enumerate(cell.sources):
        left, right = st.columns([5, 1], vertical_alignment="center")
        left.caption(f"{md_escape(s.input)} {md_escape(s.value)} — {md_escape(s.citation)}"
                     + (f" · row: {md_escape(s.row)}" if s.row else ""))
        if s.chunk_id and on_open is not None and right.button(
                "Open in the Library", key=f"peer_open_{i}_{s.chunk_id}"):
            on_open(s.chunk_id)


def _kept(key: str, options: list[str], default: list[str]) -> None:
    """A picker's value before it is drawn: its default the first time, then what the
    analyst picked less what the corpus no longer offers."""
    if key not in st.session_state:
        st.session_state[key] = default
    else:
        st.session_state[key] = [v for v in st.session_state[key] if v in options]


def _pickers(store, stamp: str) -> tuple[list[str], list[str], list[str]] | None:
    found = distinct_names(filers(store.documents()))  # two filers of a name: with CIKs
    choices = metric_choices()
    c1, c2 = st.columns([3, 4])
    _kept(PEER_COMPANIES, list(found), list(found))
    keys = c1.multiselect("Companies", list(found), key=PEER_COMPANIES,
                          format_func=lambda k: found.get(k, k),
                          help="Every company loaded, or the ones you pick.")
    _kept(PEER_METRICS, list(choices), [m for m in DEFAULT_METRICS if m in choices])
    metrics = c2.multiselect("Metrics", list(choices), key=PEER_METRICS,
                             format_func=lambda k: choices.get(k, k),
                             help="The metric catalogue: reported lines and derived ratios.")
    years_all = cached_years(store, stamp, tuple(keys)) if keys else []
    _kept(PEER_YEARS, years_all, years_all[-DEFAULT_YEARS:])
    years = st.multiselect("Fiscal years", years_all, key=PEER_YEARS,
                           help="Each company's fiscal year as it names it: NVIDIA's FY2023 "
                                "ends in January 2023, Adobe's in December 2023.")
    if not keys or not metrics or not years:
        st.info("Pick at least one company, one metric and one fiscal year"
                + ("." if years_all or not keys else
                   ": the companies picked report no full fiscal year in their figures."))
        return None
    return keys, metrics, sorted(years)


def render_peer_grid(store, *, on_open: OpenChunk | None = None) -> None:
    """The whole grid panel (see the module docstring)."""
    stamp = stamp_of(store)
    picked = _pickers(store, stamp)
    if picked is None:
        return
    keys, metrics, years = picked
    grid = cached_grid(store, stamp, tuple(metrics), tuple(keys), tuple(years))
    total = len(grid.cells)
    st.caption(f"{grid.found} of {total} figures found for {len(grid.companies)} companies, "
               f"{len(grid.metrics)} metrics and {len(grid.periods)} fiscal years: each the "
               "figure an answer would state, derived metrics computed from their inputs. "
               "An empty cell was not found (the reason is in the sources below), never "
               "guessed. Click a column to sort, a cell to see where it comes from.")
    if empty := empty_rows(grid):
        st.caption("No figure at all (no filing loaded covers the year, so no row): " + ", ".join(
            f"{md_escape(grid.companies[k])} {p}" for k, p in empty) + ".")
    event = st.dataframe(styled_grid(grid), hide_index=True, width="stretch", key=PEER_TABLE,
                         placeholder="",  # a missing figure: a blank cell, not "None"
                         on_select="rerun", selection_mode="single-cell",
                         column_config=_column_config(grid))
    cell = picked_cell(grid, event)
    with st.container(border=True, key="peer_cited"):
        if cell is None:
            st.caption("Click a figure in the grid to see its source here.")
        else:
            render_cell(grid, cell, on_open)
    chart_metric = st.selectbox("Chart", list(grid.metrics), key=PEER_CHART_METRIC,
                                format_func=lambda m: grid.metrics.get(m, m))
    if chart_metric in grid.metrics:
        st.plotly_chart(grid_chart(grid, chart_metric), config={"displayModeBar": False},
                        key=f"peer_chart_{chart_metric}")
    d1, d2, _ = st.columns([1, 1, 4])
    # the files are made when asked for (a workbook takes ~50 ms: not on every rerun)
    d1.download_button("Download CSV", lambda: to_csv(grid), file_name="peer-grid.csv",
                       mime="text/csv", key="peer_csv")
    d2.download_button("Download Excel", lambda: to_xlsx(grid), file_name="peer-grid.xlsx",
                       mime="application/vnd.openxmlformats-officedocument."
                            "spreadsheetml.sheet", key="peer_xlsx")
    st.subheader("Sources")
    st.caption("Every figure's source: the filing, page and XBRL tag or printed row it was "
               "read from (a derived figure: each input). **open** shows the passage in the "
               "Library, in a new tab.")
    st.dataframe(sources_frame(grid), hide_index=True, width="stretch", key=PEER_SOURCES,
                 placeholder="",
                 column_config={"open": st.column_config.LinkColumn(
                     "open", display_text="open", help="The passage in the Library")})
