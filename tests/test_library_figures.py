"""The Library's figures: a filing's or a company's catalogue metrics by fiscal period, its
segments, each figure with its source, a chart; a source opens the statement in the section
browser. On the real NVIDIA (FY2023) and AMD (FY2025) iXBRL 10-Ks ingested into a real
corpus (its registry and facts store; the hash embedder stands in for MiniLM, which figures
never use), then the Library page through the entry file (AppTest)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from components import keys, services
from components.library_figures import (
    metric_chart,
    metrics_frame,
    scopes,
    segments_chart,
    segments_frame,
    sources_frame,
)
from core.app.filing_figures import figures_of, member_name, periods_of
from core.app.table_grid import table_grid
from tests.analysis_fixtures import AMD, NVDA
from tests.test_app import APP, TIMEOUT, app_env, ok, texts  # noqa: F401 (app_env: fixture)

pytestmark = pytest.mark.usefixtures("app_env")


@pytest.fixture
def corpus(app_env, ingested_store):  # noqa: F811 (app_env: the fixture)
    """The app's own corpus with both 10-Ks ingested (once a session, copied here)."""
    ingested_store(app_env / "store", NVDA.stem, AMD.stem)
    return services.corpus()


def _doc(corpus, ticker_word: str):
    return next(d for d in corpus.documents() if ticker_word in d.company)


def test_a_filing_s_figures_are_the_figures_an_answer_states(corpus):
    nvda = _doc(corpus, "NVIDIA")
    view = figures_of(corpus.store, [nvda.doc_id])
    assert view.periods == ["FY2021", "FY2022", "FY2023"]
    by_key = {line.key: line for line in view.lines}
    revenue = by_key["revenue"]
    assert [revenue.cells[p].display for p in view.periods] == [
        "$16,675 million", "$26,914 million", "$26,974 million"]
    fact = revenue.cells["FY2023"].inputs[0].fact
    assert fact.source == "xbrl" and fact.concept == "us-gaap:Revenues" and fact.page
    assert fact.chunk_id and "26,974" in corpus.store.get_chunks([fact.chunk_id])[0].text
    assert by_key["operating_margin"].cells["FY2023"].display == "15.66%"
    assert by_key["capex"].cells["FY2023"].display == "$1,833 million"  # asked positive
    assert {line.group for line in view.lines} == {"income", "cash_flow", "balance", "derived"}
    # a balance the FY2023 10-K does not print for FY2021 is missing, said, not guessed
    assert by_key["total_assets"].cells["FY2021"].value is None
    assert by_key["total_assets"].cells["FY2021"].missing


def test_segments_and_regions_by_period(corpus):
    nvda = _doc(corpus, "NVIDIA")
    view = figures_of(corpus.store, [nvda.doc_id])
    products = {s.name: s for s in view.segments if s.kind == "product"}
    assert {"Data Center", "Gaming", "Automotive"} <= set(products)
    assert products["Data Center"].cells["FY2023"].value == 15_005e6
    assert products["Data Center"].cells["FY2023"].fact.chunk_id
    regions = {s.name for s in view.segments if s.kind == "geography"}
    assert "China (including Hong Kong)" in regions  # as the filing prints it
    frame = segments_frame([products["Data Center"], products["Gaming"]], view.periods)
    assert frame.columns.tolist() == ["member", "FY2023", "FY2022", "FY2021",
                                      "source (latest)"]
    assert frame.iloc[0].tolist()[:3] == ["Data Center", "$15,005 million", "$10,613 million"]
    fig = segments_chart(list(products.values()), view.periods, "Products")
    assert [t.name for t in fig.data] == view.periods and fig.layout.barmode == "group"
    assert member_name("nvda:OEMAndOtherMember") == "OEM and Other"
    assert member_name("country:US") == "US"


def test_a_company_s_figures_and_the_frames_drawn_from_them(corpus):
    amd = _doc(corpus, "ADVANCED MICRO")
    options = scopes(corpus.documents())
    company = next(k for k, (label, _) in options.items() if k.startswith("company:")
                   and "ADVANCED MICRO" in label)
    assert options[company][1] == [amd.doc_id]
    view = figures_of(corpus.store, options[company][1])
    assert view.periods == ["FY2023", "FY2024", "FY2025"]
    income = view.group("income")
    frame = metrics_frame(income, view.periods, view.page_of)
    assert frame.columns.tolist() == ["metric", "FY2025", "FY2024", "FY2023", "source (latest)"]
    first = frame.iloc[0].to_dict()
    assert first["metric"] == "Revenue" and first["FY2025"] == "$34,639 million"
    revenue = income[0].cells["FY2025"].inputs[0].fact
    assert first["source (latest)"].startswith(view.page_of(revenue) + " · XBRL us-gaap:Revenue")
    assert metrics_frame(income, view.periods).iloc[0]["source (latest)"].startswith(
        f"PDF p. {revenue.page} · ")  # no printed numbers known: the PDF page, said so
    margin = next(line for line in view.lines if line.key == "operating_margin")
    assert metrics_frame([margin], view.periods).iloc[0]["source (latest)"].startswith(
        "computed from 2 facts")
    sources = sources_frame(margin, {amd.doc_id: amd.file_name})
    assert sources["input"].tolist()[:2] == ["operating income, FY2025", "revenue, FY2025"]
    assert set(sources["filing"]) == {amd.file_name}
    chart = metric_chart(income[0], view.periods)
    assert list(chart.data[0].x) == view.periods and chart.data[0].text[-1] == "$34,639 million"
    assert periods_of([]) == []


def test_the_library_shows_figures_and_opens_a_source_in_the_section_browser(corpus):
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    ok(at.switch_page("app_pages/library.py").run())
    assert "Figures" in [s.value for s in at.subheader]
    scope = at.selectbox(key="lib_fig_scope")
    assert any("NVIDIA" in o for o in scope.options) and any("ADVANCED" in o for o in
                                                               scope.options)
    nvda = next(k for k, (label, _) in scopes(corpus.documents()).items()
                if k.startswith("company:") and "NVIDIA" in label)
    ok(scope.set_value(nvda).run())
    tabs = [t.label for t in at.tabs][2:]  # after the web snapshot's two
    assert tabs[:4] == ["Income statement", "Cash flows", "Balance sheet",
                        "Ratios and margins"] and "Segments" in tabs
    frames = [d.value for d in at.dataframe]
    income = next(f for f in frames if "metric" in f.columns and
                  f["metric"].tolist()[:1] == ["Revenue"])
    assert income.iloc[0].tolist()[1] == "$26,974 million"  # FY2023 first
    assert len(at.get("plotly_chart")) >= 4
    assert "catalogue metrics" in texts(at)
    pills = next(p for p in at.pills if p.label.startswith("Open in the filing"))
    pills.set_value(0).run()
    ok(at)
    focus = at.session_state[keys.LIB_FOCUS_CHUNK]
    assert focus and at.session_state[keys.LIB_BROWSE_DOC] == focus.rsplit("-", 1)[0]
    assert at.session_state[keys.LIB_FOCUS_SPAN]  # the fact's row, marked
    # the cited table drawn as a grid with the fact's row marked
    chunk = corpus.store.get_chunks([focus])[0]
    grid = table_grid(chunk.text, tuple(at.session_state[keys.LIB_FOCUS_SPAN]), chunk.context)
    assert grid is not None and grid.marked
    assert any(grid.rows[i][0].startswith("Revenue") for i in grid.marked)
    assert "The cited row is marked." in [c.value for c in at.caption]
    assert any(list(d.value.columns) == grid.header for d in at.dataframe)
