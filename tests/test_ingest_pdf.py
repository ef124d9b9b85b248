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

from core.foundation.errors import IngestError
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


def _footed_pages() -> list[str]:
    """Synthetic 10-Q pages shaped like Apple's: a running header "Acme Corp." and a footer
    "Acme Corp. | Q3 2022 Form 10-Q | n" (three columns), after an unnumbered cover."""
    bodies = [
        "Item 1. Financial Statements\nNet sales rose on strong demand for widgets.",
        "Gross margin widened as component costs fell during the quarter.",
        "Item 2. Management's Discussion\nOperating expenses grew with research spending.",
        "Item 1A. Risk Factors\nSupply of titanium depends on two vendors.",
    ]
    pages = ["FORM 10-Q\nAcme Corp.\nFor the quarterly period ended June 25, 2022"]
    for n, body in enumerate(bodies, start=1):
        pages.append(f"Acme Corp.\n{body}\n\n\nAcme Corp.\tQ3 2022 Form 10-Q\t{n}")
    return pages


def test_running_headers_and_footers_are_removed_and_labels_kept(settings):
    """Fault 5 (issue 9)."""
    doc = load_pdf(make_pdf(_footed_pages()))
    assert [p.number for p in doc.pages] == [1, 2, 3, 4, 5]
    assert [p.label for p in doc.pages] == [None, "1", "2", "3", "4"]
    assert "Form 10-Q" not in doc.text.replace("FORM 10-Q", "")
    assert doc.text.count("Acme Corp.") == 1  # the cover's, not the running header
    page3 = doc.text[doc.pages[2].start : doc.pages[2].end]
    assert page3 == "Gross margin widened as component costs fell during the quarter."

    from core.ingest.pipeline import prepare

    chunks = prepare(make_pdf(_footed_pages()), "acme.pdf", settings).chunks
    assert all("Form 10-Q |" not in c.text for c in chunks)
    risks = next(c for c in chunks if "titanium" in c.text)
    assert (risks.page, risks.page_label) == (5, "4")
