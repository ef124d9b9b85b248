"""The Peers page through the entry file (AppTest): the grid for the companies loaded, every
cell's sources with a link into the Library, the chart, CSV and Excel downloads, the grid
cached per corpus version; the picked cell found from the grid's selection. Real NVIDIA and
AMD 10-Ks ingested (hash embedder: figures never use vectors)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from streamlit.testing.v1 import AppTest

from components import peer_grid as view
from core.app.peer_export import column_name, grid_rows
from core.app.peer_grid import DEFAULT_METRICS, peer_grid
from tests.test_app import APP, TIMEOUT, app_env, ok, texts  # noqa: F401 (app_env: fixture)

pytestmark = pytest.mark.usefixtures("app_env")
FILINGS = ("nvda-10k-fy2023.html", "amd-10k-fy2025.htm")


def _peers(at: AppTest) -> AppTest:
    return ok(at.switch_page("app_pages/peers.py").run())


@pytest.fixture
def loaded(app_env, ingested_store):  # noqa: F811
    ingested_store(app_env / "store", *FILINGS)
    return app_env


def test_empty_corpus_says_where_to_add_filings():
    at = _peers(ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run()))
    assert "The corpus is empty" in texts(at) and not at.dataframe


def test_the_grid_its_cited_sources_chart_and_downloads(loaded):
    at = _peers(ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run()))
    grid, sources = at.dataframe[0].value, at.dataframe[1].value
    assert list(grid.columns[:2]) == ["company", "fiscal year"]
    assert len(grid.columns) == 2 + len(DEFAULT_METRICS)
    assert set(grid["company"]) == {"NVIDIA CORP", "ADVANCED MICRO DEVICES, INC."}
    links = [u for u in sources["open"] if isinstance(u, str)]
    assert links and all(u.startswith("library?chunk=") for u in links)
    found = sources[sources["figure"].fillna("") != ""]
    assert found["open"].notna().all()  # every figure's source opens
    from components import services

    store = services.current().corpus.store
    ids = sorted({u.split("=", 1)[1] for u in links})
    assert [c.chunk_id for c in store.get_chunks(ids)] == ids  # each a chunk of the corpus
    missing = sources[sources["missing because"].notna() & (sources["missing because"] != "")]
    assert len(missing) and (missing["filing"] == "").all()  # blank, with the reason only
    labels = [b.label for b in at.get("download_button")]
    assert labels == ["Download CSV", "Download Excel"]
    assert at.get("plotly_chart")
    assert "figures found for 2 companies" in texts(at)


def test_metrics_picked_are_the_grids_columns(loaded):
    at = _peers(ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run()))
    for picked in (["net_margin"], ["revenue", "eps_diluted", "current_ratio"]):
        ok(at.multiselect(key=view.PEER_METRICS).set_value(picked).run())
        frame = at.dataframe[0].value
        labels = [c.split(" (")[0].lower() for c in frame.columns[2:]]
        assert len(labels) == len(picked), labels
    ok(at.multiselect(key=view.PEER_METRICS).set_value([]).run())
    assert "Pick at least one company, one metric and one fiscal year" in texts(at)


def test_the_grid_is_computed_once_per_corpus_version(loaded, monkeypatch):
    calls = []
    real = view.peer_grid

    def counted(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(view, "peer_grid", counted)
    at = _peers(ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run()))
    ok(at.run())
    ok(at.run())
    assert len(calls) == 1
    from components import services

    corpus = services.current().corpus
    doc = corpus.documents()[0]
    corpus.update_document(doc.doc_id, period="FY2031")  # a correction: a new version
    ok(at.run())
    assert len(calls) == 2


def test_picked_cell_follows_the_grids_selection(tmp_path, ingested_store):
    from core.app.corpus import Corpus
    from core.foundation.config import Settings
    from testkit.fakes.embedder import HashEmbedder

    corpus = Corpus(Settings(data_dir=ingested_store(tmp_path / "s", *FILINGS),
                             cache_enabled=False, _env_file=None), embedder=HashEmbedder())
    try:
        grid = peer_grid(corpus.store, metrics=["revenue", "net_margin"], years=3)
    finally:
        corpus.close()
    rows = grid_rows(grid)
    names = {n: k for k, n in grid.companies.items()}
    for i, row in enumerate(rows):
        for metric in grid.metrics:
            event = SimpleNamespace(selection=SimpleNamespace(
                cells=[(i, column_name(grid, metric))]))
            cell = view.picked_cell(grid, event)
            assert cell is grid.cell(names[row["company"]], metric, row["fiscal year"])
        for column in ("company", "fiscal year"):
            event = SimpleNamespace(selection=SimpleNamespace(cells=[(i, column)]))
            assert view.picked_cell(grid, event) is None
    assert view.picked_cell(grid, SimpleNamespace(selection=SimpleNamespace(cells=[]))) is None
    out_of_range = SimpleNamespace(selection=SimpleNamespace(cells=[(len(rows), "x")]))
    assert view.picked_cell(grid, out_of_range) is None
    # the chart: one bar series per year; a company with no figure that year has no bar
    fig = view.grid_chart(grid, "revenue")
    assert [t.name for t in fig.data] == grid.periods
    for trace in fig.data:
        have = {grid.companies[k] for k in grid.companies
                if grid.cell(k, "revenue", trace.name).value is not None}
        assert set(trace.x) == have
    # a filer's name is data: the chart's labels carry no markup plotly would act on
    key = next(iter(grid.companies))
    grid.companies[key] = '<a href="javascript:alert(1)">Evil</a> <b>Corp</b>'
    labels = [x for t in view.grid_chart(grid, "revenue").data for x in t.x]
    assert labels and not any("<" in x or ">" in x for x in labels), labels
    # the grid as shown: each metric in its unit, a missing figure a blank cell, while the
    # numbers underneath stay numbers (a column sorts by value)
    styled = view.styled_grid(grid)
    assert styled.data.equals(view.grid_frame(grid))
    shown = [line.split("|") for line in styled.to_string(delimiter="|").splitlines()[1:]]
    for row, values in zip(rows, shown, strict=True):
        for metric in grid.metrics:
            text = values[1 + list(styled.data.columns).index(column_name(grid, metric))]
            value = row[column_name(grid, metric)]
            if value is None:
                assert text == "", (row, metric, text)
            elif metric == "revenue":
                assert text == f"${value:,.0f}"
            else:
                assert text == f"{value:,.2f}%", (metric, text)
