"""Statements printed after Item 15/16 are filed under Item 8 (issue 9, fault 3).

Synthetic 10-K shaped like NVIDIA's: Item 8 only points to the statements, which follow
Item 15's list of them (with page numbers), then the exhibit index, Item 16 and signatures.
"""

from __future__ import annotations

from collections import Counter

import pytest

from core.foundation.types import Section
from core.ingest.pipeline import prepare
from core.ingest.statements import relocate_statements

PROSE = "<p>" + "Widget demand from industrial buyers held up through the year. " * 8 + "</p>"


def _table(title: str, rows: list[tuple[str, str, str]]) -> str:
    body = "".join(f"<tr><td>{a}</td><td>$</td><td>{b}</td><td>$</td><td>{c}</td></tr>"
                   for a, b, c in rows)
    return (f"<p>{title}</p><p>(In millions)</p><table><tr><td></td><td colspan='2'>2023"
            f"</td><td colspan='2'>2022</td></tr>{body}</table>")


BALANCE = _table("Consolidated Balance Sheets", [
    ("Cash", "1,100", "900"), ("Receivables", "2,200", "1,800"), ("Inventories", "3,300", "2,700"),
    ("Total assets", "6,600", "5,400"), ("Total liabilities", "2,000", "1,900"),
])
INCOME = _table("Consolidated Statements of Income", [
    ("Revenue", "9,100", "8,800"), ("Cost of revenue", "5,200", "5,000"),
    ("Gross profit", "3,900", "3,800"), ("Operating income", "1,700", "1,600"),
    ("Net income", "1,234", "1,111"),
])
FILING = f"""<html><body>
<p>UNITED STATES SECURITIES AND EXCHANGE COMMISSION</p><p>FORM 10-K</p>
<p>Item 1. Business</p>{PROSE}
<p>Item 7. Management's Discussion and Analysis</p>{PROSE}
<p>Item 8. Financial Statements and Supplementary Data</p>
<p>The information required by this Item is set forth in our Consolidated Financial Statements
and Notes thereto included in this Annual Report on Form 10-K.</p>
<p>Item 9. Changes in and Disagreements with Accountants</p><p>None.</p>
<p>Item 15. Exhibits and Financial Statement Schedules</p>
<table><tr><td>Report of Independent Registered Public Accounting Firm</td><td>52</td></tr>
<tr><td>Consolidated Balance Sheets</td><td>54</td></tr>
<tr><td>Consolidated Statements of Income</td><td>55</td></tr></table>
<p>Report of Independent Registered Public Accounting Firm</p>
<p>We have audited the consolidated balance sheets of Acme Widgets as of year end.</p>
{BALANCE}{INCOME}
<p>Notes to the Consolidated Financial Statements</p>
<p>Note 1 - Revenue recognition: revenue is recognised when widgets ship.</p>{PROSE}
<p>EXHIBIT INDEX</p><table><tr><td>3.1</td><td>Restated Certificate of Incorporation</td></tr>
<tr><td>31.1</td><td>Certification of the Chief Executive Officer</td></tr></table>
<p>Item 16. Form 10-K Summary</p><p>Not applicable.</p>
<p>SIGNATURES</p><p>Pursuant to the requirements of the Exchange Act, Acme has signed.</p>
</body></html>"""


@pytest.fixture(scope="module")
def chunks(tmp_path_factory):
    from core.foundation.config import Settings

    settings = Settings(data_dir=tmp_path_factory.mktemp("store"), _env_file=None)
    return prepare(FILING.encode(), "acme-10k.htm", settings).chunks


def _section(chunks, phrase: str) -> str:
    return next(c.section for c in chunks if phrase in c.text)


def test_statements_after_item_15_are_item_8(chunks):
    item8 = "Item 8. Financial Statements and Supplementary Data"
    assert _section(chunks, "We have audited") == item8
    assert _section(chunks, "Total assets | $6,600") == item8
    assert _section(chunks, "Net income | $1,234") == item8
    assert _section(chunks, "revenue is recognised when widgets ship") == item8


def test_the_rest_keeps_its_items(chunks):
    assert _section(chunks, "The information required by this Item") == (
        "Item 8. Financial Statements and Supplementary Data")
    assert _section(chunks, "Certification of the Chief Executive Officer").startswith("Item 15.")
    assert _section(chunks, "Not applicable").startswith("Item 16.")
    item15 = [c.text for c in chunks if c.section.startswith("Item 15.")]
    assert item15 and not any("Total assets |" in t or "We have audited" in t for t in item15)
    assert list(Counter(c.section for c in chunks)) == [  # one Item 8 block, in reading order
        "Cover", "Item 1. Business", "Item 7. Management's Discussion and Analysis of Financial "
        "Condition and Results of Operations", "Item 8. Financial Statements and Supplementary "
        "Data", "Item 9. Changes in and Disagreements with Accountants on Accounting and "
        "Financial Disclosure", "Item 15. Exhibits and Financial Statement Schedules",
        "Item 16. Form 10-K Summary"]


def test_statements_already_in_item_8_stay_put():
    text = "Item 8. Financial Statements\nConsolidated Balance Sheets\n" + "\n".join(
        f"Line {i} | 1,{i:03d} | 2,{i:03d}" for i in range(6)) + "\nItem 9. Other\nEnd."
    table_start = text.index("Line 0")
    spans = [(table_start, text.index("\nItem 9"))]
    sections = [
        Section(title="Item 8. Financial Statements", item="8", start=0, end=spans[0][1] + 1),
        Section(title="Item 9. Other", item="9", start=spans[0][1] + 1, end=len(text)),
    ]
    assert relocate_statements(text, sections, spans) == sections
