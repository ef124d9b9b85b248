"""Shared pieces of the hostile suite: settings for the fake EDGAR, a scriptable EDGAR, small
filings, and one-line checks for the messages a user reads."""

from __future__ import annotations

import copy
import re
from pathlib import Path

from core.foundation.config import Settings
from testkit.fakes.edgar_server import FakeEdgarServer
from testkit.fakes.http_base import Response
from testkit.filings import edgar_filings

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample" / "northwind-10k-fy2024.htm"
AGENT = "Jane Analyst jane@example.org"


def edgar_settings(tmp_path: Path, url: str, **kw) -> Settings:
    return Settings(data_dir=tmp_path / "store", cache_enabled=False, edgar_www_url=url,
                    edgar_data_url=url, allowed_fetch_hosts=["127.0.0.1"],
                    allow_private_fetch=True, sec_user_agent=AGENT, _env_file=None, **kw)


def edgar_env(url: str, data_dir: Path) -> dict[str, str]:
    return {"DTR_EDGAR_WWW_URL": url, "DTR_EDGAR_DATA_URL": url,
            "DTR_ALLOWED_FETCH_HOSTS": "127.0.0.1", "DTR_ALLOW_PRIVATE_FETCH": "true",
            "DTR_SEC_USER_AGENT": AGENT, "DTR_DATA_DIR": str(data_dir),
            "DTR_CACHE_ENABLED": "false"}


class ScriptedEdgar(FakeEdgarServer):
    """The fake EDGAR of ``edgar_filings()`` whose replies for some paths are scripted:
    ``override[path] = Response(...)`` answers that path instead."""

    def __init__(self, filings=None):
        base = FakeEdgarServer.from_filings(filings or edgar_filings())
        self.override: dict[str, Response] = {}
        super().__init__(copy.deepcopy(base.tickers), copy.deepcopy(base.submissions),
                         dict(base.documents))
        base.close()

    def handle(self, method, path, body):
        if path in self.override:
            self.arrivals.append(0.0)
            return self.override[path]
        return super().handle(method, path, body)


def one_line(text: str) -> str:
    """``text`` when it is one line a user can read (not a traceback), else fails."""
    assert text and "\n" not in text.strip(), text
    assert "Traceback" not in text, text
    assert not re.match(r"^\s*\w*(Error|Exception)\b", text), text  # a bare exception
    return text


HALFWAY_10K = """<html><body><p>UNITED STATES SECURITIES AND EXCHANGE COMMISSION</p>
<p>Washington, D.C. 20549</p><p>FORM 10-K</p>
<p>ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934</p>
<p>For the fiscal year ended December 31, 2024</p><p>HALFWAY WIDGETS INC.</p>
<p>(Exact name of registrant as specified in its charter)</p>
<h2>Item 7. Management's Discussion and Analysis</h2><p>Revenue grew on demand for widgets
across every region we serve, and margins held steady through the year despite higher
costs.</p><h2>Item 8. Financial Statements and Supplementary Data</h2>
<p>CONSOLIDATED STATEMENTS OF OPERATIONS</p><p>(in millions, except per share data)</p>
<table><tr><td></td><td>Year Ended December 31, 2024</td><td>Year Ended December 31, 2023</td></tr>
<tr><td>Revenue</td><td>$ 412.5</td><td>$ 380.5</td></tr>
<tr><td>Cost of revenue</td><td>200.0</td><td>190.0</td></tr>
<tr><td>Gross profit</td><td>212.5</td><td>190.5</td></tr>
<tr><td>Net income</td><td>$ 40.5</td><td>$ 30.5</td></tr></table>
</body></html>"""
"""A table-only 10-K (no iXBRL) whose figures end in a half: '$ 412.5' in millions."""
