"""Page spans for EDGAR HTML: page breaks, physical page numbers, printed labels, chunk pages."""

from __future__ import annotations

import bisect
from pathlib import Path

import pytest

from core.ingest.html import load_html
from core.ingest.html_pages import break_sides, footer_label
from core.ingest.pipeline import prepare

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
PAGED = (FIXTURES / "paged_10k.htm").read_bytes()


def page_of(doc, phrase: str) -> int:
    return _page(doc, phrase).number


def label_of(doc, phrase: str) -> str | None:
    return _page(doc, phrase).label


def _page(doc, phrase: str):
    at = doc.text.index(phrase)
    k = bisect.bisect_right([p.start for p in doc.pages], at) - 1
    page = doc.pages[k]
    assert page.start <= at < page.end, f"{phrase!r} falls between pages"
    return page


def html(*pages: str, sep: str = '<hr style="page-break-after:always"/>') -> bytes:
    return f"<html><body>{sep.join(pages)}</body></html>".encode()


@pytest.fixture(scope="module")
def paged():
    return load_html(PAGED)


def test_pages_are_physical_and_carry_the_printed_labels(paged):
    # cover, TOC ("i", alone: unconfirmed), printed 1-4, an unlabelled page inside the run
    # (counted on: 5), printed 6, F-1, F-2
    assert [p.number for p in paged.pages] == list(range(1, 11))
    assert [p.label for p in paged.pages] == [
        None, None, "1", "2", "3", "4", "5", "6", "F-1", "F-2"
    ]
    assert page_of(paged, "FORM 10-K") == 1
    assert page_of(paged, "Item 1A. | Risk Factors | 2") == 2
    assert (page_of(paged, "We operate three plants in Ohio"), label_of(
        paged, "We operate three plants in Ohio")) == (3, "1")
    assert page_of(paged, "Demand for commercial aircraft is cyclical") == 4
    assert page_of(paged, "We depend on a few titanium suppliers") == 5
    assert page_of(paged, "Our largest customer accounts for 38%") == 6
    assert page_of(paged, "Gross margin rose to 31.5%") == 7
    assert page_of(paged, "Liquidity and Capital Resources") == 8
    assert (page_of(paged, "Net income | $96 | $71"), label_of(
        paged, "Net income | $96 | $71")) == (9, "F-1")
    assert page_of(paged, "Note 1. Summary of significant") == 10


def test_spans_are_ordered_and_hold_no_footers(paged):
    ends = 0
    for page in paged.pages:
        assert ends <= page.start < page.end <= len(paged.text)
        ends = page.end
        lines = paged.text[page.start : page.end].splitlines()
        assert not {"1", "Page 2", "- 3 -", "4", "6", "F-1", "i"} & set(lines)
    assert paged.pages[0].start == 0 and paged.pages[-1].end == len(paged.text)
    # a hidden element's break style is ignored: page 4 holds the text on both sides of it
    assert "A hidden element" not in paged.text
    assert label_of(paged, "would reduce revenue and margins materially") == "4"


def test_chunks_carry_the_physical_page_and_the_printed_label(settings):
    prepared = prepare(PAGED, "bolt-10k.htm", settings)
    assert prepared.meta.n_pages == 10
    assert all(c.page is not None for c in prepared.chunks)
    first = {}
    for chunk in prepared.chunks:
        first.setdefault(chunk.section, chunk)
    business = first["Item 1. Business"]
    assert (business.page, business.page_label) == (3, "1")
    risks = first["Item 1A. Risk Factors"]
    assert (risks.page, risks.page_label) == (4, "2")
    assert risks.text.startswith("Item 1A. Risk Factors")
    item7 = next(s for s in first if s.startswith("Item 7."))
    assert (first[item7].page, first[item7].page_label) == (7, "5")
    statements = first["Item 8. Financial Statements and Supplementary Data"]
    assert (statements.page, statements.page_label) == (9, "F-1")
    largest = next(c for c in prepared.chunks if c.text.startswith("Our largest customer"))
    assert (largest.page, largest.page_label) == (6, "4")


def test_document_without_breaks_has_no_pages(settings):
    body = "<p>Item 1. Business</p><p>" + "Acme sells widgets to industrial buyers. " * 40
    data = f"<html><body>{body}</p><p>7</p></body></html>".encode()
    assert load_html(data).pages == []
    prepared = prepare(data, "plain.htm", settings)
    assert prepared.meta.n_pages == 0
    assert prepared.chunks and all(c.page is None for c in prepared.chunks)


def test_unconfirmed_footers_give_no_labels():
    pages = [f"<p>Section {n} text about widgets.</p><p>{n}</p>" for n in (2, 6, 14, 14)]
    doc = load_html(html(*pages))
    assert [p.number for p in doc.pages] == [1, 2, 3, 4]
    assert [p.label for p in doc.pages] == [None] * 4
    assert page_of(doc, "Section 14") == 3


def test_running_footer_tables_give_labels_and_leave_the_text():
    """Fault 5 (issue 9): Apple prints "Apple Inc. | 2024 Form 10-K | 5" as a one-row table
    at each page's foot (synthetic excerpt of that shape)."""
    body = ["Apple designs smartphones.", "Services revenue grew.", "Risks include supply."]
    pages = [
        f"<p>{text}</p><table><tr><td>Apple Inc.</td><td>|</td><td>2024 Form 10-K</td>"
        f"<td>|</td><td>{n}</td></tr></table>"
        for n, text in zip((4, 5, 6), body, strict=True)
    ]
    doc = load_html(html("<p>FORM 10-K cover</p>", *pages))
    assert [p.label for p in doc.pages] == [None, "4", "5", "6"]
    assert "Form 10-K" not in doc.text and "|" not in doc.text
    assert label_of(doc, "Services revenue grew.") == "5"


def test_break_before_styles_and_pagebreak_comments():
    doc = load_html(html("<p>alpha page</p>", "<p>beta page</p>", sep="<!-- PAGEBREAK -->"))
    assert [p.number for p in doc.pages] == [1, 2]
    doc = load_html(
        html(
            "<p>alpha page</p>",
            '<div style="break-before: page">beta page</div><p>gamma</p>',
            sep="",
        )
    )
    assert [p.number for p in doc.pages] == [1, 2]
    assert page_of(doc, "gamma") == 2
    # a break before any text and one after all of it make no empty pages
    lone = '<hr style="page-break-after:always"/>'
    assert load_html(html(lone + "<p>only page</p>" + lone, sep="")).pages == []


def test_break_sides_reads_css_variants():
    assert break_sides("page-break-before:always") == (True, False)
    assert break_sides("PAGE-BREAK-AFTER: ALWAYS; margin:0") == (False, True)
    assert break_sides("break-after: page") == (False, True)
    assert break_sides("page-break-inside:avoid") == (False, False)
    assert break_sides("page-break-after:auto") == (False, False)
    assert break_sides(None) == (False, False)


def test_footer_label_skips_nav_links_and_stops_at_prose():
    assert footer_label([("text", "Body."), ("text", "23"), ("text", "Table of Contents")]) == (
        1, "23")
    assert footer_label([("text", "Body.\nPage 7")]) == (0, "7")
    assert footer_label([("text", "Body."), ("text", "F-7")]) == (1, "F-7")
    assert footer_label([("text", "Body."), ("table", "Acme Corp | 2023 Form 10-K | 12")]) == (
        1, "12")
    assert footer_label([("text", "42"), ("text", "A closing paragraph.")]) is None
    assert footer_label([("text", "12"), ("table", "a | b\nc | 12")]) is None
