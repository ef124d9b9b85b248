"""Company, form, period, ticker and former names from covers of many shapes (issue 9, fault 6).

Every cover below is a synthetic text excerpt written in the shape a real filing's cover
takes after text extraction (names as printed by those filers; all other text invented).
"""

from __future__ import annotations

from datetime import date

from core.ingest.meta import edgar_header, fiscal_year, read_facts

FILER = "Indicate by check mark whether the registrant (1) has filed all reports required."

THREE_M = f"""UNITED STATES
SECURITIES AND EXCHANGE COMMISSION
Washington, D.C. 20549
FORM 10-K
ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the Fiscal Year Ended December 31, 2018
Commission file number 1-3285
3M COMPANY
State of Incorporation: Delaware I.R.S. Employer Identification No. 41-0417775
Principal executive offices: 3M Center, St. Paul, Minnesota 55144
Securities registered pursuant to Section 12(b) of the Act:
Title of each class Trading Symbol(s) Name of each exchange on which registered
Common Stock, Par Value $.01 Per Share MMM New York Stock Exchange, Inc.
Common Stock, Par Value $.01 Per Share MMM Chicago Stock Exchange, Inc.
1.500% Notes due 2026 MMM26 New York Stock Exchange, Inc.
{FILER}"""

MICROSOFT_10Q = f"""UNITED STATES
SECURITIES AND EXCHANGE COMMISSION
FORM 10-Q
☒ QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the Quarterly Period Ended September 30, 2022
Commission File Number 001-37845
MICROSOFT CORPORATION
WASHINGTON | 91-1144442
(STATE OF INCORPORATION) (I.R.S. ID)
Title of each class Trading Symbol Name of exchange on which registered
Common stock, $0.00000625 par value per share MSFT NASDAQ
3.125% Notes due 2028 MSFT NASDAQ
{FILER}"""

COCA_COLA = f"""FORM 10-K
ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2021
Commission File No. 001-02217
(Exact name of Registrant as specified in its Charter)
Delaware 58-0628465
Title of each class Trading Symbol(s) Name of each exchange on which registered
Common Stock, $0.25 Par Value KO New York Stock Exchange
{FILER}

Item 1. Business
The Company makes beverages.

SIGNATURES
Pursuant to the requirements of Section 13 or 15(d) of the Securities Exchange Act of 1934,
the Registrant has duly caused this report to be signed on its behalf.
THE COCA-COLA COMPANY
(Registrant)
By: /s/ JAMES QUINCEY"""

BLOCK = f"""FORM 10-K
ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the fiscal year ended December 31, 2021
Commission File Number: 001-37622
(Exact name of registrant as specified in its charter)
BLOCK, INC.
(formerly Square, Inc.)
Delaware 80-0429876
Title of each class Trading Symbol(s) Name of each exchange on which registered
Class A Common Stock, $0.0000001 par value per share SQ The New York Stock Exchange
{FILER}"""


def _mgm(name_lines: str) -> str:
    return f"""FORM 10-Q
QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the quarterly period ended June 30, 2023
Commission File Number: 001-10362
{name_lines}
(Exact name of registrant as specified in its charter)
Delaware 88-0215232
Title of each class Trading Symbol(s) Name of each exchange on which registered
Common Stock (Par Value $0.01) MGM New York Stock Exchange (NYSE)
{FILER}"""


INTEL_SPLIT = f"""UNITED STATES SECURITIES AND EXCHANGE COMMISSION
FORM | 10-Q
For the quarterly period ended | October 1, 2022
Commission File Number: | 000-06217
INTEL CORPORATION
(Exact name of registrant as specified in its charter)
N/A
(Former name, former address and former fiscal year, if changed since last report)
Title of each class Trading symbol(s) Name of each exchange on which registered
Common stock, $0.001 par value | INTC | Nasdaq Global Select Market
{FILER}"""


def _facts(text: str):
    return read_facts({}, text)


def test_name_after_the_file_number_when_no_exact_name_line():
    facts = _facts(THREE_M)
    assert (facts.company, facts.form, facts.period) == ("3M COMPANY", "10-K", "FY2018")
    assert facts.ticker == "MMM" and facts.period_end == "2018-12-31"
    facts = _facts(MICROSOFT_10Q)
    assert (facts.company, facts.form, facts.period) == ("MICROSOFT CORPORATION", "10-Q",
                                                         "2022-09-30")
    assert facts.ticker == "MSFT"


def test_name_printed_as_an_image_comes_from_the_signatures():
    facts = _facts(COCA_COLA)
    assert (facts.company, facts.period, facts.ticker) == ("THE COCA-COLA COMPANY", "FY2021",
                                                           "KO")


def test_label_above_the_name_and_a_former_name():
    facts = _facts(BLOCK)
    assert facts.company == "BLOCK, INC."
    assert facts.former_names == ["Square, Inc."] and facts.ticker == "SQ"


def test_drop_capital_initials_are_joined_back():
    for lines in ("MGM RESORTS I\nNTERNATIONAL", "M GM R ESORTS I NTERNATIONAL"):
        facts = _facts(_mgm(lines))
        assert facts.company == "MGM RESORTS INTERNATIONAL", lines
        assert facts.ticker == "MGM" and facts.period == "2023-06-30"


def test_period_split_by_a_table_cell_and_na_former_name():
    facts = _facts(INTEL_SPLIT)
    assert (facts.company, facts.form, facts.period) == ("INTEL CORPORATION", "10-Q",
                                                         "2022-10-01")
    assert facts.ticker == "INTC" and facts.former_names == []


def test_a_year_ending_in_early_january_is_named_for_the_year_before():
    jnj = ("FORM 10-K\nFor the fiscal year ended January 1, 2023\nCommission file number 1-3215"
           "\nJOHNSON & JOHNSON\n(Exact name of registrant as specified in its charter)")
    assert _facts(jnj).period == "FY2022" and _facts(jnj).period_end == "2023-01-01"
    assert fiscal_year(date(2023, 1, 29), "Fiscal Year 2023 was a record. fiscal 2023") == 2023
    assert fiscal_year(date(2024, 2, 3), "fiscal 2023 results; in fiscal 2023 we...") == 2023
    assert fiscal_year(date(2024, 2, 3), "") == 2024
    assert fiscal_year(date(2023, 9, 30), "") == 2023


def test_edgar_header_and_dei_facts_win():
    data = (b"<SEC-DOCUMENT>0000066740-19-000010.txt\n<SEC-HEADER>\n"
            b"CONFORMED SUBMISSION TYPE:\t10-K\nCONFORMED PERIOD OF REPORT:\t20181231\n"
            b"FILER:\n\tCOMPANY DATA:\n\t\tCOMPANY CONFORMED NAME:\t\t\t3M CO\n"
            b"\tFORMER COMPANY:\n\t\tFORMER CONFORMED NAME:\tMINNESOTA MINING & MANUFACTURING CO\n"
            b"</SEC-HEADER>\n<DOCUMENT>")
    header = edgar_header(data)
    facts = read_facts({}, "Some text without a cover.", header)
    assert (facts.company, facts.form, facts.period, facts.period_end) == (
        "3M CO", "10-K", "FY2018", "2018-12-31")
    assert facts.former_names == ["MINNESOTA MINING & MANUFACTURING CO"]
    dei = {"dei:EntityRegistrantName": "Acme Corp", "dei:DocumentType": "10-Q",
           "dei:DocumentFiscalYearFocus": "2024", "dei:DocumentFiscalPeriodFocus": "Q1",
           "dei:DocumentPeriodEndDate": "March 30, 2024", "dei:TradingSymbol": "ACME, ACMW"}
    facts = read_facts(dei, THREE_M, header)
    assert (facts.company, facts.form, facts.period, facts.period_end, facts.ticker) == (
        "Acme Corp", "10-Q", "2024-Q1", "2024-03-30", "ACME, ACMW")
    assert edgar_header(b"<html><body>FORM 10-K</body></html>") == {}


def test_prepare_fills_the_meta_fields(settings):
    from core.ingest.pipeline import prepare
    from tests.test_ingest_pdf import make_pdf

    body = "Item 1. Financial Statements\n" + "Revenue grew on cloud demand. " * 12
    data = make_pdf([MICROSOFT_10Q.replace("☒ ", ""), body])
    meta = prepare(data, "msft-10q.pdf", settings).meta
    assert (meta.company, meta.form_type, meta.period, meta.period_end, meta.ticker) == (
        "MICROSOFT CORPORATION", "10-Q", "2022-09-30", "2022-09-30", "MSFT")
    assert meta.former_names == [] and meta.corrected == []
