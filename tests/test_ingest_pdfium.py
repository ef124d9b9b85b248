"""PDF pages read by PDFium (``Settings.pdf_text='pdfium'``, issue 20): the same paragraphs,
tables with their columns and Items as pypdf's layout mode, read in worker processes (PDFium
is not thread-safe, and the app renders cited pages with it in other threads)."""

from __future__ import annotations

import core.ingest.pdf as pdf
import core.ingest.pdf_pdfium as pdf_pdfium
from core.ingest.pdf import load_pdf
from core.ingest.pdf_pdfium import layout
from core.ingest.pipeline import prepare
from tests.test_ingest_pdf import PAGES, make_pdf

PROSE = "Results of operations were strong this year for every segment we serve.\n" * 4
TABLE = (PROSE + "Segment Results\n"
         "\t2024\t2023\n"
         "Products\t112,260\t189,074\n"
         "Services\t\t189,074\n"
         "Total\t112,260\t378,148\n"
         "Net loss\t(12,260)\t(48,148)")


def test_pdfium_keeps_table_columns_like_pypdf_layout_mode():
    data = make_pdf([TABLE])
    ours = load_pdf(data, "pdfium")
    assert "Products | 112,260 | 189,074" in ours.text
    assert "Services |  | 189,074" in ours.text  # the blank 2024 cell stays blank
    assert "Total | 112,260 | 378,148" in ours.text
    assert "Net loss | (12,260) | (48,148)" in ours.text
    assert ours.tables == load_pdf(data, "pypdf").tables == 1


def test_pdfium_pages_sections_and_labels_match_pypdf(settings):
    pages = [*PAGES[:2], PAGES[2].replace("competitive.", "competitive. " + PROSE[:150])]
    data = make_pdf(pages, encrypt=True)  # an empty user password, as many filings have
    a = load_pdf(data, "pypdf")
    b = load_pdf(data, "pdfium")
    assert b.text == a.text
    assert [(p.number, p.label) for p in b.pages] == [(p.number, p.label) for p in a.pages]
    chunks = {e: prepare(data, "acme-10k.pdf", settings.model_copy(update={"pdf_text": e}))
              for e in ("pypdf", "pdfium")}
    assert chunks["pdfium"].meta.sections == chunks["pypdf"].meta.sections
    assert "Item 1A. Risk Factors" in chunks["pdfium"].meta.sections[-1]


def test_pdfium_reads_in_worker_processes_never_in_this_one(monkeypatch):
    def in_process(*args, **kwargs):
        raise AssertionError("PDFium called in the app's process")

    monkeypatch.setattr(pdf_pdfium, "page_texts", in_process)
    assert "Products | 112,260 | 189,074" in load_pdf(make_pdf([TABLE]), "pdfium").text


def test_when_the_workers_fail_pypdf_reads_the_pages(monkeypatch):
    def broken(*args, **kwargs):
        raise OSError("no processes here")

    monkeypatch.setattr(pdf.subprocess, "Popen", broken)
    data = make_pdf([TABLE])
    assert load_pdf(data, "pdfium") == load_pdf(data, "pypdf")


def test_layout_puts_runs_on_a_grid_and_keeps_a_line_of_words_whole():
    # (text, left, right, baseline, font size): one prose line, then a row of three runs
    words = [("Net", 72, 90, 700, 10), ("revenue", 92.5, 128, 700, 10),
             ("2,466", 300, 325, 688, 10), ("$", 400, 405, 688, 10), ("22,101", 470, 500, 688, 10),
             ("Total", 72, 96, 688, 10)]
    lines = layout(words).split("\n")
    assert lines[0] == "Net revenue"  # a word space stays one space
    assert lines[1].startswith("Total ") and lines[1].split() == ["Total", "2,466", "$22,101"]
    assert "   2,466   " in lines[1]  # column gaps print as 3+ spaces
    apart = layout([w for w in words if w[0] != "$"]).split("\n")[1]
    assert len(lines[1]) == len(apart)  # the "$" joins its figure, whose right edge stays
    raised = [*words[:2], ("(a)", 130, 140, 703, 6)]  # a superscript note marker
    assert layout(raised) == "Net revenue (a)"
    # a registrant's name in a large font just above a line of small print (3M's 10-K cover)
    cover = [("3M", 257, 275, 644.7, 21), ("COMPANY", 279, 344, 644.7, 21),
             ("Incorporation:", 163, 204, 634.5, 12), ("Delaware", 206, 235, 634.5, 12),
             ("Identification", 392, 430, 634.5, 12)]
    lines = layout(cover).split("\n")
    assert lines[0].strip() == "3M COMPANY" and lines[1].split()[0] == "Incorporation:"


def test_a_font_drawn_through_a_scaled_text_matrix_keeps_its_lines():
    """Some printers set a 440-point font and shrink it with the text matrix (Pfizer's, Nike's
    and Amazon's 10-K PDFs): PDFium reports the nominal size, which put a page on one line."""
    import io

    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import DecodedStreamObject

    normal = make_pdf([TABLE])
    reader = PdfReader(io.BytesIO(normal))
    page = reader.pages[0]
    ops = page.get_contents().get_data().decode("cp1252")
    scaled = "\n".join(  # "BT /F1 11 Tf x y Td" -> "BT /F1 440 Tf 0.025 0 0 0.025 x y Tm"
        line.replace("/F1 11 Tf", "/F1 440 Tf 0.025 0 0 0.025").replace(" Td ", " Tm ")
        for line in ops.split("\n"))
    stream = DecodedStreamObject()
    stream.set_data(scaled.encode("cp1252"))
    writer = PdfWriter(clone_from=reader)
    writer.pages[0].replace_contents(stream)
    buf = io.BytesIO()
    writer.write(buf)
    ours = load_pdf(buf.getvalue(), "pdfium")
    assert ours.text == load_pdf(normal, "pdfium").text
    assert "Total | 112,260 | 378,148" in ours.text and ours.tables == 1
