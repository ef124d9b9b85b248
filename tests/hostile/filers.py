"""Small fictional filers for the analysis cases of the hostile suite: a 10-K each, its cover
stating the company, CIK and ticker in dei facts (as EDGAR iXBRL does), and its income
statement as a plain table in millions (read as table facts). Built per company and CIK,
so two filers may share a name and differ only in their CIK."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from html import escape


@dataclass
class Filer:
    """One filer's 10-K: who it is, when its fiscal year ends, its income statement."""

    company: str
    cik: str
    ticker: str = ""
    year: int = 2024
    end: str = "December 31"
    lines: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Line item -> (this year, the year before), in millions."""

    @property
    def period_end(self) -> str:
        """The fiscal year's last day, ISO: '2024-06-30'."""
        return datetime.strptime(f"{self.end} {self.year}", "%B %d %Y").date().isoformat()

    @property
    def file_name(self) -> str:
        return f"{self.cik}-10k-{self.year}.htm"

    def html(self) -> bytes:
        dei = {"dei:EntityRegistrantName": self.company, "dei:EntityCentralIndexKey": self.cik,
               "dei:DocumentType": "10-K", "dei:DocumentFiscalYearFocus": str(self.year),
               "dei:DocumentFiscalPeriodFocus": "FY", "dei:TradingSymbol": self.ticker,
               "dei:DocumentPeriodEndDate": self.period_end}
        hidden = "".join(f'<ix:nonNumeric name="{k}" contextRef="c0">{escape(v)}'
                         "</ix:nonNumeric>" for k, v in dei.items() if v)
        rows = "".join(f"<tr><td>{escape(label)}</td><td>$ {a:,.1f}</td><td>$ {b:,.1f}</td>"
                       "</tr>" for label, (a, b) in self.lines.items())
        ended = f"{self.end}, {self.year}"
        return (
            '<html xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"><body>'
            f'<div style="display:none"><ix:header><ix:hidden>{hidden}</ix:hidden>'
            "</ix:header></div><p>UNITED STATES SECURITIES AND EXCHANGE COMMISSION</p>"
            "<p>Washington, D.C. 20549</p><p>FORM 10-K</p><p>ANNUAL REPORT PURSUANT TO "
            "SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934</p>"
            f"<p>For the fiscal year ended {ended}</p><p>{escape(self.company)}</p>"
            "<p>(Exact name of registrant as specified in its charter)</p>"
            "<h2>Item 7. Management's Discussion and Analysis</h2><p>Revenue grew on demand "
            "across every region we serve.</p>"
            "<h2>Item 8. Financial Statements and Supplementary Data</h2>"
            "<p>CONSOLIDATED STATEMENTS OF OPERATIONS</p><p>(in millions)</p><table><tr>"
            f"<td></td><td>Year Ended {ended}</td><td>Year Ended {self.end}, "
            f"{self.year - 1}</td></tr>{rows}</table></body></html>").encode()


def income(revenue: float, operating: float, net: float) -> dict[str, tuple[float, float]]:
    """An income statement: this year's figures and, the year before, nine tenths of them."""
    return {"Revenue": (revenue, revenue * 0.9),
            "Operating income": (operating, operating * 0.9),
            "Net income": (net, net * 0.9)}


def ingest(tmp_path, filers: list[Filer]):
    """A corpus (hash embedder) holding ``filers``' 10-Ks: ``(settings, corpus)``."""
    from core.app.corpus import Corpus
    from core.foundation.config import Settings
    from testkit.fakes.embedder import HashEmbedder

    settings = Settings(data_dir=tmp_path / "store", cache_enabled=False, _env_file=None)
    corpus = Corpus(settings, embedder=HashEmbedder())
    for f in filers:
        corpus.ingest_bytes(f.html(), f.file_name)
    return settings, corpus
