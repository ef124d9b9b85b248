"""Item detection: TOC skipped, canonical titles, 10-Q parts, graceful degradation."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.ingest.html import load_html
from core.ingest.sections import detect_sections
from core.ingest.text import load_text

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"

TEN_K_TITLES = [
    "Cover",
    "Item 1. Business",
    "Item 1A. Risk Factors",
    "Item 1B. Unresolved Staff Comments",
    "Item 2. Properties",
    "Item 3. Legal Proceedings",
    "Item 4. Mine Safety Disclosures",
    "Item 5. Market for Registrant's Common Equity, Related Stockholder Matters and Issuer "
    "Purchases of Equity Securities",
    "Item 6. [Reserved]",
    "Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations",
    "Item 7A. Quantitative and Qualitative Disclosures About Market Risk",
    "Item 8. Financial Statements and Supplementary Data",
    "Item 9. Changes in and Disagreements with Accountants on Accounting and Financial Disclosure",
    "Item 9A. Controls and Procedures",
    "Item 9B. Other Information",
    "Item 10. Directors, Executive Officers and Corporate Governance",
    "Item 11. Executive Compensation",
    "Item 12. Security Ownership of Certain Beneficial Owners and Management and Related "
    "Stockholder Matters",
    "Item 13. Certain Relationships and Related Transactions, and Director Independence",
    "Item 14. Principal Accountant Fees and Services",
    "Item 15. Exhibits and Financial Statement Schedules",
]


@pytest.fixture(scope="module")
def ten_k():
    doc = load_html((FIXTURES / "synthetic_10k.htm").read_bytes())
    return doc.text, detect_sections(doc.text, "10-K")


def _body(text, sections, title):
    sec = next(s for s in sections if s.title == title)
    return text[sec.start : sec.end]


def test_ten_k_items_found_with_toc_skipped(ten_k):
    text, sections = ten_k
    assert [s.title for s in sections] == TEN_K_TITLES
    cover = _body(text, sections, "Cover")
    assert "Item 1A. | Risk Factors | 4" in cover  # the TOC stays in the cover
    assert text[sections[1].start :].startswith("PART I\n\nITEM 1. BUSINESS")
    # contiguous, ordered, covering the whole text
    assert sections[0].start == 0 and sections[-1].end == len(text)
    assert all(a.end == b.start for a, b in zip(sections, sections[1:], strict=False))


def test_item_1a_holds_its_passage_only(ten_k):
    text, sections = ten_k
    risk = _body(text, sections, "Item 1A. Risk Factors")
    assert "intensely competitive" in risk
    assert "Acme designs precision widgets" not in risk
    assert "UNRESOLVED STAFF COMMENTS" not in risk
    sec = next(s for s in sections if s.item == "1A")
    assert sec.part is None


def test_cross_reference_in_prose_is_not_a_heading(ten_k):
    text, sections = ten_k
    mdna = _body(text, sections, TEN_K_TITLES[9])
    assert "read together with Item 1A. Risk Factors" in mdna
    assert "Total revenue | $26,974" in mdna


def test_ten_q_parts_kept():
    doc = load_text((FIXTURES / "synthetic_10q.txt").read_bytes())
    sections = detect_sections(doc.text, "10-Q")
    assert [s.title for s in sections] == [
        "Cover",
        "Part I — Item 1. Financial Statements",
        "Part I — Item 2. Management's Discussion and Analysis of Financial Condition and "
        "Results of Operations",
        "Part I — Item 3. Quantitative and Qualitative Disclosures About Market Risk",
        "Part I — Item 4. Controls and Procedures",
        "Part II — Item 1. Legal Proceedings",
        "Part II — Item 1A. Risk Factors",
        "Part II — Item 2. Unregistered Sales of Equity Securities and Use of Proceeds",
        "Part II — Item 6. Exhibits",
    ]
    legal = next(s for s in sections if s.part == "II" and s.item == "1")
    assert doc.text[legal.start : legal.end].startswith("PART II. OTHER INFORMATION")
    risk = next(s for s in sections if s.item == "1A")
    assert "lidar sensors from our single supplier" in doc.text[risk.start : risk.end]


def test_no_items_gives_one_document_section():
    text = "Quarterly letter to shareholders.\n\nRevenue grew. Item 7 of our plan is hiring."
    assert [(s.title, s.start, s.end) for s in detect_sections(text)] == [
        ("Document", 0, len(text))
    ]


def test_old_filing_without_1a_and_combined_items():
    text = (
        "FORM 10-K\nFor the fiscal year ended June 30, 1999\n\n"
        "ITEMS 1 AND 2. BUSINESS AND PROPERTIES\n\n" + "We make lotions. " * 40 + "\n\n"
        "Item 3: Legal Proceedings\n\nNone.\n\n"
        "Item 4: Submission of Matters to a Vote of Security Holders\n\nNone.\n\n"
        "Item 7: Management's Discussion and Analysis\n\nIncorporated by reference.\n\n"
        "Item 14: Exhibits, Financial Statement Schedules and Reports on Form 8-K\n\n"
        "Item 14(a)(1): see the index.\n"
    )
    titles = [s.title for s in detect_sections(text)]
    assert titles == [
        "Cover",
        "Items 1 and 2. Business and Properties",
        "Item 3. Legal Proceedings",
        "Item 4. Submission of Matters to a Vote of Security Holders",
        "Item 7. Management's Discussion and Analysis of Financial Condition and Results of "
        "Operations",
        "Item 14. Exhibits, Financial Statement Schedules and Reports on Form 8-K",
    ]


def test_heading_glued_to_previous_sentence_in_pdf_text():
    text = (
        "Item 1.\nBusiness\n" + "We sell books online. " * 30 + "\n"
        "offices in North America.Item 3.\nLegal Proceedings\n" + "See Note 7. " * 40 + "\n"
    )
    titles = [s.title for s in detect_sections(text)]
    assert titles == ["Item 1. Business", "Item 3. Legal Proceedings"]


def test_other_forms_and_8k_item_numbers_are_not_10k_items():
    text = "FORM 8-K\n\nItem 2.02 Results of Operations\n\nText.\n\nItem 9.01 Exhibits\n\nMore."
    assert [s.title for s in detect_sections(text, "8-K")] == ["Document"]
    assert [s.title for s in detect_sections(text)] == ["Document"]
