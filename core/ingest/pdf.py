"""PDF loader (pypdf): page texts joined by blank lines, each page kept as a ``Page`` span.

Pages are read in pypdf's layout mode; running headers and footers are removed and the
printed page labels they carry kept (``pdf_furniture``); the rest is turned into paragraphs
and table rows by ``pdf_layout``; detected tables are counted and their spans kept for
chunking. ``Page.number`` is the physical page (index + 1), ``Page.label`` the printed one.

Encrypted files with an empty user password (common for filings) are opened with
``decrypt("")``, which needs the ``cryptography`` package for AES. No OCR: a PDF without
extractable text is refused with a message saying it looks scanned.
"""

from __future__ import annotations

import io
import logging
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

from pypdf import PdfReader, apply_configuration
from pypdf.errors import (
    DependencyError,
    FileNotDecryptedError,
    LimitReachedError,
    PdfReadError,
    PyPdfError,
)

from core.foundation.errors import IngestError
from core.foundation.types import Page, ParsedDocument
from core.ingest.pdf_furniture import strip_furniture
from core.ingest.pdf_layout import page_text
from core.ingest.pdf_workers import extract_in_workers
from core.ingest.text import clean_controls

log = logging.getLogger(__name__)
# pypdf reports a damaged file's details ("EOF marker not found") as warnings on the console;
# the ingest says what went wrong in its own one line, so only pypdf's errors pass.
logging.getLogger("pypdf").setLevel(logging.ERROR)

# pypdf refuses arrays and dictionaries of more than 100,000 elements, a guard against
# malicious files; real filings exceed it (Microsoft's 10-Q PDFs hold arrays of ~110,000).
# Raised tenfold: one parsed element costs ~130 bytes in pypdf (measured: a 1,000,000-number
# array peaks at 134 MB), so one object stays under ~150 MB.
MAX_ELEMENTS = 1_000_000


@contextmanager
def reader_limits() -> Iterator[None]:
    """pypdf's safety limits as this loader sets them (see ``MAX_ELEMENTS``)."""
    with apply_configuration(
        array_maximum_element_count=MAX_ELEMENTS, dictionary_maximum_element_count=MAX_ELEMENTS
    ):
        yield


def limit_error(exc: LimitReachedError) -> IngestError:
    """The true reason when one of the PDF reader's safety limits is reached."""
    return IngestError(
        f"The PDF exceeds a safety limit of the PDF reader ({exc}; arrays and dictionaries are "
        f"read up to {MAX_ELEMENTS:,} elements each, to bound memory). The file is not "
        "necessarily corrupted, but it is too large in that respect to read safely: use the "
        "HTML filing instead."
    )


def _open(data: bytes) -> PdfReader:
    try:
        reader = PdfReader(io.BytesIO(data))
    except LimitReachedError as exc:
        raise limit_error(exc) from exc
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
    except LimitReachedError as exc:
        log.warning("PDF page %d: a reader safety limit was reached (%s); page skipped",
                    number, exc)
        return "", False
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError) as exc:
        log.warning("PDF page %d: text extraction failed (%s); page skipped", number, exc)
        return "", False


PARALLEL_MIN_PAGES = 40  # below this, worker start-up (~0.5 s) costs more than it saves
PDFIUM_PARALLEL_MIN_PAGES = 120  # PDFium reads ~0.02 s a page: one worker below this
ENGINES = ("pdfium", "pypdf")
DEFAULT_ENGINE = "pypdf"


def extract_range(data: bytes, start: int, stop: int, engine: str = "pypdf"
                  ) -> list[tuple[str, bool]]:
    """Raw text of pages ``start``..``stop - 1`` (0-based) by pypdf; run by
    core.ingest.pdf_worker (which reads PDFium's pages itself, ``pdf_pdfium``)."""
    if engine != "pypdf":
        raise ValueError(f"extract_range reads with pypdf, not {engine!r}")
    with reader_limits():
        reader = _open(data)
        return [_page_text(reader.pages[i], i + 1) for i in range(start, stop)]


def _ranges(n: int, workers: int) -> list[tuple[int, int]]:
    step = -(-n // workers)
    return [(a, min(a + step, n)) for a in range(0, n, step)]


def _raw_texts(data: bytes, pages: list, min_pages: int | None = None,
               engine: str = "pypdf"):
    """Every page's raw text. pypdf's layout mode is pure Python (~0.1 s a page), so long
    PDFs are split into contiguous page ranges read by one worker process per core; the
    result is identical to reading them in order here, which is the fallback on failure.

    ``engine="pdfium"`` reads the pages with PDFium (``pdf_pdfium``), always in worker
    processes: PDFium is not thread-safe, not even across documents, and this process may
    be the app, rendering a cited page in another thread. Two workers from
    ``PDFIUM_PARALLEL_MIN_PAGES`` pages on; if the workers fail, pypdf reads the pages here."""
    workers = min(os.cpu_count() or 1, 4)
    if engine == "pdfium":
        threshold = PDFIUM_PARALLEL_MIN_PAGES if min_pages is None else min_pages
        n_workers = workers if len(pages) >= threshold else 1
        try:
            got = extract_in_workers(data, _ranges(len(pages), n_workers), engine="pdfium")
        except (OSError, RuntimeError, ValueError, subprocess.TimeoutExpired) as exc:
            log.warning("PDFium extraction failed (%s); reading pages with pypdf", exc)
            got = []
        got += [None] * (len(pages) - len(got))
        return [page or _page_text(pages[i], i + 1) for i, page in enumerate(got[:len(pages)])]
    threshold = PARALLEL_MIN_PAGES if min_pages is None else min_pages
    if len(pages) < threshold or workers < 2:
        return [_page_text(page, n) for n, page in enumerate(pages, start=1)]
    try:
        return extract_in_workers(data, _ranges(len(pages), workers))
    except (OSError, RuntimeError, ValueError, subprocess.TimeoutExpired) as exc:
        log.warning("parallel PDF extraction failed (%s); reading pages in order", exc)
        return [_page_text(page, n) for n, page in enumerate(pages, start=1)]


def load_pdf(data: bytes, engine: str = DEFAULT_ENGINE) -> ParsedDocument:
    """Extract the text of every page; ``pages`` maps 1-based page numbers to text spans.
    ``engine``: what reads the page texts, "pdfium" or "pypdf" (layout mode)."""
    if engine not in ENGINES:
        raise ValueError(f"unknown PDF text engine {engine!r}; choose from {ENGINES}")
    with reader_limits():
        return _load(data, engine)


def _load(data: bytes, engine: str) -> ParsedDocument:
    reader = _open(data)
    try:
        pages = list(reader.pages)
    except LimitReachedError as exc:
        raise limit_error(exc) from exc
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
    raws = _raw_texts(data, pages, engine=engine)
    cleaned, labels = strip_furniture([clean_controls(raw) for raw, _ in raws])
    for number, (raw, (_, layout), label) in enumerate(zip(cleaned, raws, labels,
                                                           strict=True), start=1):
        text, page_tables = page_text(raw, join_wraps=layout)
        if not text:
            continue
        if parts:
            pos += 2  # the blank line between pages
        spans.append(Page(number=number, start=pos, end=pos + len(text), label=label))
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
