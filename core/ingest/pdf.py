"""PDF loader (pypdf): page texts joined by blank lines, each page kept as a ``Page`` span.

Pages are read in pypdf's layout mode and turned into paragraphs and table rows by
``pdf_layout``; detected tables are counted and their spans kept for chunking.

Encrypted files with an empty user password (common for filings) are opened with
``decrypt("")``, which needs the ``cryptography`` package for AES. No OCR: a PDF without
extractable text is refused with a message saying it looks scanned.
"""

from __future__ import annotations

import io
import logging

from pypdf import PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError, PdfReadError, PyPdfError

from core.errors import IngestError
from core.ingest.pdf_layout import page_text
from core.ingest.text import clean_controls
from core.types import Page, ParsedDocument

log = logging.getLogger(__name__)


def _open(data: bytes) -> PdfReader:
    try:
        reader = PdfReader(io.BytesIO(data))
    except (PdfReadError, PyPdfError, ValueError, OSError) as exc:
        raise IngestError(
            f"The PDF is corrupted or incomplete and could not be opened ({exc}). "
            "Download it again or upload the HTML version of the filing."
        ) from exc
    if reader.is_encrypted:
        try:
            ok = reader.decrypt("")
        except DependencyError as exc:
            raise IngestError(
                "The PDF is AES-encrypted and opening it needs the 'cryptography' package: "
                "install it (pip install cryptography) and try again."
            ) from exc
        if not ok:
            raise IngestError(
                "The PDF is password-protected. Remove the password (or export an unprotected "
                "copy) and upload it again."
            )
    return reader


def _page_text(page, number: int) -> tuple[str, bool]:
    """Layout-mode text (words whole, columns aligned); plain mode if layout fails or is empty
    (pypdf's layout mode returns nothing for some pages that plain mode reads)."""
    try:
        text = page.extract_text(extraction_mode="layout", layout_mode_space_vertically=False)
        if text.strip():
            return text, True
    except Exception as exc:  # noqa: BLE001 - pypdf raises many types on odd pages
        log.info("PDF page %d: layout extraction failed (%s); using plain mode", number, exc)
    try:
        return page.extract_text() or "", False
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError) as exc:
        log.warning("PDF page %d: text extraction failed (%s); page skipped", number, exc)
        return "", False


def load_pdf(data: bytes) -> ParsedDocument:
    """Extract the text of every page; ``pages`` maps 1-based page numbers to text spans."""
    reader = _open(data)
    try:
        pages = list(reader.pages)
    except (FileNotDecryptedError, PdfReadError, PyPdfError, ValueError, KeyError) as exc:
        raise IngestError(
            f"The PDF's page tree is corrupted ({exc}). Download it again or use the HTML filing."
        ) from exc
    if not pages:
        raise IngestError("The PDF has no pages. Download it again or use the HTML filing.")
    parts: list[str] = []
    spans: list[Page] = []
    tables: list[tuple[int, int]] = []
    pos = 0
    for number, page in enumerate(pages, start=1):
        raw, layout = _page_text(page, number)
        text, page_tables = page_text(clean_controls(raw), join_wraps=layout)
        if not text:
            continue
        if parts:
            pos += 2  # the blank line between pages
        spans.append(Page(number=number, start=pos, end=pos + len(text)))
        tables.extend((pos + a, pos + b) for a, b in page_tables)
        parts.append(text)
        pos += len(text)
    if not parts:
        raise IngestError(
            f"The PDF's {len(pages)} page(s) hold no extractable text: it looks scanned "
            "(images of pages). OCR is not supported; upload the EDGAR HTML or a text PDF."
        )
    title = None
    try:
        title = (reader.metadata or {}).get("/Title") or None
    except (PyPdfError, ValueError, KeyError, TypeError):
        title = None
    return ParsedDocument(
        text="\n\n".join(parts),
        pages=spans,
        tables=len(tables),
        table_spans=tables,
        title=str(title) if title else None,
    )
