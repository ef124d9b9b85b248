"""prepare(): bytes -> validated, parsed, sectioned and chunked document, ready to store."""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from core.foundation.config import Settings
from core.foundation.errors import IngestError
from core.foundation.types import Chunk, DocumentMeta, Fact, ParsedDocument
from core.ingest.chunking import chunk_document
from core.ingest.html import load_html
from core.ingest.meta import UNKNOWN, edgar_header, form_from, read_facts, safe_file_name
from core.ingest.pdf import load_pdf
from core.ingest.sections import detect_sections
from core.ingest.sniff import sniff
from core.ingest.statements import relocate_statements
from core.ingest.text import load_text

log = logging.getLogger(__name__)
_LOADERS = {"pdf": load_pdf, "html": load_html, "text": load_text}


@dataclass
class Prepared:
    """A document ready for the store: its metadata, its chunks, seconds per stage."""

    meta: DocumentMeta
    chunks: list[Chunk]
    timings: dict[str, float] = field(default_factory=dict)
    parsed: ParsedDocument | None = None
    facts: list[Fact] | None = field(default=None)
    """Financial facts (``core.ingest.facts``); None when extraction failed (or, after
    ``prepare(..., facts_later=True)``, until :meth:`read_facts` ran)."""
    warnings: list[str] = field(default_factory=list)

    def read_facts(self, data: bytes | None) -> list[Fact] | None:
        """The "facts" stage, run on its own (``prepare(..., facts_later=True)``): extracts
        the facts into ``facts``, adds a warning on failure, times itself; never raises."""
        if self.parsed is None:
            return self.facts
        t0 = time.perf_counter()
        self.facts, warnings = facts_of(self.meta, self.parsed, self.chunks, data)
        self.warnings.extend(warnings)
        self.timings["facts"] = time.perf_counter() - t0
        return self.facts


def _check_size(data: bytes, name: str, settings: Settings) -> None:
    if not data:
        raise IngestError(f"'{name}' is empty (0 bytes). Check that the upload or download worked.")
    if len(data) > settings.max_file_bytes:
        raise IngestError(
            f"'{name}' is {len(data) / 1024 / 1024:.1f} MiB, over the "
            f"{settings.max_file_mb:g} MiB limit. Raise the limit with DTR_MAX_FILE_MB "
            "or upload a smaller file."
        )


MIN_WORDS = 30  # a 10-Q runs to thousands of words; a few dozen is not a filing


def parse(data: bytes, file_name: str = "", pdf_text: str | None = None) -> ParsedDocument:
    """Sniff the type by content and run its loader; refuse a document without text, or
    with so little that it cannot be a filing (a stub, a truncated save). ``pdf_text``:
    what reads a PDF's pages (``Settings.pdf_text``; default ``core.ingest.pdf``'s)."""
    kind = sniff(data, file_name)
    doc = load_pdf(data, pdf_text) if kind == "pdf" and pdf_text else _LOADERS[kind](data)
    what = {"html": "HTML", "text": "text file"}.get(kind, kind.upper())
    if not doc.text.strip():
        raise IngestError(
            f"The {what} '{file_name}' holds no readable text after cleaning. "
            "Check that it is the filing itself (not an index page or an empty export)."
        )
    words = len(doc.text.split())
    if words < MIN_WORDS:
        raise IngestError(
            f"The {what} '{file_name}' holds only {words} word(s) of text ({len(data):,} "
            f"bytes): too little to be a filing (at least {MIN_WORDS} words are expected; a "
            "10-K or 10-Q runs to thousands). Check that the whole file was saved or uploaded."
        )
    return doc


def reparse(data: bytes, file_name: str, chunks: list, pdf_text: str | None = None
            ) -> ParsedDocument:
    """The document parsed again as it was when its ``chunks`` were cut (their offsets
    point into this text): a PDF is read by the engine ``pdf_text`` names first, then by
    the others, until the chunks' texts sit where they say. Facts linked to chunks of another
    parse would cite the chunk beside their row. ``IngestError`` when no engine gives the
    chunks back (the original changed): ingest the file again."""
    from core.ingest.pdf import ENGINES

    first = parse(data, file_name, pdf_text)
    if sniff(data, file_name) != "pdf" or _holds(first.text, chunks):
        return first
    for engine in ENGINES:
        if engine != pdf_text:
            other = parse(data, file_name, engine)
            if _holds(other.text, chunks):
                return other
    raise IngestError(
        f"'{file_name}' no longer parses to the text its chunks were cut from (its kept "
        "original or the PDF reader changed); ingest the file again to extract its facts.")


def _holds(text: str, chunks: list, sample: int = 24) -> bool:
    """Whether ``chunks`` (a spread sample of them) sit in ``text`` at their offsets."""
    if not chunks:
        return True
    step = max(1, len(chunks) // sample)
    return all(text[c.start:c.end].strip() == c.text.strip() for c in chunks[::step])


def prepare(
    data: bytes,
    file_name: str,
    settings: Settings,
    *,
    company: str | None = None,
    form_type: str | None = None,
    period: str | None = None,
    source: str = "",
    on_stage: Callable[[str], None] | None = None,
    facts_later: bool = False,
) -> Prepared:
    """Validate, parse, find sections and chunk one file (nothing is stored here).

    Explicit company/form_type/period win over iXBRL dei facts and the EDGAR header, which
    win over the cover text (``meta``); what stays unknown is "unknown". Ticker, former
    names and the period's end date are read the same way. Raises IngestError with an
    actionable message.
    ``on_stage`` is called with "parse", "sections", "chunk" and "facts" as each stage
    starts. A failure to extract facts never fails the ingest: ``Prepared.facts`` is None
    (not extracted) and a warning says why (``Prepared.warnings``). ``facts_later``: the
    facts stage is left to the caller (``Prepared.read_facts``), which can run it while the
    chunks embed.
    """
    stage = on_stage or (lambda _name: None)
    name = safe_file_name(file_name)
    _check_size(data, name, settings)
    timings: dict[str, float] = {}

    stage("parse")
    t0 = time.perf_counter()
    doc = parse(data, name, settings.pdf_text)
    timings["parse"] = time.perf_counter() - t0

    header = edgar_header(data)
    form = form_type or form_from(doc.dei, doc.text, header)
    stage("sections")
    t0 = time.perf_counter()
    sections = detect_sections(doc.text, form, doc.pages)
    if not (form or "").upper().startswith("10-Q"):
        sections = relocate_statements(doc.text, sections, doc.table_spans)
    timings["sections"] = time.perf_counter() - t0

    doc_id = hashlib.sha256(data).hexdigest()[:16]
    stage("chunk")
    t0 = time.perf_counter()
    chunks = chunk_document(doc, sections, doc_id, settings)
    timings["chunk"] = time.perf_counter() - t0
    if not chunks:
        raise IngestError(
            f"'{name}' produced no usable text chunks (only boilerplate). "
            "Check that it is the filing itself."
        )

    facts = read_facts(doc.dei, doc.text, header, form)
    meta = DocumentMeta(
        doc_id=doc_id,
        file_name=name,
        company=company or facts.company or UNKNOWN,
        form_type=form or UNKNOWN,
        period=period or facts.period or UNKNOWN,
        period_end=facts.period_end,
        ticker=facts.ticker,
        cik=facts.cik,
        former_names=facts.former_names,
        sections=list(dict.fromkeys(s.title for s in sections)),
        n_chunks=len(chunks),
        n_tables=doc.tables,
        n_pages=max((p.number for p in doc.pages), default=0),
        source=source,
        size_bytes=len(data),
        ingested_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    prepared = Prepared(meta=meta, chunks=chunks, timings=timings, parsed=doc)
    if not facts_later:
        stage("facts")
        prepared.read_facts(data)
    return prepared


def facts_of(meta: DocumentMeta, doc: ParsedDocument, chunks: list[Chunk],
             data: bytes | None) -> tuple[list[Fact] | None, list[str]]:
    """``extract_facts`` that never raises: on failure, None (not extracted) and a warning."""
    from core.ingest.facts import extract_facts

    try:
        return extract_facts(meta, doc, chunks, data), []
    except Exception as exc:  # noqa: BLE001 - a bad table must not cost the filing
        log.warning("facts of %s could not be extracted: %s", meta.file_name, exc,
                    exc_info=True)
        return None, [f"Financial facts could not be extracted from {meta.file_name} "
                    f"({type(exc).__name__}: {exc}); the filing is searchable, but figures "
                    "will not be looked up in it. `python -m core facts --rebuild "
                    f"{meta.doc_id}` retries."]
