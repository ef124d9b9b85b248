"""Long PDFs are read by one process per core; the result equals reading pages in order."""

from __future__ import annotations

import core.ingest.pdf as pdf
from tests.test_ingest_pdf import make_pdf

PAGES = [
    f"Item {n}. Section {n}\nRevenue\t{n},000\nThe company sold {n} widgets this year."
    for n in range(1, 8)
] + [""]  # a blank page keeps its number


def test_parallel_extraction_matches_sequential(monkeypatch):
    data = make_pdf(PAGES, encrypt=True)  # workers must decrypt too
    reader = pdf._open(data)
    pages = list(reader.pages)
    sequential = pdf._raw_texts(data, pages, min_pages=10**6)
    parallel = pdf._raw_texts(data, pages, min_pages=2)
    assert parallel == sequential and len(parallel) == len(PAGES)
    assert "5,000" in parallel[4][0]

    monkeypatch.setattr(pdf, "PARALLEL_MIN_PAGES", 2)
    fast = pdf.load_pdf(data)
    monkeypatch.setattr(pdf, "PARALLEL_MIN_PAGES", 10**6)
    slow = pdf.load_pdf(data)
    assert fast == slow and [p.number for p in fast.pages] == list(range(1, 8))


def test_failing_workers_fall_back_to_reading_in_order(monkeypatch):
    data = make_pdf(PAGES[:4])
    pages = list(pdf._open(data).pages)

    def broken(*args, **kwargs):
        raise OSError("no processes here")

    monkeypatch.setattr(pdf.subprocess, "Popen", broken)
    assert pdf._raw_texts(data, pages, min_pages=2) == pdf._raw_texts(data, pages, min_pages=99)
