"""Load filings from EDGAR by ticker into the corpus: what the Library and ``python -m core
fetch`` both call. Listing and downloading are ``core.ingest.edgar``'s (rate-limited, URL
rules kept); each document is ingested as an upload would be, its CIK and ticker taken from
EDGAR when the document itself does not state them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core.foundation.errors import AppError
from core.ingest.edgar import Edgar, EdgarFiling, EdgarUnreachable


@dataclass
class Loaded:
    """What became of one filing."""

    filing: EdgarFiling
    report: object | None = None  # core.app.corpus.IngestReport when it was ingested
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.report is not None


def list_filings(settings, ticker: str, forms: list[str],
                 years: tuple[int, int] | None) -> list[EdgarFiling]:
    """The company's filings on EDGAR (raises FetchError / EdgarUnreachable)."""
    return Edgar(settings).filings(ticker, forms, years)


def load_one(corpus, filing: EdgarFiling, edgar: Edgar | None = None,
             on_stage: Callable[[str], None] | None = None):
    """Download one filing's primary document and ingest it (an IngestReport); its CIK,
    ticker and company from EDGAR where the document states none. Raises AppError."""
    data, name = (edgar or Edgar(corpus.settings)).download(filing)
    return corpus.ingest_bytes(
        data, name, source=filing.archive_url, on_stage=on_stage,
        known={"cik": filing.cik, "ticker": filing.ticker, "company": filing.company})


def load_filings(corpus, filings: list[EdgarFiling],
                 on_progress: Callable[[str, float], None] | None = None,
                 edgar: Edgar | None = None) -> list[Loaded]:
    """Download and ingest ``filings`` one by one. ``on_progress(text, fraction done)`` is
    called as each download and ingest stage starts. A filing that fails is reported and the
    next one tried; EDGAR being unreachable stops the batch (EdgarUnreachable is raised)."""
    edgar = edgar or Edgar(corpus.settings)
    say = on_progress or (lambda _text, _done: None)
    out: list[Loaded] = []
    n = len(filings)
    for i, filing in enumerate(filings):
        head = f"{i + 1} of {n}: {filing.label}"
        say(f"downloading {head}", i / n)
        try:
            report = load_one(
                corpus, filing, edgar,
                on_stage=lambda stage, head=head, i=i: say(f"{stage}: {head}", (i + 0.5) / n))
        except EdgarUnreachable:
            raise
        except AppError as exc:
            out.append(Loaded(filing, error=str(exc)))
            continue
        out.append(Loaded(filing, report=report))
    say(f"done: {sum(o.ok for o in out)} of {n} filings ingested", 1.0)
    return out
