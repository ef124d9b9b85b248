"""PDF loader (pypdf): page texts joined by blank lines, each page kept as a ``Page`` span.

Encrypted files with an empty user password (common for filings) are opened with
``decrypt("")``, which needs the ``cryptography`` package for AES. No OCR: a PDF without
extractable text is refused with a message saying it looks scanned.
"""

from __future__ import annotations

import io
import logging
import re

from pypdf import PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError, PdfReadError, PyPdfError

from core.errors import IngestError
from core.ingest.text import clean_lines, is_furniture, repair_replacement_chars
from core.types import Page, ParsedDocument

log = logging.getLogger(__name__)
_HYPHEN_BREAK = re.compile(r"(?<=[a-z])-\n(?=[a-z])")


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


def _page_text(page, number: int) -> str:
    try:
        text = page.extract_text() or ""
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError) as exc:
        log.warning("PDF page %d: text extraction failed (%s); page skipped", number, exc)
        return ""
    lines = clean_lines(_HYPHEN_BREAK.sub("", text)).split("\n")
    while lines and is_furniture(lines[0]):  # "Table of Contents" link at the top
        lines.pop(0)
    while lines and is_furniture(lines[-1]):  # the page number at the bottom
        lines.pop()
    return repair_replacement_chars("\n".join(lines).strip())


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
    pos = 0
    for number, page in enumerate(pages, start=1):
        text = _page_text(page, number)
        if not text:
            continue
        if parts:
            pos += 2  # the blank line between pages
        spans.append(Page(number=number, start=pos, end=pos + len(text)))
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
    return ParsedDocument(text="\n\n".join(parts), pages=spans, title=str(title) if title else None)
