"""Statement tables are drawn as tables headed by the filing's column headings (never
"column 2" when a heading is known) in the citation panel, "In the filing", the Library and
the exports. Tables are generated from slots: period headings, spanning headings, unit
lines, line items and a glued change column."""

from __future__ import annotations

import itertools

import pytest
from streamlit.testing.v1 import AppTest

from core.agent.state import Answer, Evidence
from core.app.report import render_markdown
from core.app.report_html import render_html
from core.app.runs import RunRecord
from core.app.table_grid import table_grid

PERIODS = [("2024", "2023"), ("January 29, 2023", "January 30, 2022"),
           ("December 28, 2024", "December 30, 2023"), ("Fiscal 2025", "Fiscal 2024")]
ITEMS = [("Revenue", "$26,974", "$26,914"), ("Net income", "4,368", "9,752"),
         ("Operating expenses", "(11,132)", "(7,434)")]
SPANS = ["Year Ended", "Fiscal Year Ended", ""]
UNITS = ["($ in millions)", "(In millions, except per share data)", ""]
CHANGES = ["", "Down 55%", "—%", "12%"]


def _table(periods, span, unit, change) -> str:
    lines = ["CONSOLIDATED STATEMENTS OF INCOME", ""]
    lines += [f"| {span}"] if span else []
    head = f"| {periods[0]} | {periods[1]}" + (" Change" if change else "")
    lines += [head] + ([f"| {unit}"] if unit else [])
    lines += [f"{item} | {a} | {b}" + (f" {change}" if change else "") for item, a, b in ITEMS]
    return "\n".join(lines)


CASES = list(itertools.product(PERIODS, SPANS, UNITS, CHANGES))


@pytest.mark.parametrize(("periods", "span", "unit", "change"), CASES[::2])
def test_the_filing_s_column_headings_head_the_grid(periods, span, unit, change):
    grid = table_grid(_table(periods, span, unit, change))
    assert grid.header[:3] == ["", *periods], grid.header
    assert not any(h.startswith("column") for h in grid.header)
    assert grid.header[3:] == (["Change"] if change else [])
    assert [r[0] for r in grid.rows] == [i for i, _, _ in ITEMS]
    assert grid.rows[0][1:] == [ITEMS[0][1], ITEMS[0][2]] + ([change] if change else [])
    assert all(x in grid.caption for x in (span, unit) if x)


@pytest.mark.parametrize("periods", PERIODS)
def test_a_piece_below_its_headings_takes_them_from_its_context(periods):
    body = "\n".join(f"{i} | {a} | {b}" for i, a, b in ITEMS)
    context = f"Consolidated Statements of Cash Flows\n| Year Ended\n| {periods[0]} | " \
              f"{periods[1]}\n| (In millions)"
    assert table_grid(body, None, context).header == ["", *periods]
    assert table_grid(body).header == ["", "column 2", "column 3"]  # nothing known


def _evidence(periods) -> Evidence:
    return Evidence(id="d1-00007", kind="chunk", text=_table(periods, "Year Ended",
                                                             "(In millions)", "Down 55%"),
                    doc_id="d1", section="Item 7", page=40, page_label="39", label="Acme 10-K")


@pytest.mark.parametrize("periods", PERIODS)
def test_exports_write_statement_tables_as_tables(periods):
    record = RunRecord(question="q", evidence=[_evidence(periods)],
                       answer=Answer(text="Revenue was $26,974 million. [1]"))
    md = render_markdown(record)
    assert f"| {periods[0]} | {periods[1]} | Change |" in md
    assert "|---|---|---|---|" in md and "| Revenue | $26,974 | $26,914 | Down 55% |" in md
    html = render_html(record)
    assert f"<th>{periods[0]}</th><th>{periods[1]}</th><th>Change</th>" in html
    assert '<td class="num">$26,914</td>' in html and "Down 55%</td>" in html


def _library_chunk() -> None:
    from components.library import render_chunk
    from core.foundation.types import Chunk
    from tests.test_table_grid_headings import ITEMS

    body = "\n".join(f"{i} | {a} | {b}" for i, a, b in ITEMS)
    render_chunk(Chunk(chunk_id="d1-00009", doc_id="d1", index=9, section="Item 8", text=body,
                       start=0, end=len(body), kind="table", page=55, page_label="54",
                       context="Balance sheet\n| June 30, 2025 | June 30, 2024"))


def _in_the_filing() -> None:
    from components.citation_panel import render_section_context
    from core.app.cited import CitedPassage
    from core.foundation.types import Chunk
    from tests.test_table_grid_headings import _table

    text = _table(("2024", "2023"), "Year Ended", "(In millions)", "")
    chunk = Chunk(chunk_id="d1-00003", doc_id="d1", index=3, section="Item 7", text=text,
                  start=0, end=len(text), kind="table", page=40)
    at = text.index("Net income")
    p = CitedPassage(n=1, kind="chunk", evidence_id=chunk.chunk_id, text=text,
                     highlight=(at, at + 10), chunk=chunk, section="Item 7", source="Acme")
    render_section_context(p, [chunk], None, key="t")


def test_the_library_and_in_the_filing_draw_tables_with_their_headings():
    lib = AppTest.from_function(_library_chunk, default_timeout=120).run()
    assert not lib.exception, lib.exception
    assert list(lib.dataframe[0].value.columns) == ["", "June 30, 2025", "June 30, 2024"]
    assert not lib.code and "page 54" in lib.caption[0].value
    near = AppTest.from_function(_in_the_filing, default_timeout=120).run()
    assert not near.exception, near.exception
    frame = near.dataframe[0].value
    assert list(frame.columns) == ["", "2024", "2023"] and frame.iloc[1, 0] == "Net income"
    assert not any("|" in m.value for m in near.markdown)
