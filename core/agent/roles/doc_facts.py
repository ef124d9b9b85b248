"""Facts about a filing the agent uses beyond its registry record: ticker and period end.

``DocumentMeta`` holds company, form and period ("FY2023"); the cover page also
states the trading symbol and the exact period end ("For the fiscal year ended
January 29, 2023"). ``cover_facts`` reads both from the first chunks' text so
the rewriter can drop a ticker from a document-filtered query and a web step can
search news published after the filing's period. ``company_words`` gives the
distinctive words of a company name ("NVIDIA CORP" -> ["NVIDIA"]).
"""

from __future__ import annotations

import re
from datetime import timedelta

from pydantic import BaseModel, Field

from core.ingest.meta import parse_date

COVER_CHUNKS = 3
_PERIOD_END = re.compile(
    r"for\s+the\s+(?:fiscal\s+year|quarterly\s+period|year|period)\s+ended\s+"
    r"([A-Z][a-z]+\.?\s+\d{1,2},?\s+\d{4}|\d{4}-\d{2}-\d{2})", re.IGNORECASE)
_SYMBOL_ROW = re.compile(r"trading\s+symbols?(?:\(s\))?[^\n]*\n([^\n]+)", re.IGNORECASE)
_SYMBOL_WORDS = re.compile(r"(?:under\s+the\s+(?:ticker\s+)?symbol|ticker(?:\s+symbol)?|"
                           r"trading\s+symbol)[\s:]+[\"“']?([A-Z]{1,5})\b")
_CORPORATE = frozenset("""inc incorporated corp corporation company co ltd limited plc llc lp
    holdings holding group sa nv ag se the and of""".split())


class DocFacts(BaseModel):
    """What the cover page says beyond the registry record."""

    ticker: str | None = Field(default=None, description="Trading symbol, e.g. NVDA.")
    period_end: str | None = Field(default=None, description="Period end, ISO YYYY-MM-DD.")

    def after_period(self) -> str | None:
        """The day after the period end (ISO), for "post-filing" date filters."""
        if not self.period_end:
            return None
        end = parse_date(self.period_end)
        return (end + timedelta(days=1)).isoformat() if end else None


def cover_facts(text: str) -> DocFacts:
    """Ticker and period end from cover-page text (None where the cover does not say)."""
    end = None
    found = _PERIOD_END.search(text)
    if found:
        day = parse_date(found.group(1))
        end = day.isoformat() if day else None
    ticker = None
    row = _SYMBOL_ROW.search(text)
    if row:
        cells = [c.strip() for c in row.group(1).split("|")]
        ticker = next((c for c in cells if re.fullmatch(r"[A-Z]{1,5}", c)), None)
    if ticker is None:
        words = _SYMBOL_WORDS.search(text)
        ticker = words.group(1) if words else None
    return DocFacts(ticker=ticker, period_end=end)


def read_facts(store, doc_ids: list[str]) -> dict[str, DocFacts]:
    """``cover_facts`` of each document's first chunks (ids ``{doc_id}-00000`` ...)."""
    out: dict[str, DocFacts] = {}
    get = getattr(store, "get_chunks", None)
    if get is None:
        return out
    for doc_id in doc_ids:
        chunks = get([f"{doc_id}-{i:05d}" for i in range(COVER_CHUNKS)])
        facts = cover_facts("\n".join(c.text for c in chunks))
        if facts.ticker or facts.period_end:
            out[doc_id] = facts
    return out


def company_words(company: str, limit: int = 2) -> list[str]:
    """Distinctive words of a company name, corporate suffixes dropped."""
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z&]+", company or "")
             if w.lower() not in _CORPORATE and w.lower() != "unknown"]
    return words[:limit]
