"""The bundled fictional 10-K is shaped like an EDGAR iXBRL filing and adds up."""

from __future__ import annotations

import copy
import re
import warnings
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "northwind-10k-fy2024.htm"


@pytest.fixture(scope="module")
def soup() -> BeautifulSoup:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        return BeautifulSoup(SAMPLE.read_bytes(), "lxml")


def test_hidden_dei_facts(soup):
    header = soup.find("ix:header")
    facts = {t["name"]: t.get_text(strip=True) for t in header.find_all("ix:nonnumeric")}
    assert facts["dei:EntityRegistrantName"] == "Northwind Semiconductor, Inc."
    assert facts["dei:DocumentType"] == "10-K"
    assert facts["dei:DocumentFiscalYearFocus"] == "2024"
    assert facts["dei:DocumentFiscalPeriodFocus"] == "FY"
    assert facts["dei:DocumentPeriodEndDate"] == "2024-12-28"
    assert header.find_parent("div")["style"].replace(" ", "") == "display:none"


def test_toc_repeats_item_titles_before_the_items(soup):
    soup = copy.copy(soup)  # the module's soup is shared: other tests read the header
    for tag in soup.find_all("ix:header"):
        tag.decompose()
    text = soup.get_text(" ", strip=True)
    assert 15_000 <= len(text) <= 25_000
    body_start = text.index("Item 1. Business Overview")
    assert text.index("TABLE OF CONTENTS") < body_start
    for title in ("Item 1A. Risk Factors", "Item 7. Management", "Item 8. Financial Statements"):
        hits = [m.start() for m in re.finditer(re.escape(title), text)]
        assert hits[0] < body_start < hits[-1], title  # once in the TOC, once as a heading
    risks = text[text.index("Item 1A. Risk Factors", text.index("Overview")):]
    for phrase in ("larger GPU and accelerator vendors", "designing their own accelerators",
                   "single foundry", "Export controls"):
        assert phrase in risks


def _cells(soup, first_label: str) -> dict[str, tuple[float, float]]:
    table = next(t for t in soup.find_all("table") if first_label in t.get_text())
    rows = {}
    for tr in table.find_all("tr"):
        cells = [td.get_text(" ", strip=True) for td in tr.find_all("td")]
        nums = [c for c in cells[1:] if re.search(r"\d", c)]
        if len(nums) == 2:
            def val(c: str) -> float:
                neg = "(" in c
                v = float(re.sub(r"[^\d.]", "", c))
                return -v if neg else v
            rows[cells[0]] = (val(nums[0]), val(nums[1]))
    return rows


def test_income_statement_and_balance_sheet_add_up(soup):
    inc = _cells(soup, "Cost of revenue")
    for year in (0, 1):
        gross = inc["Revenue"][year] - inc["Cost of revenue"][year]
        assert gross == pytest.approx(inc["Gross profit"][year])
        op = gross - inc["Research and development"][year] - inc[
            "Selling, general and administrative"][year]
        assert op == pytest.approx(inc["Operating income"][year])
        pretax = op + inc["Interest and other income, net"][year]
        assert pretax == pytest.approx(inc["Income before income taxes"][year])
        net = pretax + inc["Provision for income taxes"][year]
        assert net == pytest.approx(inc["Net income"][year])
    bal = _cells(soup, "Total assets")
    for year in (0, 1):
        assert bal["Total assets"][year] == pytest.approx(
            bal["Total liabilities"][year] + bal["Total stockholders’ equity"][year])


def test_ingest_pipeline_reads_it(settings):
    from core.ingest.pipeline import prepare

    prepared = prepare(SAMPLE.read_bytes(), SAMPLE.name, settings)
    meta = prepared.meta
    assert meta.company == "Northwind Semiconductor, Inc." and meta.form_type == "10-K"
    assert any(s.startswith("Item 1A") for s in meta.sections)
    assert 20 <= meta.n_chunks <= 80
    risk_text = " ".join(c.text for c in prepared.chunks if c.section.startswith("Item 1A"))
    assert "intense competition" in risk_text.lower()
    assert not any("dei:" in c.text or "0009990001" in c.text for c in prepared.chunks)
    assert any(c.kind == "table" and "2,184.6" in c.text for c in prepared.chunks)
