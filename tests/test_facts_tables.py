"""Table facts: periods from column headings and the filing's fiscal calendar, the caption's
scale, parentheses negative, units; for PDF-shaped text (pypdf layout lines through
``pdf_layout``) and for EDGAR-shaped HTML tables (``load_html``)."""

from __future__ import annotations

from core.foundation.types import DocumentMeta, Page, ParsedDocument
from core.ingest.facts import extract_facts
from core.ingest.facts.calendar import FiscalCalendar
from core.ingest.html import load_html
from core.ingest.pdf_layout import page_text


def _meta(period: str, end: str, form: str = "10-K") -> DocumentMeta:
    return DocumentMeta(doc_id="abcdef0123456789", file_name="f", form_type=form,
                        period=period, period_end=end)


def _pdf(*pages: str) -> ParsedDocument:
    texts, spans, page_spans, pos = [], [], [], 0
    for number, raw in enumerate(pages, start=1):
        text, tables = page_text(raw)
        if texts:
            pos += 2
        page_spans.append(Page(number=number, start=pos, end=pos + len(text)))
        spans.extend((pos + a, pos + b) for a, b in tables)
        texts.append(text)
        pos += len(text)
    return ParsedDocument(text="\n\n".join(texts), pages=page_spans, table_spans=spans)


def _find(facts, label: str, year: int, **kw):
    found = [f for f in facts if f.label == label and f.fiscal_year == year
             and all(getattr(f, k) == v for k, v in kw.items())]
    assert len(found) == 1, (label, year, [f.model_dump() for f in facts if f.label == label])
    return found[0]


CASH_FLOW_PAGE = """\
                         3M Company and Subsidiaries
                     Consolidated Statement of Cash Flow s
                          Years ended December 31

(Millions)                                                  2018         2017         2016
Cash Flows from Operating Activities
Net income including noncontrolling interest           $    5,363   $    4,869   $    5,058
Depreciation and amortization                               1,488        1,544        1,474
Net cash provided by (used in) operating activities         6,439        6,240        6,662
Cash Flows from Investing Activities
Purchases of property, plant and equipment (PP&E)          (1,577)      (1,373)      (1,420)
Proceeds from sale of PP&E and other assets                   262           49           58
"""
CASH_FLOW_NEXT = """\
Cash Flows from Financing Activities
Dividends paid to shareholders                             (3,193)      (2,803)      (2,678)
Purchases of treasury stock                                (4,870)      (2,068)      (3,753)
"""


def test_pdf_cash_flow_statement_in_millions_with_negatives():
    parsed = _pdf(CASH_FLOW_PAGE, CASH_FLOW_NEXT)
    facts = extract_facts(_meta("FY2018", "2018-12-31"), parsed, [])
    capex = _find(facts, "Purchases of property, plant and equipment (PP&E)", 2018)
    assert capex.value == -1_577_000_000.0 and capex.printed == "(1,577)"
    assert (capex.statement, capex.unit, capex.scale, capex.period_type) == \
        ("cash_flow", "USD", 6, "duration")
    assert (capex.fiscal_period, capex.months, capex.end, capex.column) == \
        ("FY", 12, "2018-12-31", "2018")
    assert capex.page == 1 and capex.row.startswith("Purchases of property")
    assert _find(facts, "Net income including noncontrolling interest", 2016).value == 5.058e9
    # the next page's rows continue the statement: same columns, scale and statement
    dividends = _find(facts, "Dividends paid to shareholders", 2017)
    assert (dividends.value, dividends.statement, dividends.page) == \
        (-2_803_000_000.0, "cash_flow", 2)


INCOME_HTML = """<html><body>
<p>NVIDIA CORPORATION AND SUBSIDIARIES</p><p>CONSOLIDATED STATEMENTS OF INCOME</p>
<p>(In millions, except per share data)</p>
<table>
<tr><td></td><td colspan="6">Year Ended</td></tr>
<tr><td></td><td colspan="2">January 29, 2023</td><td colspan="2">January 30, 2022</td>
<td colspan="2">January 31, 2021</td></tr>
<tr><td>Revenue</td><td>$</td><td>26,974</td><td>$</td><td>26,914</td><td>$</td><td>16,675</td></tr>
<tr><td>Interest expense</td><td></td><td>(262)</td><td></td><td>(236)</td><td></td>
<td>(184)</td></tr>
<tr><td>Acquisition termination cost</td><td></td><td>1,353</td><td></td><td>—</td><td></td>
<td>—</td></tr>
<tr><td>Net income per share:</td></tr>
<tr><td>Diluted</td><td>$</td><td>1.74</td><td>$</td><td>3.85</td><td>$</td><td>1.73</td></tr>
<tr><td>Weighted average shares used in per share computation:</td></tr>
<tr><td>Diluted</td><td></td><td>2,507</td><td></td><td>2,535</td><td></td><td>2,510</td></tr>
</table>
<p>Debt maturities (in millions)</p>
<table>
<tr><td></td><td>2024</td><td>2025</td><td>Thereafter</td></tr>
<tr><td>Senior notes</td><td>1,250</td><td>1,000</td><td>7,000</td></tr>
</table>
</body></html>"""


def test_html_statement_52_53_week_years_scale_sign_units():
    parsed = load_html(INCOME_HTML.encode())
    facts = extract_facts(_meta("FY2023", "2023-01-29"), parsed, [])
    revenue = _find(facts, "Revenue", 2023)
    assert (revenue.value, revenue.statement, revenue.end, revenue.fiscal_period) == \
        (26_974_000_000.0, "income", "2023-01-29", "FY")
    assert _find(facts, "Revenue", 2021).end == "2021-01-31"  # 53-week year, a day later
    assert _find(facts, "Interest expense", 2022).value == -236_000_000.0
    assert _find(facts, "Acquisition termination cost", 2022).value == 0.0
    eps = _find(facts, "Net income per share: Diluted", 2023)
    assert (eps.value, eps.unit, eps.scale) == (1.74, "USD/share", 0)
    shares = _find(facts, "Weighted average shares used in per share computation: Diluted",
                   2022)
    assert (shares.value, shares.unit) == (2_535_000_000.0, "shares")
    assert not [f for f in facts if f.label == "Senior notes"]  # future years: no period


def test_a_retailer_naming_its_year_by_the_year_it_starts():
    parsed = load_html(INCOME_HTML.encode())
    facts = extract_facts(_meta("FY2022", "2023-01-29"), parsed, [])
    assert _find(facts, "Revenue", 2022).value == 26_974_000_000.0
    assert _find(facts, "Revenue", 2020).end == "2021-01-31"


QUARTER_HTML = """<html><body>
<p>CONDENSED CONSOLIDATED STATEMENTS OF CASH FLOWS (Unaudited)</p><p>(In thousands)</p>
<table>
<tr><td></td><td colspan="2">Three Months Ended</td><td colspan="2">Six Months Ended</td></tr>
<tr><td></td><td>July 30, 2023</td><td>July 31, 2022</td><td>July 30, 2023</td>
<td>July 31, 2022</td></tr>
<tr><td>Net cash provided by operating activities</td><td>6,348</td><td>1,270</td>
<td>9,237</td><td>2,001</td></tr>
</table>
<p>CONDENSED CONSOLIDATED BALANCE SHEETS</p><p>(In thousands)</p>
<table>
<tr><td></td><td>July 30, 2023</td><td>January 29, 2023</td></tr>
<tr><td>Total assets</td><td>49,555</td><td>41,182</td></tr>
</table>
<p>Revenue as a percentage of net revenue</p>
<table>
<tr><td></td><td>Three Months Ended July 30, 2023</td><td>Three Months Ended July 31, 2022</td></tr>
<tr><td>Gross margin</td><td>70.1</td><td>43.5</td></tr>
</table>
</body></html>"""


def test_10q_quarter_apart_from_year_to_date_and_instants():
    parsed = load_html(QUARTER_HTML.encode())
    facts = extract_facts(_meta("2024-Q2", "2023-07-30", "10-Q"), parsed, [])
    cfo = [f for f in facts if f.label == "Net cash provided by operating activities"]
    got = {(f.fiscal_year, f.fiscal_period, f.months): f.value for f in cfo}
    assert got == {(2024, "Q2", 3): 6_348_000.0, (2023, "Q2", 3): 1_270_000.0,
                   (2024, "H1", 6): 9_237_000.0, (2023, "H1", 6): 2_001_000.0}
    assets = [f for f in facts if f.label == "Total assets"]
    assert {(f.fiscal_year, f.period_type, f.fiscal_period) for f in assets} == \
        {(2024, "instant", ""), (2023, "instant", "")}
    margin = _find(facts, "Gross margin", 2024)
    assert (margin.unit, margin.value, margin.fiscal_period) == ("percent", 70.1, "Q2")


def test_a_10q_whose_quarter_is_only_its_end_date():
    cal = FiscalCalendar.for_filing("2023-07-30", "2023-07-30", "10-Q", quarter_hint=2)
    assert cal.resolve(__import__("datetime").date(2023, 7, 30), 6, False).fiscal_period == "H1"


def test_chunks_and_pages_of_rows(settings):
    """Through ``prepare``: every table fact points at the chunk whose span holds its row."""
    from core.ingest.pipeline import prepare

    cover = ("<p>ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) FORM 10-K For the fiscal year "
             "ended January 29, 2023</p><p>NVIDIA CORPORATION</p>" + "<p>word </p>" * 40)
    html = INCOME_HTML.replace("<body>", "<body>" + cover)
    prepared = prepare(html.encode(), "nvda.htm", settings, company="NVIDIA", period="FY2023")
    facts = [f for f in prepared.facts if f.source == "table"]
    assert facts and prepared.meta.period_end == "2023-01-29"
    chunks = {c.chunk_id: c for c in prepared.chunks}
    for f in facts:
        chunk = chunks[f.chunk_id]
        assert f.row in prepared.parsed.text[chunk.start:chunk.end]


SEGMENTS_HTML = """<html><body>
<p>NOTES TO THE CONSOLIDATED FINANCIAL STATEMENTS</p>
<table>
<tr><td></td><td>Compute &amp; Networking</td><td>Graphics</td><td>All Other</td>
<td>Consolidated</td></tr>
<tr><td></td><td colspan="4">(In millions)</td></tr>
<tr><td>Year Ended January 29, 2023:</td></tr>
<tr><td>Revenue</td><td>$15,068</td><td>$11,906</td><td>$—</td><td>$26,974</td></tr>
<tr><td>Operating income (loss)</td><td>$5,083</td><td>$4,552</td><td>$(5,411)</td>
<td>$4,224</td></tr>
<tr><td>Year Ended January 30, 2022:</td></tr>
<tr><td>Revenue</td><td>$11,046</td><td>$15,868</td><td>$—</td><td>$26,914</td></tr>
</table></body></html>"""


def test_segment_table_with_periods_heading_row_groups():
    facts = extract_facts(_meta("FY2023", "2023-01-29"), load_html(SEGMENTS_HTML.encode()), [])
    got = {(f.label, f.fiscal_year, f.dims): f.value for f in facts}
    assert got[("Revenue", 2023, "column=Graphics")] == 11_906_000_000.0
    assert got[("Revenue", 2022, "column=Compute & Networking")] == 11_046_000_000.0
    assert got[("Revenue", 2022, "")] == 26_914_000_000.0  # the consolidated column
    assert got[("Operating income (loss)", 2023, "column=All Other")] == -5_411_000_000.0
    assert {f.column for f in facts if f.dims == ""} == {"Consolidated"}


BALANCE_PAGE = """\
                          Consolidated Balance Sheets
                     GENERAL MILLS, INC. AND SUBSIDIARIES
                        (In Millions, Except Par Value)

                                                          May 31, 2020      May 26, 2019

ASSETS

Current assets:

Cash and cash equivalents ......................         $     1,677.8     $       450.0
Receivables ....................................               1,615.1           1,679.7
Total             current assets                               5,121.3           4,186.5
Total assets                                             $    30,806.7     $    30,111.2
"""


def test_pdf_balance_sheet_with_headings_above_and_a_split_label():
    parsed = _pdf(BALANCE_PAGE)
    facts = extract_facts(_meta("FY2020", "2020-05-31"), parsed, [])
    current = _find(facts, "Total current assets", 2020)
    assert (current.value, current.period_type, current.statement, current.end) == \
        (5_121_300_000.0, "instant", "balance", "2020-05-31")
    assert _find(facts, "Receivables", 2019).value == 1_679_700_000.0
    assert _find(facts, "Cash and cash equivalents", 2020).value == 1_677_800_000.0


BROKEN_BALANCE_PAGE = """\
MGM
RESORTS
INTERNATIONAL

CONSOLIDATED
BALANCE
SHEETS

(In thousands, except share data)

December
31,

2018

2017

ASSETS
Accounts receivable, net                         657,206         542,273
Total current assets                           2,526,778       2,376,355
"""
OPERATIONS_PAGE = """\
                 CONSOLIDATED STATEMENTS OF OPERATIONS
                   (In thousands, except per share data)
                         Year Ended December 31,
                                        2020            2019           2018
Revenues
Casino                           $ 2,871,720     $ 6,517,759    $ 5,753,150
Rooms                                830,382       2,322,579      2,212,573
                                   5,162,082      12,899,672     11,763,096
Expenses
Casino                             1,701,783       3,623,899      3,199,775
"""


def test_pdf_headings_one_word_a_line_and_an_unnamed_total():
    facts = extract_facts(_meta("FY2018", "2018-12-31"), _pdf(BROKEN_BALANCE_PAGE), [])
    current = _find(facts, "Total current assets", 2017)
    assert (current.value, current.statement, current.period_type) == \
        (2_376_355_000.0, "balance", "instant")
    facts = extract_facts(_meta("FY2020", "2020-12-31"), _pdf(OPERATIONS_PAGE), [])
    total = _find(facts, "Total revenues", 2019)
    assert (total.value, total.statement) == (12_899_672_000.0, "income")
    assert "5,162,082" in total.row  # the row as printed, with no label


def test_only_the_filers_own_statements_keep_their_tag():
    from core.foundation.types import Chunk, Fact
    from core.ingest.facts import primary_statements

    def chunk(i: int, section: str) -> Chunk:
        return Chunk(chunk_id=f"c-{i}", doc_id="d", index=i, text="t", section=section,
                     start=i, end=i + 1)

    chunks = [chunk(0, "Item 7. Management's Discussion"), chunk(1, "Item 8. Financial"),
              chunk(2, "Item 16. Form 10-K Summary")]
    facts = [Fact(fact_id=f"d-f{i:05d}", doc_id="d", source="table", label="Accounts payable",
                  statement="balance", value=1.0, chunk_id=f"c-{i}") for i in range(3)]
    kept = primary_statements(facts, chunks)
    assert [f.statement for f in kept] == [None, "balance", None]
    alone = [f.model_copy(update={"statement": "balance"}) for f in facts[::2]]
    assert [f.statement for f in primary_statements(alone, chunks)] == ["balance", "balance"]
    quarterly = [chunk(0, "Part I — Item 1. Financial Statements"),
                 chunk(1, "Part I — Item 2. Management's Discussion and Analysis"),
                 chunk(2, "Part II — Item 1. Legal Proceedings")]
    facts = [f.model_copy(update={"statement": "income"}) for f in facts]
    kept = primary_statements(facts, quarterly)  # an obligor group's "Statement of Income"
    assert [f.statement for f in kept] == ["income", None, None]  # in MD&A is not the 10-Q's


def _text_with_table(caption: str, table: str) -> ParsedDocument:
    """Text as a PDF parse leaves it: caption lines, then the table span alone."""
    text = f"{caption}\n\n{table}"
    start = len(caption) + 2
    return ParsedDocument(text=text, pages=[Page(number=1, start=0, end=len(text))],
                          table_spans=[(start, len(text))])


def test_a_group_heading_line_left_above_the_table_spreads_over_its_columns():
    """PDF layout often leaves "Three Months Ended  Six Months Ended" as a caption line above
    the table span: the quarter columns and the year-to-date columns are still told apart."""
    parsed = _text_with_table(
        "Condensed Consolidated Statements of Earnings\n$ in millions (unaudited)\n"
        "Three Months Ended Six Months Ended",
        "| July 29, 2023 | July 30, 2022 | July 29, 2023 | July 30, 2022\n"
        "Revenue | $9,583 | $10,329 | $19,050 | $20,976\n"
        "Operating income | 348 | 371 | 659 | 833")
    facts = extract_facts(_meta("2024-Q2", "2023-07-29", "10-Q"), parsed, [])
    got = {(f.fiscal_year, f.fiscal_period, f.months): f.value for f in facts
           if f.label == "Revenue"}
    assert got == {(2024, "Q2", 3): 9_583e6, (2023, "Q2", 3): 10_329e6,
                   (2024, "H1", 6): 19_050e6, (2023, "H1", 6): 20_976e6}


def test_columns_that_read_as_one_period_with_different_values_give_no_fact():
    """Member columns (worldwide, U.S., international) under repeated dates: a line has one
    value per period, so a row whose columns read as the same period twice with different
    values is not read as periods at all; the statement's own figure stays the only one."""
    parsed = _text_with_table(
        "Revenues by Geography\n(MILLIONS)",
        "| Worldwide July 2, 2023 | U.S. July 2, 2023 | International July 2, 2023\n"
        "Total revenues | $12,734 | $6,185 | $6,548")
    facts = extract_facts(_meta("2023-Q2", "2023-07-02", "10-Q"), parsed, [])
    assert [f for f in facts if f.label == "Total revenues"] == []


def test_a_line_item_broken_over_two_lines_keeps_its_whole_label():
    """"Income from continuing operations before provision for taxes" printed above "on
    income | 2,269 | ...", inside a table or at the start of a span (a page edge)."""
    heads = "| July 2, 2023 | July 3, 2022\n"
    broken = ("Income from continuing operations before provision/(benefit) for taxes\n"
              "on income | 2,269 | 11,447\n")
    caption = "Condensed Consolidated Statements of Income\n(MILLIONS)\nThree Months Ended"
    inside = _text_with_table(caption, heads + "Revenues | $12,734 | $27,742\n" + broken)
    edge = _text_with_table(caption, heads + "Revenues | $12,734 | $27,742")
    start = len(edge.text) + 2
    edge.text += "\n\n" + broken
    edge.table_spans.append((start, len(edge.text)))
    edge.pages[0].end = len(edge.text)
    for parsed in (inside, edge):
        facts = extract_facts(_meta("2023-Q2", "2023-07-02", "10-Q"), parsed, [])
        pretax = [f for f in facts if f.value == 2_269e6]
        assert [(f.label, f.metric) for f in pretax] == [
            ("Income from continuing operations before provision/(benefit) for taxes on "
             "income", "pretax_income")]


def _release() -> DocumentMeta:
    """An earnings release: its metadata names no form, period or period end."""
    return DocumentMeta(doc_id="abcdef0123456789", file_name="release.pdf",
                        form_type="unknown", period="unknown", period_end="")


def test_an_earnings_release_is_placed_by_its_own_year_columns():
    """No calendar from the metadata: the twelve-month columns' end is the fiscal year end,
    so the three-month columns are the fourth quarter; "($ million, ...)" is a scale."""
    parsed = _text_with_table(
        "Condensed Consolidated Statements of Income (Unaudited)\n"
        "Three Months Ended June 30, Twelve Months Ended June 30,",
        "($ million, except per share amounts) | 2022 | 2023 | 2022 | 2023\n"
        "Net sales | 3,909 | 3,673 | 14,544 | 14,694\n"
        "Operating income | 252 | 325 | 1,239 | 1,508")
    facts = extract_facts(_release(), parsed, [])
    got = {(f.fiscal_year, f.fiscal_period, f.months): f.value for f in facts
           if f.label == "Net sales"}
    assert got == {(2022, "Q4", 3): 3_909e6, (2023, "Q4", 3): 3_673e6,
                   (2022, "FY", 12): 14_544e6, (2023, "FY", 12): 14_694e6}


def test_a_retailers_release_names_its_year_as_the_text_does():
    """A year ending January 28, 2023 that the release calls "fiscal 2022" (an outlook for
    fiscal 2023 beside it) is FY2022; without such words it is named by its end year."""
    table = ("| 13 Weeks Ended January 28, 2023 | 13 Weeks Ended January 29, 2022 | "
             "52 Weeks Ended January 28, 2023 | 52 Weeks Ended January 29, 2022\n"
             "Net sales | 3,226,773 | 2,729,388 | 10,208,580 | 8,630,889")
    caption = "Consolidated Statements of Income\n(In thousands)"
    words = ("Fourth Quarter Fiscal 2022 Results. For the full year of fiscal 2022 net sales "
             "grew; for fiscal 2022 the company opened stores. Fiscal 2023 outlook.\n")
    named = extract_facts(_release(), _text_with_table(words + caption, table), [])
    plain = extract_facts(_release(), _text_with_table(caption, table), [])
    year = {f.value: (f.fiscal_year, f.fiscal_period) for f in named}
    assert year[10_208_580e3] == (2022, "FY") and year[3_226_773e3] == (2022, "Q4")
    assert {f.value: f.fiscal_year for f in plain}[10_208_580e3] == 2023


def test_a_quarterly_release_with_numeric_dates_and_12_week_quarters():
    """A release that prints one quarter ("12 Weeks Ended", dates as 3/25/2023, PDF spacing
    shifting the heading cells) and names it in its opening text: its quarter columns are
    that fiscal quarter, the prior year's beside it."""
    parsed = _text_with_table(
        "Acme Reports First Quarter 2023 Results\nCondensed Consolidated Statement of Income\n"
        "(in millions except per share amounts, unaudited)\n12 Weeks Ended",
        "|  | 3/25/2023 |  | 3/19/2022\n"
        "Net Revenue | $17,846 |  | $16,200\n"
        "Operating Profit | 2,629 |  | 5,267")
    facts = extract_facts(_release(), parsed, [])
    got = {(f.fiscal_year, f.fiscal_period, f.months): f.value for f in facts
           if f.label == "Net Revenue"}
    assert got == {(2023, "Q1", 3): 17_846e6, (2022, "Q1", 3): 16_200e6}


BALANCE_LABELLED_HEADING = """<html><body>
<p>CONSOLIDATED BALANCE SHEETS</p><p>(In millions except par value)</p>
<table>
<tr><td>December 31,</td><td>2024</td><td>2023</td></tr>
<tr><td>Cash and cash equivalents</td><td>$10,828</td><td>$9,366</td></tr>
<tr><td>Total Assets</td><td>$100,549</td><td>$97,703</td></tr>
</table>
<p>CONSOLIDATED STATEMENTS OF INCOME</p><p>(In millions except per share data)</p>
<table>
<tr><td>Year Ended December 31,</td><td>2024</td><td>2023</td></tr>
<tr><td>Net Income</td><td>$10,631</td><td>$10,714</td></tr>
<tr><td>Diluted Net Income Per Share1</td><td>$2.46</td><td>$2.47</td></tr>
</table></body></html>"""


def test_a_heading_row_whose_label_cell_names_the_date_heads_every_column():
    """"December 31, | 2024 | 2023": the label cell is the shared date, not the first
    column's heading (the first column's figures are 2024's, not missing)."""
    facts = extract_facts(_meta("FY2024", "2024-12-31"),
                          load_html(BALANCE_LABELLED_HEADING.encode()), [])
    assets = _find(facts, "Total Assets", 2024)
    assert assets.value == 100_549_000_000.0 and assets.end == "2024-12-31"
    assert _find(facts, "Total Assets", 2023).value == 97_703_000_000.0
    eps = _find(facts, "Diluted Net Income Per Share1", 2024)  # a footnote mark glued on
    assert (eps.value, eps.unit, eps.metric) == (2.46, "USD/share", "eps_diluted")
