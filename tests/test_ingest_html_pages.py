"""Page spans for EDGAR HTML: page breaks, printed page numbers, chunk pages."""

from __future__ import annotations

import bisect
from pathlib import Path

import pytest

from core.ingest.html import load_html
from core.ingest.html_pages import break_sides, footer_label, number_pages
from core.ingest.pipeline import prepare

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
PAGED = (FIXTURES / "paged_10k.htm").read_bytes()


def page_of(doc, phrase: str) -> int:
    at = doc.text.index(phrase)
    k = bisect.bisect_right([p.start for p in doc.pages], at) - 1
    page = doc.pages[k]
    assert page.start <= at < page.end, f"{phrase!r} falls between pages"
    return page.number


def html(*pages: str, sep: str = '<hr style="page-break-after:always"/>') -> bytes:
    return f"<html><body>{sep.join(pages)}</body></html>".encode()


@pytest.fixture(scope="module")
def paged():
    return load_html(PAGED)


def test_printed_numbers_win_front_matter_and_f_pages_count_physically(paged):
    # cover, TOC ("i"), printed 1-4, an unlabelled page counted on (5), printed 6, F-1, F-2
    assert [p.number for p in paged.pages] == [1, 2, 1, 2, 3, 4, 5, 6, 9, 10]
    assert page_of(paged, "FORM 10-K") == 1
    assert page_of(paged, "Item 1A. | Risk Factors | 2") == 2
    assert page_of(paged, "We operate three plants in Ohio") == 1
    assert page_of(paged, "Demand for commercial aircraft is cyclical") == 2
    assert page_of(paged, "We depend on a few titanium suppliers") == 3
    assert page_of(paged, "Our largest customer accounts for 38%") == 4
    assert page_of(paged, "Gross margin rose to 31.5%") == 5
    assert page_of(paged, "Liquidity and Capital Resources") == 6
    assert page_of(paged, "Net income | $96 | $71") == 9
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
    assert page_of(paged, "would reduce revenue and margins materially") == 4


def test_chunks_carry_the_printed_page(settings):
    prepared = prepare(PAGED, "bolt-10k.htm", settings)
    assert prepared.meta.n_pages == 10
    assert all(c.page is not None for c in prepared.chunks)
    first = {}
    for chunk in prepared.chunks:
        first.setdefault(chunk.section, chunk)
    assert first["Item 1. Business"].page == 1
    assert first["Item 1A. Risk Factors"].page == 2
    assert first["Item 1A. Risk Factors"].text.startswith("Item 1A. Risk Factors")
    item7 = next(s for s in first if s.startswith("Item 7."))
    assert first[item7].page == 5
    assert first["Item 8. Financial Statements and Supplementary Data"].page == 9
    largest = next(c for c in prepared.chunks if c.text.startswith("Our largest customer"))
    assert largest.page == 4


def test_synthetic_10k_pages_follow_its_footers():
    doc = load_html((FIXTURES / "synthetic_10k.htm").read_bytes())
    # footers 2, 3, 4, 5, 6, 8, 9: the cover shares printed page 2 with the TOC
    assert [p.number for p in doc.pages] == [2, 3, 4, 5, 6, 8, 9]
    assert page_of(doc, "Competition could cause us to lose market share") == 4
    assert page_of(doc, "Total revenue | $26,974") == 6


def test_document_without_breaks_has_no_pages(settings):
    body = "<p>Item 1. Business</p><p>" + "Acme sells widgets to industrial buyers. " * 40
    data = f"<html><body>{body}</p><p>7</p></body></html>".encode()
    assert load_html(data).pages == []
    prepared = prepare(data, "plain.htm", settings)
    assert prepared.meta.n_pages == 0
    assert prepared.chunks and all(c.page is None for c in prepared.chunks)


def test_unreliable_footers_fall_back_to_physical_count():
    pages = [f"<p>Section {n} text about widgets.</p><p>{n}</p>" for n in (2, 6, 14, 14)]
    doc = load_html(html(*pages))
    assert [p.number for p in doc.pages] == [1, 2, 3, 4]
    assert page_of(doc, "Section 14") == 3


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
    assert footer_label([("text", "Body."), ("text", "23"), ("text", "Table of Contents")]) == "23"
    assert footer_label([("text", "Body.\nPage 7")]) == "Page 7"
    assert footer_label([("text", "Body."), ("text", "F-7")]) == "F-7"
    assert footer_label([("text", "42"), ("text", "A closing paragraph.")]) is None
    assert footer_label([("text", "12"), ("table", "a | b\nc | 12")]) is None


def test_number_pages_rules():
    assert number_pages([None, "2", "3", "Page 4"]) == [1, 2, 3, 4]
    # an unlabelled page inside the run is counted on; F-pages after it count physically
    labels = [None, "i", "1", None, "3", "4", "F-1", "F-2"]
    assert number_pages(labels) == [1, 2, 1, 2, 3, 4, 7, 8]
    # a numbering that restarts (an exhibit's own pages) makes the printed numbers untrusted
    assert number_pages(["1", "2", "3", "4", "1", "2", "3"]) == [1, 2, 3, 4, 5, 6, 7]
    # too few printed numbers: physical count
    assert number_pages(["7", "8", None, None]) == [1, 2, 3, 4]
    assert number_pages([]) == []
