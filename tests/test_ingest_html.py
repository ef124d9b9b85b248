"""HTML / inline-XBRL loader, decoding and table rendering."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from core.foundation.errors import IngestError
from core.ingest.html import load_html
from core.ingest.pipeline import prepare
from core.ingest.sniff import sniff
from core.ingest.tables import merge_cells
from core.ingest.text import declared_charset, decode_bytes, load_text

FIXTURE = Path(__file__).parent / "fixtures" / "ingest" / "synthetic_10k.htm"


@pytest.fixture(scope="module")
def doc():
    return load_html(FIXTURE.read_bytes())


def test_fixture_really_is_windows_1252():
    data = FIXTURE.read_bytes()
    assert b"\x92" in data and declared_charset(data) == "windows-1252"
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")


def test_dei_facts_read_from_header_and_body(doc):
    assert doc.dei == {
        "dei:DocumentType": "10-K",
        "dei:DocumentFiscalYearFocus": "2023",
        "dei:DocumentFiscalPeriodFocus": "FY",
        "dei:DocumentPeriodEndDate": "December 31, 2023",
        "dei:EntityRegistrantName": "ACME WIDGETS, INC.",
        "dei:EntityCentralIndexKey": "0009999999",  # the filer's CIK (company identity)
    }


def test_hidden_content_scripts_and_styles_are_dropped(doc):
    assert doc.text.startswith("UNITED STATES\n\nSECURITIES AND EXCHANGE COMMISSION")
    for hidden in ("0009999999", "iso4217", "SECRET HIDDEN NOTE", "SCRIPTTEXT", "color: red"):
        assert hidden not in doc.text
    # the visible inline fact stays: it is content
    assert "Revenue was $26,974 million in fiscal year 2023" in doc.text


def test_decoding_keeps_curly_quote_and_normalises_nbsp(doc):
    assert "Acme’s widgets are intensely competitive" in doc.text
    assert "\ufffd" not in doc.text and "\xa0" not in doc.text
    assert "December 31." in doc.text  # raw 0xA0 byte became a plain space
    assert "Yes ☐ No ☒" in doc.text


def test_nested_elements_read_once_and_paragraphs_kept(doc):
    assert doc.text.count("Nested division text that a naive extractor reads") == 1
    assert doc.text.count("Acme designs precision widgets") == 1
    assert "\n\nNested division text" in doc.text
    assert "Acme designs precision widgets for industrial customers." in doc.text


def test_tables_as_rows_with_caption_and_merged_cells(doc):
    assert "Total revenue | $26,974 | $26,914" in doc.text
    assert "Net loss | $(1,234) | $(567)" in doc.text
    assert "Gross margin | 56.9% | 64.9%" in doc.text
    assert "Item 1A. | Risk Factors | 4" in doc.text
    assert doc.tables == 2 == len(doc.table_spans)
    spans = [doc.text[a:b] for a, b in doc.table_spans]
    results = next(s for s in spans if "Total revenue" in s)
    assert "Consolidated Results of Operations\n\n(In millions)\n\n| Year Ended\n" in results
    assert "\n| Dec 31, 2023 | Dec 31, 2022\nTotal revenue" in results  # headings over figures
    assert results.rstrip().endswith("Gross margin | 56.9% | 64.9%")


def test_layout_table_wrapping_prose_is_text(doc):
    line = "Acme was founded in 1987 and is headquartered in Springfield."
    assert line in doc.text
    assert not any(line in doc.text[a:b] for a, b in doc.table_spans)


def test_page_furniture_dropped(doc):
    lines = doc.text.split("\n")
    assert "Table of Contents" not in lines
    assert not any(line.strip().isdigit() for line in lines)


def test_merge_cells_rules():
    assert merge_cells(["Revenue", "", "$", "1,234", "", "$", "(56", ")"]) == [
        "Revenue",
        "$1,234",
        "$(56)",
    ]
    assert merge_cells(["Margin", "12.5", "%"]) == ["Margin", "12.5%"]
    assert merge_cells(["Loss", "$", "(", "1,234", ")"]) == ["Loss", "$(1,234)"]  # issue 9
    assert merge_cells(["", " ", ""][:1]) == []


def test_decode_bytes_order():
    assert decode_bytes("Acme’s “quote”".encode("cp1252")) == "Acme’s “quote”"
    assert decode_bytes("naïve ☒".encode()) == "naïve ☒"
    # valid UTF-8 wins over a wrong windows-1252 declaration
    assert decode_bytes("café".encode(), "windows-1252") == "café"
    # Latin-1 declarations are read as windows-1252, like browsers do
    assert decode_bytes(b"\x93hi\x94", "iso-8859-1") == "“hi”"
    # bytes windows-1252 leaves undefined never become U+FFFD
    assert "\ufffd" not in decode_bytes(b"a\x81b\x92c")


def test_xml_declaration_charset_and_c1_references():
    data = (
        b'<?xml version="1.0" encoding="windows-1252"?>'
        b"<html><body><p>Acme\x92s &#147;best&#148;</p></body></html>"
    )
    assert declared_charset(data) == "windows-1252"
    assert load_html(data).text == "Acme’s “best”"


def test_br_breaks_lines_source_newlines_do_not():
    data = b"<html><body><p>one\ntwo<br>three</p><div>four</div></body></html>"
    assert load_html(data).text == "one two\nthree\n\nfour"


def test_unparseable_html_raises_ingest_error():
    with pytest.raises(IngestError):
        load_html(b"")


def test_text_loader_normalises():
    doc = load_text("# Title\r\n\r\n\r\n\r\nBody\xa0text\tline".encode())
    assert doc.text == "# Title\n\nBody text line"
    assert doc.title == "Title"


# --- issue 9, fault 7: odd files read as they are, or refused with the true reason -----------

_PARAS = "".join(
    f"<p>Paragraph {word}: Acme sells widgets to industrial buyers in Ohio.</p>"
    for word in "one two three four five six seven eight".split()
)


def _nested(depth: int) -> bytes:
    """A synthetic filing whose risk-factor text sits ``depth`` divs deep, then more text."""
    deep = "<div>" * depth + "<p>Item 1A. Risk Factors</p><p>Deep risk text.</p>" + "</div>" * depth
    return f"<html><body><p>Cover page.</p>{deep}{_PARAS}</body></html>".encode()


@pytest.mark.parametrize("depth", [300, 3000, 10000])
def test_deeply_nested_html_is_read_whole(depth):
    doc = load_html(_nested(depth))
    assert doc.text.startswith("Cover page.\n\nItem 1A. Risk Factors\n\nDeep risk text.")
    assert doc.text.endswith("Paragraph eight: Acme sells widgets to industrial buyers in Ohio.")


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_html_with_bom_is_read_as_html(codec, settings):
    page = ('<?xml version="1.0" encoding="UTF-16"?><html><head><title>Acme 10-K</title>'
            f"</head><body><p>Acme’s widgets sell well.</p>{_PARAS}</body></html>")
    bom = codecs.BOM_UTF16_LE if codec == "utf-16-le" else codecs.BOM_UTF16_BE
    data = bom + page.encode(codec)
    assert sniff(data, "acme.htm") == "html"
    text = prepare(data, "acme.htm", settings).parsed.text
    assert text.startswith("Acme’s widgets sell well.") and "<p>" not in text


def test_a_few_bytes_of_text_are_refused_as_too_short(settings):
    with pytest.raises(IngestError, match="only 4 word") as err:
        prepare(b"Acme Corp annual report.\n\n", "acme.txt", settings)
    assert "26 bytes" in str(err.value)
