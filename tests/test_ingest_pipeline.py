"""prepare(): metadata, chunks with exact offsets, stable ids, and every refusal."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import pytest

from core.foundation.config import Settings
from core.foundation.errors import IngestError
from core.ingest.pipeline import prepare
from core.ingest.sniff import sniff
from tests.test_ingest_pdf import make_pdf

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
TEN_K = (FIXTURES / "synthetic_10k.htm").read_bytes()
TEN_Q = (FIXTURES / "synthetic_10q.txt").read_bytes()


@pytest.fixture
def ten_k(settings):
    return prepare(TEN_K, "acme-10k.htm", settings, source="upload")


def test_meta_from_dei_facts(ten_k):
    meta = ten_k.meta
    assert meta.doc_id == hashlib.sha256(TEN_K).hexdigest()[:16]
    assert (meta.company, meta.form_type, meta.period) == ("ACME WIDGETS, INC.", "10-K", "FY2023")
    assert meta.file_name == "acme-10k.htm" and meta.source == "upload"
    assert meta.size_bytes == len(TEN_K) and meta.n_tables == 2 and meta.n_pages == 7
    assert meta.n_chunks == len(ten_k.chunks)
    assert meta.sections[:3] == ["Cover", "Item 1. Business", "Item 1A. Risk Factors"]
    assert meta.ingested_at.endswith("+00:00")
    assert set(ten_k.timings) == {"parse", "sections", "chunk", "facts"}


def test_explicit_arguments_win(settings):
    meta = prepare(TEN_K, "x.htm", settings, company="Acme", form_type="10-K/A", period="FY2024")
    assert (meta.meta.company, meta.meta.form_type, meta.meta.period) == (
        "Acme",
        "10-K/A",
        "FY2024",
    )


def test_chunks_are_exact_ordered_and_clean(ten_k, settings):
    text = ten_k.parsed.text
    chunks = ten_k.chunks
    assert [c.index for c in chunks] == list(range(len(chunks)))
    for c in chunks:
        assert c.text == text[c.start : c.end] and c.text.strip() == c.text and c.text
        assert c.chunk_id == f"{ten_k.meta.doc_id}-{c.index:05d}"
        assert len(c.text) <= settings.chunk_size
        assert "\ufffd" not in c.text
    assert chunks[0].text.startswith("UNITED STATES")  # not XBRL facts
    # no duplicated chunk texts, overlap within the configured bound
    assert max(Counter(c.text for c in chunks).values()) == 1
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert b.start >= a.start and a.end - b.start <= settings.chunk_overlap


def test_chunks_stay_inside_their_sections(ten_k):
    from core.ingest.sections import detect_sections

    sections = {s.title: s for s in detect_sections(ten_k.parsed.text, "10-K")}
    for c in ten_k.chunks:
        sec = sections[c.section]
        assert sec.start <= c.start and c.end <= sec.end
    risk = [c for c in ten_k.chunks if c.section == "Item 1A. Risk Factors"]
    assert any("intensely competitive" in c.text for c in risk)


def test_table_chunk_keeps_caption_and_rows(ten_k):
    tables = [c for c in ten_k.chunks if "Total revenue | $26,974 | $26,914" in c.text]
    assert len(tables) == 1
    chunk = tables[0]
    assert chunk.kind == "table" and chunk.section.startswith("Item 7. ")
    assert "Consolidated Results of Operations" in chunk.text
    assert "Gross margin | 56.9% | 64.9%" in chunk.text


def test_ids_stable_across_runs(settings):
    first = prepare(TEN_K, "a.htm", settings)
    second = prepare(TEN_K, "b.htm", settings)
    assert [c.model_dump() for c in first.chunks] == [c.model_dump() for c in second.chunks]


def test_small_chunk_size_respected(tmp_path):
    small = Settings(data_dir=tmp_path, chunk_size=300, chunk_overlap=40, _env_file=None)
    prepared = prepare(TEN_K, "a.htm", small)
    assert all(len(c.text) <= 300 for c in prepared.chunks)
    assert any(c.kind == "table" for c in prepared.chunks)
    assert all(c.text == prepared.parsed.text[c.start : c.end] for c in prepared.chunks)


def test_ten_q_text_meta_from_cover(settings):
    prepared = prepare(TEN_Q, "beacon-10q.txt", settings)
    meta = prepared.meta
    assert (meta.company, meta.form_type, meta.period) == (
        "Beacon Robotics Corp.",
        "10-Q",
        "2023-04-30",
    )
    assert "Part II — Item 1A. Risk Factors" in meta.sections
    risk = [c for c in prepared.chunks if c.section == "Part II — Item 1A. Risk Factors"]
    assert risk and "lidar" in risk[0].text


def test_pdf_pages_on_chunks(settings):
    pages = [
        "ACME WIDGETS, INC.\nFORM 10-K\nFor the fiscal year ended December 31, 2023",
        "Item 1. Business\n" + "\n".join(["Acme designs precision widgets for factories."] * 30),
        "Item 1A. Risk Factors\n" + "\n".join(["Widget markets are intensely competitive."] * 30),
    ]
    prepared = prepare(make_pdf(pages, encrypt=True), "acme.pdf", settings)
    meta = prepared.meta
    assert meta.n_pages == 3 and meta.form_type == "10-K" and meta.period == "FY2023"
    by_section = {c.section: c.page for c in prepared.chunks}
    assert by_section["Cover"] == 1
    assert by_section["Item 1. Business"] == 2
    assert by_section["Item 1A. Risk Factors"] == 3


@pytest.mark.parametrize(
    "name, expected",
    [
        ("../../etc/passwd.htm", "passwd.htm"),
        ("C:\\Users\\me\\nvda 10-K.htm", "nvda 10-K.htm"),
        ("..", "document"),
        ("a<b>|c.htm", "a_b_c.htm"),
    ],
)
def test_file_name_sanitised(settings, name, expected):
    assert prepare(TEN_Q, name, settings).meta.file_name == expected


# --- refusals -----------------------------------------------------------------------


def test_empty_file(settings):
    with pytest.raises(IngestError, match="empty"):
        prepare(b"", "x.htm", settings)


def test_too_large_names_limit_and_setting(tmp_path):
    tiny = Settings(data_dir=tmp_path, max_file_mb=0.001, _env_file=None)
    with pytest.raises(IngestError, match="DTR_MAX_FILE_MB") as err:
        prepare(TEN_K, "x.htm", tiny)
    assert "0.001 MiB limit" in str(err.value)


def test_binary_renamed_htm_refused(settings):
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8
    with pytest.raises(IngestError, match="not a supported type"):
        prepare(png, "filing.htm", settings)


def test_corrupted_pdf_refused(settings):
    with pytest.raises(IngestError, match="corrupted"):
        prepare(b"%PDF-1.4\n" + b"\x00garbage" * 100, "x.pdf", settings)


def test_html_without_text_refused(settings):
    data = b'<html><body><div style="display:none">hidden</div><script>x=1</script></body></html>'
    with pytest.raises(IngestError, match="no readable text"):
        prepare(data, "x.htm", settings)


def test_scanned_pdf_refused(settings):
    with pytest.raises(IngestError, match="scanned"):
        prepare(make_pdf(["", ""]), "scan.pdf", settings)


def test_sniff_by_content_not_extension():
    assert sniff(TEN_K, "x.pdf") == "html"
    assert sniff(make_pdf(["hi"]), "x.htm") == "pdf"
    assert sniff(TEN_Q, "x.htm") == "text"
    assert sniff(b"<!DOCTYPE html><p>x</p>") == "html"
