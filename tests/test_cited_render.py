"""Citations resolved to their passage (sentence highlighted) and PDF pages rendered with the
passage marked; originals kept at ingest (a synthetic PDF built here, HashEmbedder)."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from core.app.cited import best_span, claims_by_marker, resolve_citation, squeeze
from core.app.render import find_spans, merge_lines, render_page
from core.foundation.errors import AppError
from core.store.files import is_pdf, original_path

RISK = ("The market for widgets is intensely competitive. Larger rivals such as Zenith Corp "
        "have far greater resources than we do. We may lose market share to them.")
PAGES = [
    "ACME WIDGETS, INC.\nFORM 10-K\nFor the fiscal year ended December 31, 2024",
    "Item 1. Business\nAcme designs precision widgets for industrial customers.\n2",
    "Item 1A. Risk Factors\nThe market for widgets is intensely competitive.\n"
    "Larger rivals such as Zenith Corp have far greater resources\nthan we do. "
    "We may lose market share to them.\n3",
]


def make_pdf(pages: list[str]) -> bytes:
    """A real PDF with one Helvetica text line per input line."""
    writer = PdfWriter()
    font = DictionaryObject({NameObject("/Type"): NameObject("/Font"),
                             NameObject("/Subtype"): NameObject("/Type1"),
                             NameObject("/BaseFont"): NameObject("/Helvetica"),
                             NameObject("/Encoding"): NameObject("/WinAnsiEncoding")})
    for text in pages:
        page = writer.add_blank_page(612, 792)
        ops = []
        for row, line in enumerate(text.split("\n")):
            escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops.append(f"BT /F1 11 Tf 72 {720 - 14 * row} Td ({escaped}) Tj ET")
        stream = DecodedStreamObject()
        stream.set_data("\n".join(ops).encode("cp1252"))
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})
        page.replace_contents(stream)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


# --- which text a marker backs ------------------------------------------------------


def test_a_marker_backs_the_sentence_or_quotation_before_it():
    answer = ("We face intense competition. [1] Rivals consolidate, which weakens us. [2][3]\n"
              "AMD's moves — “Lisa Su called the deal the next step” [4] — bear on the risk "
              "that “larger vendors out-spend us” [1].")
    claims = claims_by_marker(answer)
    assert claims[1] == ["We face intense competition.", "larger vendors out-spend us"]
    assert claims[2] == claims[3] == ["Rivals consolidate, which weakens us."]
    assert claims[4] == ["Lisa Su called the deal the next step"]


def test_best_span_finds_the_cited_sentence_exactly_or_by_shared_words():
    exact = best_span("Larger rivals such as Zenith Corp have far greater resources than we do.",
                      RISK)
    assert RISK[exact[0]:exact[1]].startswith("Larger rivals such as Zenith")
    loose = best_span("Zenith and other larger rivals have greater resources", RISK)
    assert RISK[loose[0]:loose[1]].startswith("Larger rivals")
    assert best_span("Revenue grew 35% in fiscal 2023", RISK) is None


def test_find_spans_ignores_spacing_case_and_line_breaks():
    page = "Larger rivals such as ZENITH Corp have far\r\ngreater  resources than we do."
    spans = find_spans("larger rivals such as Zenith Corp have far greater resources", page)
    assert len(spans) == 1
    start, end = spans[0]
    assert squeeze(page[start:end])[0] == squeeze("larger rivals such as zenith corp have far "
                                                  "greater resources")[0]


def test_rectangles_on_one_line_are_united():
    assert merge_lines([(10, 100, 50, 110), (52, 100, 90, 111), (10, 80, 40, 90)]) == [
        (10, 100, 90, 111), (10, 80, 40, 90)]


# --- the page as filed --------------------------------------------------------------


def test_render_page_marks_the_cited_sentence(tmp_path):
    pdf = tmp_path / "acme.pdf"
    pdf.write_bytes(make_pdf(PAGES))
    shown = render_page(pdf, 3, passage=RISK,
                        sentence="Larger rivals such as Zenith Corp have far greater resources")
    assert shown.png.startswith(b"\x89PNG") and shown.n_pages == 3
    assert shown.sentence_marked and shown.passage_marked
    assert shown.boxes and all(0 <= b[1] < shown.height for b in shown.boxes)
    plain = render_page(pdf, 2, passage=RISK)  # the passage is not on page 2
    assert not plain.passage_marked
    with pytest.raises(AppError, match="has 3 pages"):
        render_page(pdf, 9)


@pytest.fixture
def corpus(settings, hash_embedder):
    from core.app.corpus import Corpus

    c = Corpus(settings, embedder=hash_embedder)
    yield c
    c.close()


def test_ingest_keeps_the_original_and_delete_removes_it(corpus, settings):
    report = corpus.ingest_bytes(make_pdf(PAGES), "acme-10k.pdf")
    path = original_path(settings, report.meta)
    assert path is not None and is_pdf(path) and path.parent == settings.data_dir / "originals"
    assert path.name.startswith(report.meta.doc_id)  # named by content hash, never by upload
    corpus.delete(report.meta.doc_id)
    assert original_path(settings, report.meta.doc_id) is None


def test_a_citation_resolves_to_its_chunk_page_and_original(corpus, settings):
    report = corpus.ingest_bytes(make_pdf(PAGES), "acme-10k.pdf", company="Acme Widgets",
                                 form_type="10-K", period="FY2024")
    chunk = next(c for c in corpus.store.chunks(report.meta.doc_id) if "Zenith" in c.text)
    answer = "Rivals such as Zenith Corp have far greater resources than we do. [1]"
    cited = resolve_citation(corpus.store, settings,
                             {"n": 1, "evidence_id": chunk.chunk_id, "kind": "chunk"},
                             answer=answer)
    assert cited.kind == "chunk" and cited.page == 3 and cited.is_pdf
    assert cited.source == "Acme Widgets 10-K FY2024"
    assert "page 3" in cited.where and cited.section.startswith("Item 1A")
    marked = cited.text[cited.highlight[0]:cited.highlight[1]]
    assert "Zenith Corp have far greater resources" in " ".join(marked.split())
    assert chunk.chunk_id in [c.chunk_id for c in cited.neighbours]
    shown = render_page(cited.original, cited.page, passage=cited.text, sentence=marked)
    assert shown.sentence_marked


def test_a_citation_missing_from_the_corpus_falls_back_to_the_runs_stored_evidence(corpus,
                                                                                    settings):
    from core.agent.state import Answer, Evidence
    from core.app.runs import RunRecord

    ev = Evidence(id="gone-00001", kind="chunk", text="Old text about rivals.", label="Old 10-K",
                  section="Item 1A", page=7)
    record = RunRecord(question="q", evidence=[ev], answer=Answer(text="x [1]", evidence=[ev]))
    stored = resolve_citation(corpus.store, settings,
                              {"n": 1, "evidence_id": "gone-00001", "kind": "chunk"},
                              answer="Old text about rivals. [1]", record=record)
    assert stored.kind == "stored" and stored.page == 7 and stored.highlight is not None
    missing = resolve_citation(corpus.store, settings,
                               {"n": 2, "evidence_id": "nowhere-00009", "kind": "chunk"})
    assert missing.kind == "missing"
