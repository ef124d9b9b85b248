"""Small EDGAR-style filings written for tests: inline XBRL with dei facts (or a plain cover),
a 10-K's or 10-Q's items, for ingest, scope and EDGAR-fetch tests. Fictional companies.

``two_company_corpus()`` is two filers with a 10-K and a 10-Q each; the 10-Qs print their
name differently from the 10-Ks and only one carries a CIK, as real filings do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from html import escape


@dataclass
class Filing:
    """One filing: who, what, when, and its items as ``(heading, paragraph)`` rows."""

    file_name: str
    company: str
    form: str
    period_end: str  # ISO date
    fiscal_year: int
    fiscal_period: str  # "FY", "Q1" ...
    rows: list[tuple[str, str]]
    cik: str = ""  # "" : no dei facts at all (a plain HTML cover)
    ticker: str = ""
    accession: str = ""
    filed: str = ""
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def period_end_text(self) -> str:
        """"April 28, 2024", as covers print it."""
        end = date.fromisoformat(self.period_end)
        return f"{end:%B} {end.day}, {end.year}"

    def html(self) -> bytes:
        dei = ""
        if self.cik:
            facts = {"dei:EntityRegistrantName": self.company,
                     "dei:EntityCentralIndexKey": self.cik,
                     "dei:DocumentType": self.form,
                     "dei:DocumentFiscalYearFocus": str(self.fiscal_year),
                     "dei:DocumentFiscalPeriodFocus": self.fiscal_period,
                     "dei:DocumentPeriodEndDate": self.period_end,
                     "dei:TradingSymbol": self.ticker, **self.extra}
            dei = "".join(f'<ix:nonNumeric name="{k}" contextRef="c0">{escape(v)}'
                          "</ix:nonNumeric>" for k, v in facts.items() if v)
            dei = f'<div style="display:none"><ix:header><ix:hidden>{dei}</ix:hidden>' \
                  "</ix:header></div>"
        kind = "ANNUAL" if self.form.startswith("10-K") else "QUARTERLY"
        period = "fiscal year" if kind == "ANNUAL" else "quarterly period"
        body = "".join(f"<h2>{escape(h)}</h2><p>{escape(t)}</p>" for h, t in self.rows)
        page = (
            '<html xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"><body>'
            f"{dei}<p>UNITED STATES SECURITIES AND EXCHANGE COMMISSION</p>"
            f"<p>Washington, D.C. 20549</p><p>FORM {escape(self.form)}</p>"
            f"<p>{kind} REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE "
            f"ACT OF 1934</p><p>For the {period} ended {self.period_end_text}</p>"
            f"<p>{escape(self.company)}</p>"
            "<p>(Exact name of registrant as specified in its charter)</p>"
            f"{body}</body></html>"
        )
        return page.encode()


def _rows_10k(name: str, theme: str) -> list[tuple[str, str]]:
    return [
        ("Item 1. Business", f"{name} designs {theme} for industrial customers worldwide."),
        ("Item 1A. Risk Factors", f"Competition in {theme} is intense; larger rivals could "
         f"take market share from {name} and reduce our revenue in the annual period."),
        ("Item 7. Management's Discussion and Analysis", f"Annual revenue of {name} grew as "
         f"demand for {theme} recovered across the fiscal year."),
    ]


def _rows_10q(name: str, theme: str) -> list[tuple[str, str]]:
    return [
        ("Part I - Item 2. Management's Discussion and Analysis", f"In the first quarter "
         f"revenue of {name} fell as customers delayed orders for {theme}."),
        ("Part II - Item 1A. Risk Factors", f"Competition in {theme} intensified this quarter: "
         f"a new low-cost entrant cut prices and {name} could lose share and revenue."),
    ]


def two_company_corpus() -> list[Filing]:
    """Northwind (fiscal year ends in January) and Southgate (calendar year): 10-K + 10-Q."""
    return [
        Filing("nwi-20240128.htm", "NORTHWIND INSTRUMENTS INC", "10-K", "2024-01-28", 2024,
               "FY", _rows_10k("Northwind", "precision sensors"), cik="0000111111",
               ticker="NWI", accession="0000111111-24-000010", filed="2024-03-15"),
        Filing("nwi-20240428.htm", "Northwind Instruments, Inc.", "10-Q", "2024-04-28", 2025,
               "Q1", _rows_10q("Northwind", "precision sensors"),
               accession="0000111111-24-000031", filed="2024-05-30"),
        Filing("sgl-20231231.htm", "SOUTHGATE LOGISTICS CORP", "10-K", "2023-12-31", 2023,
               "FY", _rows_10k("Southgate", "freight software"), cik="0000222222",
               ticker="SGL", accession="0000222222-24-000004", filed="2024-02-20"),
        Filing("sgl-20240331.htm", "SOUTHGATE LOGISTICS CORP", "10-Q", "2024-03-31", 2024,
               "Q1", _rows_10q("Southgate", "freight software"), cik="0000222222",
               ticker="SGL", accession="0000222222-24-000019", filed="2024-05-02"),
    ]


def edgar_filings() -> list[Filing]:
    """``two_company_corpus`` plus Northwind's 10-K for fiscal 2023, as EDGAR lists them."""
    earlier = Filing("nwi-20230129.htm", "NORTHWIND INSTRUMENTS INC", "10-K", "2023-01-29",
                     2023, "FY", _rows_10k("Northwind", "precision sensors"), cik="0000111111",
                     ticker="NWI", accession="0000111111-23-000008", filed="2023-03-16")
    return [*two_company_corpus(), earlier]
