"""PDF loader: pages kept, AES-encrypted files opened, corrupted and scanned PDFs refused."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    NameObject,
    NumberObject,
)

from core.errors import IngestError
from core.ingest.pdf import load_pdf


def make_pdf(pages: list[str], *, encrypt: bool = False, password: str = "") -> bytes:
    """A real PDF with one Helvetica text line per input line (empty string: blank page);
    a tab in a line starts the next column, 220 points to the right."""
    writer = PdfWriter()
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
            NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
        }
    )
    for text in pages:
        page = writer.add_blank_page(612, 792)
        if not text:
            continue
        ops = []
        for row, line in enumerate(text.split("\n")):
            for col, cell in enumerate(line.split("\t")):  # a tab jumps to the next column
                escaped = cell.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
                x, y = 72 + 220 * col, 720 - 14 * row
                ops.append(f"BT /F1 11 Tf {x} {y} Td ({escaped}) Tj ET")
        stream = DecodedStreamObject()
        stream.set_data("\n".join(ops).encode("cp1252"))
        resources = {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        page[NameObject("/Resources")] = DictionaryObject(resources)
        page.replace_contents(stream)
    if encrypt:
        writer.encrypt(user_password=password, owner_password="owner-secret", algorithm="AES-256")
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


PAGES = [
    "ACME WIDGETS, INC.\nFORM 10-K\nTable of Contents",
    "Table of Contents\nItem 1. Business\nAcme designs precision widgets.\n2",
    "Item 1A. Risk Factors\nThe market for widgets is intensely competitive.\n"
    "Acme’s rivals are large.\n3",
]


def test_pages_kept_as_spans():
    doc = load_pdf(make_pdf(PAGES))
    assert [p.number for p in doc.pages] == [1, 2, 3]
    page2 = doc.text[doc.pages[1].start : doc.pages[1].end]
    page3 = doc.text[doc.pages[2].start : doc.pages[2].end]
    assert page2.startswith("Item 1. Business") and "precision widgets" in page2
    assert "intensely competitive" in page3 and "Acme’s rivals" in page3
    # furniture at the page edges is dropped: running "Table of Contents", page numbers
    assert not page3.endswith("3") and not page2.startswith("Table of Contents")
    assert all(a.end + 2 == b.start for a, b in zip(doc.pages, doc.pages[1:], strict=False))


def test_aes_encrypted_with_empty_password_opens():
    data = make_pdf(PAGES, encrypt=True)
    assert b"/Encrypt" in data
    doc = load_pdf(data)
    assert "intensely competitive" in doc.text and len(doc.pages) == 3


def test_password_protected_pdf_is_refused_clearly():
    with pytest.raises(IngestError, match="password"):
        load_pdf(make_pdf(PAGES, encrypt=True, password="s3cret"))


def test_corrupted_pdf_raises_ingest_error():
    with pytest.raises(IngestError, match="corrupted"):
        load_pdf(b"%PDF-1.7\n" + bytes(range(256)) * 20)


def test_truncated_pdf_raises_ingest_error():
    data = make_pdf(PAGES)
    with pytest.raises(IngestError):
        load_pdf(data[: len(data) // 3])


def test_pdf_without_text_looks_scanned():
    with pytest.raises(IngestError, match="scanned"):
        load_pdf(make_pdf(["", ""]))


def test_layout_columns_become_table_rows():
    page = (
        "Item 7. Management's Discussion and Analysis\n"
        + "Results of operations were strong this year for every segment we serve.\n" * 6
        + "Consolidated Statements of Income\n"
        "\tFiscal 2023\tFiscal 2022\n"
        "Total revenue\t$26,974\t$26,914\n"
        "Net income\t4,368\t9,752"
    )
    doc = load_pdf(make_pdf([page]))
    assert "Total revenue | $26,974 | $26,914" in doc.text
    assert "Net income | 4,368 | 9,752" in doc.text
    assert doc.tables == 1
    ((start, end),) = doc.table_spans
    assert doc.text[start:end].startswith("Consolidated Statements of Income")
    assert doc.text[start:end].endswith("Net income | 4,368 | 9,752")


def _pdf_with_big_array(n: int) -> bytes:
    """A one-page PDF whose page dictionary holds an array of ``n`` numbers (Microsoft's
    10-Q PDFs hold arrays of ~110,000 elements, over pypdf's default limit of 100,000)."""
    reader = PdfReader(io.BytesIO(make_pdf(["Item 1. Business\nAcme designs widgets."])))
    writer = PdfWriter(clone_from=reader)
    writer.pages[0][NameObject("/PieceInfoList")] = ArrayObject(
        NumberObject(i % 7) for i in range(n)
    )
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def test_arrays_over_pypdfs_default_limit_are_read():
    """Fault 2 (issue 9): 'Reached maximum array element count' is a limit, not corruption."""
    doc = load_pdf(_pdf_with_big_array(120_000))
    assert "Acme designs widgets" in doc.text


def test_a_reached_limit_is_reported_as_such(monkeypatch):
    import core.ingest.pdf as pdf

    monkeypatch.setattr(pdf, "MAX_ELEMENTS", 1_000)
    with pytest.raises(IngestError, match="safety limit") as err:
        load_pdf(_pdf_with_big_array(5_000))
    assert "corrupted" not in str(err.value).replace("not necessarily corrupted", "")
