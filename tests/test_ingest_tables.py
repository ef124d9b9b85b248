"""Tables keep cell positions, glue "$" / "%" / ")" to figures (issue 9, fault 4)."""

from __future__ import annotations

from core.ingest.html import load_html
from core.ingest.html_grid import grid_rows
from core.ingest.pdf import load_pdf
from tests.test_ingest_pdf import make_pdf

# Synthetic excerpt shaped like an EDGAR income-statement table: spacer columns, "$" cells,
# ")" and "%" cells, headings spanning three columns, and a row with no 2024 value.
EDGAR_TABLE = """<html><body><p>Segment results</p><table>
<tr><td></td><td colspan="3">2024</td><td></td><td colspan="3">2023</td><td></td>
<td colspan="3">2022</td></tr>
<tr><td>Products</td><td>$</td><td>120,000</td><td></td><td></td><td>$</td><td>100,000</td>
<td></td><td></td><td>$</td><td>90,000</td><td></td></tr>
<tr><td>Total</td><td></td><td></td><td></td><td></td><td>$</td><td>112,260</td><td></td>
<td></td><td>$</td><td>89,074</td><td></td></tr>
<tr><td>Net loss</td><td>$</td><td>(1,234</td><td>)</td><td></td><td>$</td><td>(567</td>
<td>)</td><td></td><td></td><td>&#8212;</td><td></td></tr>
<tr><td>Margin</td><td></td><td>36.1</td><td>%</td><td></td><td></td><td>(2.5</td><td>)%</td>
<td></td><td></td><td>12</td><td>%</td></tr>
</table><p>Products revenue grew on demand for widgets.</p></body></html>"""


def test_html_cells_keep_their_columns():
    text = load_html(EDGAR_TABLE.encode()).text
    assert "| 2024 | 2023 | 2022\n" in text
    assert "Products | $120,000 | $100,000 | $90,000" in text
    assert "Total |  | $112,260 | $89,074" in text  # the blank 2024 cell stays blank
    assert "Net loss | $(1,234) | $(567) | —" in text
    assert "Margin | 36.1% | (2.5)% | 12%" in text


def test_grid_rows_map_spanning_headings_and_drop_spacers():
    rows = grid_rows([
        [("", 1), ("Three Months Ended", 7)],
        [("", 1), ("2024", 3), ("", 1), ("2023", 3)],
        [("Revenue", 1), ("$", 1), ("5", 1), ("", 1), ("", 1), ("$", 1), ("4", 1), ("", 1)],
        [("Cost", 1), ("", 1), ("", 1), ("", 1), ("", 1), ("", 1), ("3", 1), ("", 1)],
        [("Loss", 1), ("$", 1), ("(2", 1), (")", 1), ("", 1), ("$", 1), ("(1", 1), (")", 1)],
        [("", 1), ("", 1), ("", 1)],
    ])
    assert rows == [["", "Three Months Ended"], ["", "2024", "2023"],
                    ["Revenue", "$5", "$4"], ["Cost", "", "3"], ["Loss", "$(2)", "$(1)"]]


def test_pdf_cells_keep_their_columns():
    """Same-width figures in fixed columns (Helvetica digits are tabular): a row without a
    2024 value keeps its 2023 figure under 2023."""
    prose = "Results of operations were strong this year for every segment we serve.\n" * 4
    page = (
        prose + "Segment Results\n"
        "\t2024\t2023\n"
        "Products\t112,260\t189,074\n"
        "Services\t\t189,074\n"
        "Total\t112,260\t378,148\n"
        "Net loss\t(12,260)\t(48,148)"
    )
    text = load_pdf(make_pdf([page])).text
    assert "Products | 112,260 | 189,074" in text
    assert "Services |  | 189,074" in text
    assert "Total | 112,260 | 378,148" in text
    assert "Net loss | (12,260) | (48,148)" in text


def _long_statement() -> bytes:
    """Synthetic EDGAR-like statement long enough to be split into several chunks."""
    rows = "".join(
        f"<tr><td>Line item number {word}</td><td>$</td><td>{1000 + i:,}</td><td></td>"
        f"<td>$</td><td>{900 + i:,}</td><td></td></tr>"
        for i, word in enumerate(
            ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike "
             "november oscar papa quebec romeo sierra tango uniform victor whiskey xray "
             "yankee zulu one two three four five six seven eight nine ten").split()
        )
    )
    return (
        "<html><body><p>Item 8. Financial Statements and Supplementary Data</p>"
        "<p>Consolidated Statements of Operations</p><p>(In millions)</p><table>"
        '<tr><td></td><td colspan="3">Year Ended</td></tr>'
        '<tr><td></td><td colspan="3">2024</td><td colspan="3">2023</td></tr>'
        f"{rows}</table>"
        "<p>Gross Margin</p><p>Gross margin rose because component costs fell while prices "
        "held; freight costs also eased during the second half of the year. "
        + "Mix shifted toward higher-margin industrial widgets in every region we serve. " * 4
        + "</p>"
        "</body></html>"
    ).encode()


def test_every_piece_of_a_table_carries_its_caption_and_headings(settings):
    from core.ingest.pipeline import prepare

    chunks = prepare(_long_statement(), "acme-10k.htm", settings).chunks
    pieces = [c for c in chunks if c.kind == "table"]
    assert len(pieces) >= 2
    for piece in pieces:
        assert "Consolidated Statements of Operations" in piece.context
        assert "(In millions)" in piece.context and "| 2024 | 2023" in piece.context
        assert len(piece.context) <= 300
    continuation = pieces[-1]
    assert "2024" not in continuation.text and "Line item number ten | $1,035" in continuation.text
    prose = next(c for c in chunks if "component costs fell" in c.text)
    assert prose.kind == "text" and prose.context == "Gross Margin"
