"""Balance sheets as PDF filings print them, read into facts: bare years under a caption that
dates them (a 52/53-week year ending in early January), note references in line items, a
stock line above a total, lines between a continued table's rows, and a table's second half
in a chunk whose tag names the next statement. Fictional filers, pypdf-shaped page text."""

from __future__ import annotations

from core.foundation.types import Chunk
from core.ingest.facts import extract_facts
from core.ingest.facts.headings import read_columns
from tests.test_facts_tables import _find, _meta, _pdf

WEEK_YEAR = """\
                      HALFWAY HOLDINGS AND SUBSIDIARIES
                         CONSOLIDATED BALANCE SHEETS
                       At January 1, 2023 and January 2, 2022
                (Dollars in Millions Except Share and Per Share Amounts)

                                                             2022             2021
Cash and cash equivalents (Notes 1 and 2)                $  14,127        $  14,487
Total assets                                             $ 187,378        $ 182,018
Loans and notes payable (Note 7)                            12,771            3,766
Long-term debt (Note 7)                                     26,888           29,985
Common stock — par value $1.00 per share (authorized 4,320,000,000 shares; issued
3,119,843,000 shares)                                        3,120            3,120
Total shareholders’ equity                                  76,804           74,023
"""


def test_bare_years_take_the_caption_dates_in_order_not_by_calendar_year():
    """"2022 | 2021" under "At January 1, 2023 and January 2, 2022": fiscal 2022 ends on
    2023-01-01 (the column whose date's calendar year is 2022 is fiscal 2021)."""
    facts = extract_facts(_meta("FY2022", "2023-01-01"), _pdf(WEEK_YEAR), [])
    assets = _find(facts, "Total assets", 2022)
    assert (assets.value, assets.end, assets.metric) == (187_378e6, "2023-01-01", "total_assets")
    assert _find(facts, "Total assets", 2021).end == "2022-01-02"
    debt = _find(facts, "Long-term debt (Note 7)", 2022)
    assert (debt.metric, debt.value) == ("long_term_debt", 26_888e6)
    assert _find(facts, "Loans and notes payable (Note 7)", 2022).metric == "debt_current"
    assert _find(facts, "Cash and cash equivalents (Notes 1 and 2)", 2021).metric == "cash"
    equity = _find(facts, "Total shareholders’ equity", 2022)
    assert (equity.unit, equity.metric, equity.value) == ("USD", "total_equity", 76_804e6)


def test_caption_dates_apply_only_one_per_year_column_in_the_same_order():
    shared = "At January 1, 2023 and January 2, 2022"
    assert [c.end.isoformat() for c in read_columns(["2022", "2021"], shared)] == \
        ["2023-01-01", "2022-01-02"]
    # a retailer's year named for the calendar year it ends in: the same dates by position
    shared = "January 28, 2023 and January 29, 2022"
    assert [c.end.isoformat() for c in read_columns(["2023", "2022"], shared)] == \
        ["2023-01-28", "2022-01-29"]
    # three dates over two year columns: no pairing, each column read alone
    shared = "December 31, 2022, December 31, 2021 and December 31, 2020"
    assert [c.end.isoformat() for c in read_columns(["2022", "2021"], shared)] == \
        ["2022-12-31", "2021-12-31"]


EQUITY_CONTINUED = """\
                      ORBIT TOOLING CO. AND SUBSIDIARIES
                         Consolidated Balance Sheet
                               At December 31
(Millions)                                                    2022             2021
Total liabilities                                          31,685           31,955
Equity
Orbit Tooling shareholders’ equity:
Common stock par value, $.01 par value; 944,033,056 shares issued     9         9
Shares outstanding - December 31, 2022: 549,245,105
Shares outstanding - December 31, 2021: 571,845,478
Additional paid-in capital                                  6,691            6,429
Retained earnings                                          47,950           45,821
Total Orbit Tooling shareholders’ equity                   14,722           15,046
Total equity                                               14,770           15,117
"""


def test_dated_lines_between_a_tables_rows_are_no_period_headings():
    """Share counts "at December 31, 2022" printed between the equity rows do not turn the
    rows below them into members of a period group: the equity lines keep their columns."""
    facts = extract_facts(_meta("FY2022", "2022-12-31"), _pdf(EQUITY_CONTINUED), [])
    equity = _find(facts, "Total equity", 2022)
    assert (equity.value, equity.dims, equity.metric) == (14_770e6, "", "total_equity")
    assert _find(facts, "Retained earnings", 2021).value == 45_821e6


LIABILITIES_HALF = """\
                        SKYLINE DEFENSE CORPORATION
                        Consolidated Balance Sheets
                              (in millions)
                               December 31,
                                                            2022           2021
Cash and cash equivalents                               $  2,547       $  3,604
Total assets                                            $ 52,880       $ 50,873
"""
LIABILITIES_NEXT = """\
Liabilities and equity
Current liabilities
Accounts payable                                        $  2,117       $    780
Long-term debt, net                                       15,429         11,670
Total liabilities                                         43,614         39,914
Total stockholders’ equity                                 9,266         10,959
The accompanying notes are an integral part of these consolidated financial statements.
                        Skyline Defense Corporation
                    Consolidated Statements of Cash Flows
"""


def test_a_balance_sheets_second_half_stays_on_the_balance_sheet():
    """The liabilities printed on the next page share a chunk with the cash-flow title below
    them; the chunk's statement tag is a guess that the continued table overrides."""
    parsed = _pdf(LIABILITIES_HALF, LIABILITIES_NEXT)
    second = parsed.text.index("Liabilities and equity")
    chunks = [Chunk(chunk_id="abcdef0123456789-00000", doc_id="abcdef0123456789", index=0,
                    text=parsed.text[:second], section="Item 8", start=0, end=second,
                    statement="balance"),
              Chunk(chunk_id="abcdef0123456789-00001", doc_id="abcdef0123456789", index=1,
                    text=parsed.text[second:], section="Item 8", start=second,
                    end=len(parsed.text),
                    statement="cash_flow")]
    facts = extract_facts(_meta("FY2022", "2022-12-31"), parsed, chunks)
    debt = _find(facts, "Long-term debt, net", 2022)
    assert (debt.statement, debt.metric, debt.chunk_id) == \
        ("balance", "long_term_debt", "abcdef0123456789-00001")
    assert _find(facts, "Total liabilities", 2021).metric == "total_liabilities"
