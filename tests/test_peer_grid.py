"""The peer grid (issue 37 item 19): catalogue metrics for several companies by fiscal year,
each cell the figure an answer states, cited, missing ones blank with their reason; CSV and
Excel exports. On the real NVIDIA (FY2023) and AMD (FY2025) iXBRL 10-Ks ingested into a real
corpus (the hash embedder stands in for MiniLM: figures never use vectors)."""

from __future__ import annotations

import csv
import io
import re
import zipfile

import pytest

from core.app.corpus import Corpus
from core.app.peer_export import (
    column_name,
    empty_rows,
    grid_rows,
    inert,
    source_rows,
    to_csv,
    to_xlsx,
)
from core.app.peer_grid import DEFAULT_METRICS, corpus_stamp, fiscal_years, peer_grid
from core.figures.compute import answer_figure
from core.figures.model import FigureRequest
from core.foundation.config import Settings
from core.foundation.pages import page_ref
from core.metrics import catalog
from core.store.companies import companies

FILINGS = ("nvda-10k-fy2023.html", "amd-10k-fy2025.htm")
METRICS = ["revenue", "net_income", "operating_cash_flow", "gross_margin", "operating_margin",
           "net_margin", "fcf", "current_ratio", "eps_diluted", "revenue_growth"]


@pytest.fixture(scope="module")
def two(tmp_path_factory, ingested_store):
    from testkit.fakes.embedder import HashEmbedder

    store = ingested_store(tmp_path_factory.mktemp("peers") / "store", *FILINGS)
    corpus = Corpus(Settings(data_dir=store, cache_enabled=False, _env_file=None),
                    embedder=HashEmbedder())
    yield corpus
    corpus.close()


@pytest.fixture(scope="module")
def grid(two):
    return peer_grid(two.store, metrics=METRICS, years=4)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= max(1e-6, 5e-3 * abs(b))


def test_each_cell_is_the_figure_the_agent_looks_up_for_that_company(two, grid):
    """Every company x metric x year: the cell's value is what ``answer_figure`` (the
    agent's look-up) states for a request scoped to that company's filings alone."""
    filers = {c.key: c for c in companies(two.documents())}
    assert len(filers) == 2 and set(grid.companies) == set(filers)
    checked = 0
    for (key, metric, period), cell in grid.cells.items():
        m = catalog().get(metric)
        unit = m.unit if m.derived and m.unit in ("percent", "ratio", "times", "days") \
            else None  # a margin asked "in percent", as the grid states it
        result = answer_figure(FigureRequest(
            name=m.label, metric=metric, formula=f"{metric}[{period}]", periods=[period],
            unit=unit, doc_ids=filers[key].doc_ids), two.store)
        if result.value is None:
            assert cell.value is None and cell.reason, (key, metric, period)
            continue
        assert cell.value is not None and _close(cell.value, result.value), \
            (key, metric, period, cell.value, result.value)
        checked += 1
    assert checked >= 2 * len(METRICS)  # each company's own years are found


def test_derived_cells_are_computed_from_the_grids_own_inputs(grid):
    """A margin is its line over revenue; free cash flow is operating cash flow less
    capex; growth is this year's revenue over last year's: recomputed from the cells and
    cited facts, not trusted."""
    for key in grid.companies:
        for period in grid.periods:
            rev = grid.cell(key, "revenue", period)
            for metric, line in (("net_margin", "net_income"),):
                cell, num = grid.cell(key, metric, period), grid.cell(key, line, period)
                if rev.value and num.value is not None:
                    assert _close(cell.value, 100 * num.value / rev.value), (key, period)
                    assert cell.work and len(cell.sources) == 2
            fcf = grid.cell(key, "fcf", period)
            if fcf.value is not None:
                values = [float(re.sub(r"[^\d.]", "", s.value)) for s in fcf.sources]
                assert len(values) == 2 and _close(fcf.value, values[0] - values[1]), fcf


def test_every_found_cell_cites_a_printed_source_and_missing_ones_say_why(two, grid):
    found = [c for c in grid.cells.values() if c.value is not None]
    missing = [c for c in grid.cells.values() if c.value is None]
    assert found and missing  # NVIDIA reports no FY2025, AMD no FY2022 in these filings
    own = {c.key: set(c.doc_ids) for c in companies(two.documents())}
    names = {d.doc_id: d.file_name for d in two.documents()}
    labelled = 0
    for cell in found:
        assert cell.sources and cell.display and cell.citation, cell
        for s in cell.sources:
            assert s.page and s.chunk_id and s.found_as, s
            chunk = two.store.get_chunks([s.chunk_id])[0]
            assert chunk.doc_id in own[cell.company]  # never another company's filing
            assert s.file_name == names[chunk.doc_id]
            if s.page == chunk.page:  # the page said as the passage's citation says it
                assert s.where == page_ref(chunk.page, chunk.page_label, short=True), s
                labelled += bool(chunk.page_label)
    assert labelled  # these filings print page numbers: the grid says them
    for cell in missing:
        assert not cell.display and not cell.sources
        # the year (or, for growth, the year before) that is missing, or the line the
        # company never prints
        assert re.search(r"\bFY\d{4}\b", cell.reason) or "not a measure" in cell.reason, \
            cell.reason


def test_years_pick_and_company_choice(two):
    years = fiscal_years(two.store)
    assert years == sorted(years) and len(years) >= 3
    assert all(re.fullmatch(r"FY\d{4}", y) for y in years)
    for n in (1, 2, 3):
        assert peer_grid(two.store, metrics=["revenue"], years=n).periods == years[-n:]
    for company in companies(two.documents()):
        alone = peer_grid(two.store, metrics=["revenue", "net_margin"],
                          companies=[company.key], years=years[-2:])
        assert list(alone.companies) == [company.key]
        assert {k for k, _, _ in alone.cells} == {company.key}
        assert alone.periods == years[-2:]
    default = peer_grid(two.store)
    assert list(default.metrics) == list(DEFAULT_METRICS)


def test_rows_leave_out_years_no_filing_covers_and_sources_keep_the_reason(grid):
    rows = grid_rows(grid)
    empty = empty_rows(grid)
    assert empty  # NVIDIA's FY2024/FY2025 when four years are shown
    assert len(rows) + len(empty) == len(grid.companies) * len(grid.periods)
    for key, period in empty:
        name = grid.companies[key]
        assert not any(r["company"] == name and r["fiscal year"] == period for r in rows)
        reasons = [r["missing because"] for r in source_rows(grid)
                   if r["company"] == name and r["fiscal year"] == period]
        assert len(reasons) == len(grid.metrics) and all(reasons)


def test_csv_export_reads_back_as_the_grid_and_its_sources(grid):
    text = to_csv(grid).decode("utf-8-sig")
    head, _, tail = text.partition("\r\n\r\n")
    table = list(csv.DictReader(io.StringIO(head)))
    assert len(table) == len(grid_rows(grid))
    by_name = {n: k for k, n in grid.companies.items()}
    for row in table:
        for metric in grid.metrics:
            cell = grid.cell(by_name[row["company"]], metric, row["fiscal year"])
            got = row[column_name(grid, metric)]
            assert (got == "") == (cell.value is None)
            if got:
                assert _close(float(got), cell.value)
    sources = list(csv.DictReader(io.StringIO(tail)))
    assert len(sources) == len(source_rows(grid))
    assert all(s["filing"] and s["page"] for s in sources if not s["missing because"])


def test_excel_export_is_a_workbook_with_the_grid_and_sources(grid):
    data = to_xlsx(grid)
    with zipfile.ZipFile(io.BytesIO(data)) as book:
        workbook = book.read("xl/workbook.xml").decode()
        sheet = book.read("xl/worksheets/sheet1.xml").decode()
        strings = book.read("xl/sharedStrings.xml").decode()
    assert 'name="Peer grid"' in workbook and 'name="Sources"' in workbook
    numbers = [float(v) for v in re.findall(r'<c r="[A-Z]+\d+"(?: s="\d+")?><v>([^<]+)</v>',
                                            sheet)]
    found = [v for row in grid_rows(grid) for m in grid.metrics
             if (v := row[column_name(grid, m)]) is not None]
    assert len(numbers) == len(found) and all(_close(a, b) for a, b in zip(numbers, found,
                                                                          strict=True))
    for name in grid.companies.values():
        assert name.replace("&", "&amp;") in strings


@pytest.mark.parametrize("lead", ["=", "+", "@", "-"])
@pytest.mark.parametrize("body", ['HYPERLINK("http://x.test","click")', "cmd|' /C calc'!A0",
                                  "SUM(A1:A9)"])
def test_exports_never_hand_a_spreadsheet_a_formula(lead, body):
    assert inert(lead + body) == "'" + lead + body
    for safe in ("-12.5", "Revenue | $26,974", 26974.0, None):
        assert inert(safe) == safe


def test_the_corpus_stamp_moves_when_a_filing_is_corrected(two):
    docs = two.documents()
    before = corpus_stamp(docs, 1)
    changed = [d.model_copy(update={"period": "FY1999"}) if i == 0 else d
               for i, d in enumerate(docs)]
    assert corpus_stamp(changed, 1) != before
    assert corpus_stamp(docs, 2) != before
    assert corpus_stamp(docs[1:], 1) != before
