"""A cited table is shown as a grid (caption, column headings, the cited row marked), not as
pipe-separated text (issue 21)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from core.app.table_grid import table_grid

TABLE = ("CONSOLIDATED STATEMENTS OF INCOME\n(In millions)\n\n"
         " | Jan 29, 2023 | Jan 30, 2022\n"
         "Revenue | $ 26,974 | $ 26,914\n"
         "Cost of revenue | 11,618 | 9,439\n"
         "Gross profit | 15,356 | 17,475\n\n"
         "See accompanying notes.")


def test_a_table_chunk_reads_back_as_caption_headings_and_rows():
    row = TABLE.index("Cost of revenue")
    grid = table_grid(TABLE, (row, row + 10))
    assert grid.caption == ["CONSOLIDATED STATEMENTS OF INCOME", "(In millions)"]
    assert grid.header == ["", "Jan 29, 2023", "Jan 30, 2022"]
    assert grid.rows[0] == ["Revenue", "$ 26,974", "$ 26,914"]
    assert len(grid.rows) == 3 and grid.marked == [1]
    assert grid.after == ["See accompanying notes."]


def test_rows_without_a_heading_row_get_plain_column_names_and_prose_is_not_a_grid():
    grid = table_grid("Revenue | 1,200 | 1,100\nCosts | 800 | 700")
    assert grid.header == ["", "column 2", "column 3"] and len(grid.rows) == 2
    assert table_grid("No table here.\nJust text | one pipe.") is None


def _panel() -> None:
    from components.citation_panel import render_passage
    from core.app.cited import CitedPassage
    from core.foundation.types import Chunk
    from tests.test_table_grid import TABLE as text
    start = text.index("Gross profit")
    chunk = Chunk(chunk_id="d-00001", doc_id="d", index=1, section="Item 8", text=text,
                  start=0, end=len(text), kind="table")
    render_passage(CitedPassage(n=1, kind="chunk", evidence_id="d-00001", text=text,
                                highlight=(start, start + 12), chunk=chunk, source="NVIDIA"))


def test_the_citation_panel_draws_a_cited_table_as_a_grid():
    at = AppTest.from_function(_panel, default_timeout=120).run()
    assert not at.exception, at.exception
    frame = at.dataframe[0].value
    assert list(frame.columns) == ["", "Jan 29, 2023", "Jan 30, 2022"]
    assert frame.iloc[2, 0] == "Gross profit"
    captions = [c.value for c in at.caption]
    assert "\\(In millions\\)" in captions and "The cited row is marked." in captions
    assert not any("|" in m.value for m in at.markdown)
