"""Tools that change the corpus: ``ingest``, ``fetch`` and ``delete``.

Each is refused unless the server was started with ``--allow-writes``. They call what the
CLI calls, so the CLI's rules hold: a local file must exist, be a regular file and fit
``DTR_MAX_FILE_MB``, its type is read from its content (``Corpus.ingest_path``); a URL is
http(s), on an allowed host (``DTR_ALLOWED_FETCH_HOSTS``), never a private address, size
and time capped (``core.ingest.fetch``); EDGAR is fetched by ticker through its rate-limited
client (``core.app.edgar_load``). With ``--ingest-dir`` a local file must also lie inside one
of the folders named (symbolic links resolved).
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, Field

from core.mcp.errors import InputError, nearest, read_only, unknown_document
from core.mcp.names import filing_period

_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")


class IngestOut(BaseModel):
    doc_id: str
    file_name: str
    company: str
    form: str
    period: str
    added: bool = Field(description="False: the same file was already in the corpus.")
    chunks: int
    facts: int | None = None
    sections: int = 0
    corrected: list[str] = Field(default_factory=list, description="Fields the options given "
                                 "corrected on a filing already loaded.")
    warnings: list[str] = Field(default_factory=list)


class FetchFailure(BaseModel):
    filing: str
    error: str


class FetchOut(BaseModel):
    listed: list[str] = Field(description="The filings EDGAR lists for the tickers, forms and "
                              "years asked.")
    ingested: list[IngestOut] = Field(default_factory=list)
    failed: list[FetchFailure] = Field(default_factory=list)


class DeleteOut(BaseModel):
    doc_id: str
    file_name: str
    company: str
    deleted: bool


def _writable(service, tool: str) -> None:
    if not service.allow_writes:
        raise read_only(tool)


def _report(report) -> IngestOut:
    m = report.meta
    return IngestOut(doc_id=m.doc_id, file_name=m.file_name, company=m.company,
                     form=m.form_type, period=filing_period(m), added=report.added,
                     chunks=m.n_chunks, facts=report.n_facts, sections=len(m.sections),
                     corrected=list(report.corrected), warnings=list(report.warnings))


def _local(service, text: str) -> Path:
    """The local file ``text`` names, inside an ``--ingest-dir`` when some are named."""
    path = Path(text).expanduser()
    if not service.ingest_roots:
        return path
    real = path.resolve()
    roots = [Path(r).expanduser().resolve() for r in service.ingest_roots]
    if not any(real == r or r in real.parents for r in roots):
        raise InputError(f"{text} is outside the folders this server ingests from "
                         f"({', '.join(str(r) for r in roots)}): copy the file there, or "
                         "start the server with another --ingest-dir.")
    return real


def ingest_of(service, source: str, company: str | None = None, form: str | None = None,
              period: str | None = None) -> IngestOut:
    """Ingest one local file or URL into the corpus."""
    _writable(service, "ingest")
    text = (source or "").strip()
    if not text:
        raise InputError("source is empty: give a file path or an http(s) URL of a filing.")
    options = dict(company=company or None, form_type=form or None, period=period or None)
    if _URL.match(text):  # any scheme: the fetcher takes http(s) only, and says so
        return _report(service.corpus.ingest_url(text, **options))
    return _report(service.corpus.ingest_path(_local(service, text), **options))


def fetch_of(service, tickers: list[str], forms: list[str] | None = None,
             years: str | None = None) -> FetchOut:
    """Download filings from EDGAR by ticker and ingest them."""
    from core.app.edgar_load import list_filings, load_filings
    from core.foundation.errors import AppError
    from core.ingest.edgar import EdgarUnreachable, parse_years

    _writable(service, "fetch")
    if not tickers:
        raise InputError("tickers is empty: give one or more, e.g. ['NVDA'].")
    span = parse_years(years)
    wanted = list(forms or ["10-K"])
    found, failed = [], []
    for ticker in tickers:
        try:
            found += list_filings(service.settings, ticker, wanted, span)
        except EdgarUnreachable:
            raise
        except AppError as exc:  # this company's listing; the others go on
            failed.append(FetchFailure(filing=ticker.upper(), error=str(exc)))
    out = FetchOut(listed=[f.label for f in found], failed=failed)
    if found:
        for item in load_filings(service.corpus, found):
            if item.ok:
                out.ingested.append(_report(item.report))
            else:
                out.failed.append(FetchFailure(filing=item.filing.label, error=item.error))
    return out


def delete_of(service, doc_id: str) -> DeleteOut:
    """Delete one filing and everything kept for it."""
    _writable(service, "delete")
    doc = service.registry.get_document((doc_id or "").strip())
    if doc is None:
        ids = [d.doc_id for d in service.documents()]
        raise unknown_document(doc_id, nearest(doc_id, ids, cutoff=50))
    service.corpus.delete(doc.doc_id)  # chunks, vectors, facts, the original, baseline pieces
    return DeleteOut(doc_id=doc.doc_id, file_name=doc.file_name, company=doc.company,
                     deleted=True)
