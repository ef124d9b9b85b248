"""The figures an answer states, drawn under it: for each ``FigureResult`` the stated value,
the computation table (input, period, value, unit, source [n]), what is missing, the facts
that disagree; a plotly chart when one metric has values for several periods; and a way
to open each input's source (the statement chunk with the fact's row highlighted).

``[n]`` is the 1-based place of the input's chunk among the answer's numbered evidence
(``Answer.evidence``), the same number the answer's markers use. Frame and figure builders
are plain functions (tested without a browser); ``render_figures`` draws them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from components.text import md_escape
from core.figures.model import FigureInput, FigureResult, WorkRow
from core.figures.units import amount, display, number
from core.foundation.pages import page_ref

COLUMNS = ["input", "period", "value", "unit", "source"]
SCALED_UNITS = {"USD thousands": 1e3, "USD millions": 1e6, "USD billions": 1e9}
BAR_COLOUR = "#1f4e79"
OpenSource = Callable[[int, str], None]
"""Called with ``(n, row)`` when the analyst opens an input's source."""


@dataclass(frozen=True)
class FigureSource:
    """A source the analyst can open from the table: evidence [n] and the row to mark."""

    n: int
    row: str
    label: str


def as_results(items: Iterable[Any] | None) -> list[FigureResult]:
    """``FigureResult`` records from models or their dicts (events and run records)."""
    out = []
    for item in items or []:
        out.append(item if isinstance(item, FigureResult) else FigureResult.model_validate(item))
    return out


def evidence_numbers(evidence_ids: Sequence[str]) -> dict[str, int]:
    """Evidence id -> its [n] (1-based, the first place it holds)."""
    out: dict[str, int] = {}
    for n, eid in enumerate(evidence_ids, start=1):
        out.setdefault(eid, n)
    return out


def base_value(value: float, unit: str) -> str:
    """A fact's value in base units, readable, as every answer line states it
    (``core.figures.units``: a half rounded up): '$12,345 million', '$1.23', '12.5%'."""
    if unit == "percent":
        return f"{number(value, 1)}%"
    if unit.endswith("/share"):
        return display(value, "per share", 2).removesuffix(" per share") if \
            unit.startswith("USD") else f"{number(value, 2)} {unit}"
    if unit in ("USD", "shares"):
        return amount(value, unit)
    return number(value, 2).rstrip("0").rstrip(".")


def _fact_of(result: FigureResult, row: WorkRow) -> FigureInput | None:
    """The input a table row stands for (same chunk and period, else same chunk)."""
    with_chunk = [i for i in result.inputs if i.fact is not None and i.fact.chunk_id
                  and i.fact.chunk_id == row.chunk_id]
    return next((i for i in with_chunk if i.period == row.period), None) or (
        with_chunk[0] if with_chunk else None)


def _rows(result: FigureResult) -> list[WorkRow]:
    """The result's computation table, or one row per input when it has none."""
    if result.rows:
        return list(result.rows)
    return [WorkRow(input=i.label or i.metric, period=i.period,
                    value="missing" if i.value is None else base_value(i.value, i.unit),
                    unit=i.unit, chunk_id=i.fact.chunk_id if i.fact else None,
                    page=i.fact.page if i.fact else None,
                    page_label=i.fact.page_label if i.fact else None,
                    source=(f"XBRL {i.fact.concept}" if i.fact.source == "xbrl"
                            and i.fact.concept else f"{i.fact.source} row") if i.fact else "")
            for i in result.inputs]


def source_cell(row: WorkRow, numbers: Mapping[str, int]) -> str:
    """'[3] p. 52 · XBRL us-gaap:Revenues'; 'p. 52 (not in the answer's evidence)'."""
    n = numbers.get(row.chunk_id or "")
    where = " ".join(x for x in (f"[{n}]" if n else "", row.where) if x)
    text = " · ".join(x for x in (where, row.source) if x)
    if row.chunk_id and not n:
        text += " (not in the answer's evidence)"
    return text


def table_frame(result: FigureResult, numbers: Mapping[str, int]) -> pd.DataFrame:
    """The computation table of one result: input, period, value, unit, source."""
    return pd.DataFrame([{"input": r.input, "period": r.period, "value": r.value,
                          "unit": r.unit, "source": source_cell(r, numbers)}
                         for r in _rows(result)], columns=COLUMNS)


def figure_sources(results: Sequence[FigureResult],
                   numbers: Mapping[str, int]) -> list[FigureSource]:
    """The sources the table cites, one per [n] and row, in table order."""
    out: list[FigureSource] = []
    seen: dict[tuple[int, str], int] = {}
    for result in results:
        for row in _rows(result):
            n = numbers.get(row.chunk_id or "")
            if not n:
                continue
            fact = _fact_of(result, row)
            printed = fact.fact.row if fact and fact.fact else ""
            label = " ".join(x for x in (row.input, row.period) if x)
            if (n, printed) in seen:
                i = seen[(n, printed)]
                old = out[i]
                if row.period and row.period not in old.label:
                    out[i] = FigureSource(n, printed, f"{old.label}, {row.period}")
                continue
            seen[(n, printed)] = len(out)
            out.append(FigureSource(n, printed, label))
    return out


def series_frame(results: Sequence[FigureResult]) -> pd.DataFrame:
    """Long frame ``metric, label, period, value, unit`` of every input with a value (base
    units), one row per metric and period (the first value found)."""
    rows, seen = [], set()
    for result in results:
        for i in result.inputs:
            if i.value is None or (i.metric, i.period) in seen:
                continue
            seen.add((i.metric, i.period))
            name = i.label.rsplit(",", 1)[0] if i.period and i.label.endswith(i.period) \
                else i.label
            rows.append({"metric": i.metric, "label": name or i.metric, "period": i.period,
                         "value": i.value, "unit": i.unit})
    return pd.DataFrame(rows, columns=["metric", "label", "period", "value", "unit"])


def multi_period(frame: pd.DataFrame) -> list[str]:
    """Metrics of ``series_frame`` with values for two periods or more."""
    if frame.empty:
        return []
    counts = frame.groupby("metric", sort=False)["period"].nunique()
    return [m for m, c in counts.items() if c >= 2]


def by_company(results: Sequence[FigureResult]) -> list[tuple[str, list[FigureResult]]]:
    """The results grouped by the company they are of, in order (one group, named '', when
    they are all of one company or name none): one company's periods are never charted
    beside another's."""
    groups: dict[str, list[FigureResult]] = {}
    for r in results:
        groups.setdefault(", ".join(r.request.companies), []).append(r)
    if len(groups) == 1:
        return [("", list(results))]
    return list(groups.items())


def chart_figure(frame: pd.DataFrame, metric: str, company: str = ""):
    """Bars of one metric by period (USD in millions), each labelled with its value;
    ``company`` names whose figures they are when the answer states several companies'."""
    import plotly.graph_objects as go

    data = frame[frame["metric"] == metric].sort_values("period")
    unit = data["unit"].iloc[0]
    scale, axis = (1e6, "USD millions") if unit == "USD" else (1.0, unit)
    values = data["value"] / scale
    labels = [base_value(v, unit) for v in data["value"]]
    fig = go.Figure(go.Bar(x=data["period"], y=values, text=labels, textposition="outside",
                           marker_color=BAR_COLOUR, cliponaxis=False,
                           hovertemplate="%{x}: %{text}<extra></extra>"))
    label = str(data["label"].iloc[0])
    title = f"{label[:1].upper()}{label[1:]} by period"
    if company:
        title = f"{company}: {label} by period"
    fig.update_layout(title=title, margin=dict(l=10, r=10, t=40, b=10), height=260,
                      yaxis_title=axis, xaxis_title=None, xaxis_type="category",
                      yaxis_range=[0, float(values.abs().max()) * 1.2 or 1])
    return fig


def _headline(result: FigureResult) -> str:
    req = result.request
    periods = ", ".join(req.periods)
    name = req.name[:1].upper() + req.name[1:] if req.name else "Figure"
    value = result.display or ("not computed" if result.value is None else str(result.value))
    return f"**{md_escape(name)}**" + (f" ({md_escape(periods)})" if periods else "") \
        + f": {md_escape(value)}"


def _alternatives(result: FigureResult) -> pd.DataFrame:
    rows = []
    for i in result.inputs:
        if i.fact is None or not i.alternatives:
            continue
        for f, used in [(i.fact, "used"), *((a, "not used") for a in i.alternatives)]:
            rows.append({"input": i.label, "value": base_value(f.value, f.unit),
                         "found as": f"{f.source} {f.concept or f.label}".strip(),
                         "page": page_ref(f.page, f.page_label, short=True), "row": f.row,
                         "": used})
    return pd.DataFrame(rows)


def render_result(result: FigureResult, numbers: Mapping[str, int], *, key: str) -> None:
    """One figure: its value, the computation table, the work, what is missing, notes."""
    st.markdown(_headline(result))
    frame = table_frame(result, numbers)
    if not frame.empty:  # st.table renders Markdown in cells: filing text is escaped
        st.table(frame.map(lambda v: md_escape(str(v)) if v is not None else ""),
                 hide_index=True, border="horizontal")
    if result.work:
        st.caption("Work: " + md_escape(result.work))
    for m in result.missing:
        st.warning("Missing: " + md_escape(m))
    for name in result.no_statements:
        st.info(md_escape(f"{name} holds no financial statements (no figures to read)."))
    for note in result.notes:
        st.caption(md_escape(note))
    disagree = _alternatives(result)
    if not disagree.empty:
        with st.expander("Facts that disagree, side by side"):
            st.dataframe(disagree, hide_index=True, width="stretch")


def render_figures(results: Sequence[FigureResult], evidence_ids: Sequence[str], *,
                   key: str, on_open: OpenSource | None = None) -> None:
    """Every figure the answer states, a chart per multi-period metric, the sources."""
    if not results:
        return
    numbers = evidence_numbers(evidence_ids)
    with st.container(border=True, key=f"{key}_figures"):
        st.markdown("**Computation**")
        for i, result in enumerate(results):
            render_result(result, numbers, key=f"{key}_fig{i}")
        for g, (company, group) in enumerate(by_company(results)):
            series = series_frame(group)
            for metric in multi_period(series)[:3]:
                st.plotly_chart(chart_figure(series, metric, company),
                                key=f"{key}_chart_{g}_{metric}",
                                config={"displayModeBar": False})
        source_pills(figure_sources(results, numbers), f"{key}_fig_source", on_open,
                     "Open a source (the statement, its row highlighted)")


def source_pills(sources: Sequence[FigureSource], key: str, on_open: OpenSource | None,
                 label: str) -> None:
    """Pills that open the chunk a figure is printed in ([n] and its label), once chosen."""
    if not sources or on_open is None:
        return

    def opened() -> None:
        i = st.session_state.get(key)
        st.session_state[key] = None
        if i is not None:
            on_open(sources[i].n, sources[i].row)

    st.pills(label, list(range(len(sources))), key=key, on_change=opened,
             format_func=lambda i: f"[{sources[i].n}] {sources[i].label}")
