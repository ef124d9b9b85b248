"""Sections from a cross-reference index (issue 9, fault 1).

Synthetic 10-Q shaped like Intel's: the report is ordered by its own headings and prints
its Items only in a "Form 10-Q Cross-Reference Index" at the end, which lists printed pages
("Item 1. | Financial Statements | Pages 2 - 3"); every page prints "<section> | <page>".
"""

from __future__ import annotations

from collections import Counter

import pytest

from core.ingest.pipeline import prepare
from core.ingest.xref import _expand, find_index
from tests.test_ingest_pdf import make_pdf

PROSE = "Demand from data center customers stayed soft while inventory corrections continued. "
BODIES = {
    "A Quarter in Review": "A Quarter in Review\nRevenue fell 36% as client demand weakened. "
    + PROSE * 3,
    "Financial Statements": "Consolidated Condensed Statements of Income\n"
    "Three Months Ended\tApr 1, 2023\tApr 2, 2022\nNet revenue\t11,715\t18,353\n"
    "Net income (loss)\t(2,758)\t8,113\n" + "Notes to Financial Statements\n" + PROSE * 2,
    "Notes": "Note 9: Borrowings\nWe issued senior notes in February. " + PROSE * 2
    + "\n\nLegal Proceedings\nAcme is a defendant in several patent suits in Delaware. "
    + PROSE,
    "MD&A": "Segment Trends and Results\nClient computing revenue declined 38%. " + PROSE * 3,
    "Other Key Information": "Other Key Information\n\nRisk Factors\nThe risks in our 2022 "
    "Form 10-K could affect our business.\n\nControls and Procedures\nOur CEO concluded "
    "that our disclosure controls are effective.\n\nIssuer Purchases of Equity Securities\n"
    "No shares were repurchased during the quarter.",
}
INDEX = (
    "Form 10-Q Cross-Reference Index\nItem Number\tItem\nPart I - Financial Information\n"
    "Item 1.\tFinancial Statements\tPages 2 - 3\n"
    "Item 2. Management's Discussion and Analysis\tPages 1, 4\n"
    "Item 4.\tControls and Procedures\tPage 5\n"
    "Part II - Other Information\n"
    "Item 1.\tLegal Proceedings\tPage 3\n"
    "Item 1A.\tRisk Factors\tPage 5\n"
    "Item 2. Unregistered Sales of Equity Securities and Use of Proceeds\tPage 5\n"
    "Item 3. Defaults Upon Senior Securities\tNot applicable\n"
    "Item 6.\tExhibits\tPage 6"
)
COVER = (
    "UNITED STATES SECURITIES AND EXCHANGE COMMISSION\nFORM 10-Q\n"
    "For the quarterly period ended April 1, 2023\nACME CHIPS CORPORATION\n"
    "(Exact name of registrant as specified in its charter)"
)


def _pages() -> list[str]:
    pages = [COVER]
    footers = ["A Quarter in Review", "Financial Statements", "Financial Statements", "MD&A",
               "Other Key Information"]
    for n, (footer, body) in enumerate(zip(footers, BODIES.values(), strict=True), start=1):
        pages.append(f"{body}\n\n\n{footer}\t{n}")
    pages.append(f"{INDEX}\n\n\nOther Key Information\t6")
    return pages


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    from core.foundation.config import Settings

    settings = Settings(data_dir=tmp_path_factory.mktemp("store"), _env_file=None)
    return prepare(make_pdf(_pages()), "acme-10q.pdf", settings)


def _section_of(prepared, phrase: str) -> str:
    return next(c.section for c in prepared.chunks if phrase in c.text)


def test_items_come_from_the_index_page_references(prepared):
    assert _section_of(prepared, "ACME CHIPS CORPORATION") == "Cover"
    assert _section_of(prepared, "Revenue fell 36%").startswith("Part I — Item 2.")
    assert _section_of(prepared, "Net revenue | 11,715") == "Part I — Item 1. Financial Statements"
    assert _section_of(prepared, "We issued senior notes") == (
        "Part I — Item 1. Financial Statements")
    assert _section_of(prepared, "several patent suits") == "Part II — Item 1. Legal Proceedings"
    assert _section_of(prepared, "Client computing revenue").startswith("Part I — Item 2.")


def test_items_sharing_a_page_split_at_the_reports_own_headings(prepared):
    assert _section_of(prepared, "could affect our business") == "Part II — Item 1A. Risk Factors"
    assert _section_of(prepared, "disclosure controls are effective") == (
        "Part I — Item 4. Controls and Procedures")
    assert _section_of(prepared, "No shares were repurchased").startswith("Part II — Item 2.")


def test_few_chunks_stay_in_the_cover(prepared):
    counts = Counter(c.section for c in prepared.chunks)
    assert counts["Cover"] == 1
    assert len(prepared.meta.sections) == len(set(prepared.meta.sections)) == 8


def test_index_parsing_reads_ranges_and_lists():
    assert _expand("4 - 21")[:3] == ["4", "5", "6"] and len(_expand("4 - 21")) == 18
    assert _expand("3, 22 - 24") == ["3", "22", "23", "24"]
    assert _expand("F-1 - F-3") == ["F-1", "F-2", "F-3"]
    text = INDEX.replace("\t", " | ")
    index = find_index(text)
    assert [(e.part, e.item, e.labels) for e in index.entries][:3] == [
        ("I", "1", ["2", "3"]), ("I", "2", ["1", "4"]), ("I", "4", ["5"])]
    assert index.entries[-2].labels == [] and index.entries[-1].labels == ["6"]
    assert find_index("Table of Contents\nItem 1. Business | 3\nItem 2. Properties | 9") is None
