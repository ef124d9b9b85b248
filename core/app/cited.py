"""What an answer's [n] points to: the cited passage, where it lives, and the cited sentence.

``claims_by_marker`` reads, for every marker, the answer text it backs (the sentence
or quotation just before it); ``best_span`` finds that text in the cited chunk (exact
on letters and digits, else the chunk sentence sharing most of its words), so a UI
can highlight it; ``resolve_citation`` gathers the passage from the corpus (chunk,
document, section neighbours, page and printed page label, the kept original file),
or from the run's stored evidence when the corpus no longer holds it (web pages, the
baseline's fixed-size chunks, deleted filings).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from core.foundation.config import Settings
from core.foundation.pages import cited_page, page_ref
from core.foundation.types import Chunk, DocumentMeta
from core.retrieval.web_saved import provenance_of
from core.store.files import is_pdf, original_path

MARKER = re.compile(r"\[(\d+)\]")
_SENTENCE_END = re.compile(r"(?<=[.!?;:])[\"”’)]*\s+")
_QUOTE = re.compile(r"[“\"]([^”\"]{12,})[”\"]")
_WORDS = re.compile(r"[a-z0-9$%]+(?:[.,][0-9]+)*")
_STOP = frozenset("""a an and are as at be by for from has have in is it its of on or that the
their they this to was we were which will with our not may can""".split())
_ALNUM = re.compile(r"[0-9A-Za-z]")
MIN_OVERLAP = 0.5  # share of the claim's words a chunk sentence must hold to be "the" sentence


def squeeze(text: str) -> tuple[str, list[int]]:
    """Lower-case letters and digits of ``text`` and, for each, its index in ``text``."""
    chars, index = [], []
    for i, ch in enumerate(text):
        if _ALNUM.match(ch):
            chars.append(ch.lower())
            index.append(i)
    return "".join(chars), index


def claims_by_marker(answer: str) -> dict[int, list[str]]:
    """For each [n] of ``answer``, the pieces of answer text it backs, in order.

    A marker backs the quotation just before it when there is one, else the last
    sentence before it (markers right after a sentence's full stop count for it)."""
    out: dict[int, list[str]] = {}
    for para in answer.split("\n"):
        last = 0
        pending = ""
        for m in MARKER.finditer(para):
            before = para[last:m.start()]
            if before.strip():
                pending = _claim(before)
            if pending:
                out.setdefault(int(m.group(1)), []).append(pending)
            last = m.end()
    return out


def _claim(text: str) -> str:
    quotes = _QUOTE.findall(text)
    if quotes:
        return quotes[-1].strip()
    pieces = [p.strip(" —–-") for p in _SENTENCE_END.split(text.strip()) if p.strip(" —–-")]
    return pieces[-1] if pieces else ""


def _words(text: str) -> set[str]:
    return {w for w in _WORDS.findall(text.lower()) if w not in _STOP}


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text``."""
    spans, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        if m.start() > start:
            spans.append((start, m.start()))
        start = m.end()
    if start < len(text) and text[start:].strip():
        spans.append((start, len(text.rstrip())))
    return spans


def best_span(claim: str, text: str) -> tuple[int, int] | None:
    """Where ``claim`` is in ``text``: its exact place (letters and digits compared), else
    the sentence of ``text`` holding the largest share (>= 0.5) of the claim's words."""
    if not claim.strip() or not text.strip():
        return None
    needle, _ = squeeze(claim)
    hay, index = squeeze(text)
    if needle and len(needle) >= 12:
        at = hay.find(needle)
        if at >= 0:
            return index[at], index[at + len(needle) - 1] + 1
    want = _words(claim)
    if not want:
        return None
    best, best_score = None, 0.0
    for start, end in sentence_spans(text):
        score = len(want & _words(text[start:end])) / len(want)
        if score > best_score:
            best, best_score = (start, end), score
    return best if best_score >= MIN_OVERLAP else None


@dataclass
class CitedPassage:
    """Citation [n] resolved: the passage, where it lives, and the part to highlight."""

    n: int
    kind: Literal["chunk", "web", "stored", "missing"]
    evidence_id: str
    text: str = ""
    claim: str = ""
    highlight: tuple[int, int] | None = None
    source: str = ""
    section: str = ""
    page: int | None = None
    page_end: int | None = None
    page_label: str | None = None
    context: str = ""
    url: str = ""
    date: str = ""
    chunk: Chunk | None = None
    document: DocumentMeta | None = None
    neighbours: list[Chunk] = field(default_factory=list)
    original: Path | None = None
    provenance: str = ""  # web: "demo" (URL unverified), "saved" (by the analyst) or ""

    @property
    def unverified(self) -> bool:
        """A demo article written for the project: its URL was never checked."""
        return self.provenance == "demo"

    @property
    def web_where(self) -> str:
        """'2024-01-30 · https://... (unverified)' for a web source."""
        url = f"{self.url} (unverified)" if self.url and self.unverified else self.url
        return " · ".join(x for x in (self.date or "undated", url) if x)

    @property
    def is_pdf(self) -> bool:
        return is_pdf(self.original)

    @property
    def where(self) -> str:
        """'Item 1A. Risk Factors · page 23' (the printed label when known, else 'PDF page
        24': ``core.foundation.pages.page_ref``, as every view says it)."""
        parts = [self.section] if self.section else []
        where = page_ref(self.page, self.page_label)
        return " · ".join([*parts, where] if where else parts)


def document_name(doc: DocumentMeta | None) -> str:
    """'NVIDIA CORP 10-K FY2023' (file name when the company is unknown)."""
    if doc is None:
        return ""
    name = doc.company if doc.company != "unknown" else doc.file_name
    form = f" {doc.form_type}" if doc.form_type != "unknown" else ""
    period = f" {doc.period}" if doc.period != "unknown" else ""
    return f"{name}{form}{period}"


def stored_evidence(record: Any, evidence_id: str) -> dict[str, Any] | None:
    """The evidence ``evidence_id`` as saved with a run record (or a hit's stored preview)."""
    if record is None:
        return None
    answer = getattr(record, "answer", None)
    evidence = list(record.evidence) or (list(answer.evidence) if answer else [])
    for ev in evidence:
        if ev.id == evidence_id or ev.url == evidence_id:
            return ev.model_dump()
    for event in record.events:
        for hit in getattr(event, "hits", []) or []:
            if hit.id == evidence_id:
                return {"id": hit.id, "kind": hit.kind, "label": hit.label, "title": hit.label,
                        "date": hit.date, "section": hit.section, "page": hit.page,
                        "page_label": getattr(hit, "page_label", None),
                        "url": hit.url, "text": hit.text}
    return None


def resolve_citation(store: Any, settings: Settings, citation: dict[str, Any], *,
                     answer: str = "", record: Any = None, radius: int = 1) -> CitedPassage:
    """Citation ``{n, evidence_id, kind, label, url}`` resolved against the corpus first,
    then the run's stored evidence; ``radius`` neighbouring chunks of the section are read
    on each side (0: none)."""
    n = int(citation.get("n") or 0)
    eid = str(citation.get("evidence_id") or "")
    claims = claims_by_marker(answer).get(n, [])
    claim = claims[0] if claims else ""
    found = store.get_chunks([eid]) if citation.get("kind") != "web" and eid else []
    if found:
        chunk = found[0]
        doc = store.get_document(chunk.doc_id)
        section = store.chunks(chunk.doc_id, chunk.section) if radius else [chunk]
        ids = [c.chunk_id for c in section]
        i = ids.index(chunk.chunk_id) if chunk.chunk_id in ids else 0
        kept = stored_evidence(record, eid) or {}
        page, label = cited_page(chunk, kept.get("page"), kept.get("page_label"))
        return CitedPassage(
            n=n, kind="chunk", evidence_id=eid, text=chunk.text, claim=claim,
            highlight=best_span(claim, chunk.text), source=document_name(doc) or chunk.doc_id,
            section=chunk.section, page=page, page_end=chunk.page_end, page_label=label,
            context=chunk.context, chunk=chunk, document=doc,
            neighbours=section[max(0, i - radius): i + radius + 1] if section else [chunk],
            original=original_path(settings, doc) if doc else None)
    stored = stored_evidence(record, eid)
    if stored is None:
        return CitedPassage(n=n, kind="missing", evidence_id=eid, claim=claim,
                            source=str(citation.get("label") or eid))
    text = stored.get("text") or ""
    web = citation.get("kind") == "web" or stored.get("kind") == "web"
    url = str(stored.get("url") or citation.get("url") or (eid if web else ""))
    return CitedPassage(
        n=n, kind="web" if web else "stored", evidence_id=eid, text=text, claim=claim,
        highlight=best_span(claim, text),
        source=str(stored.get("title") or stored.get("label") or citation.get("label") or eid),
        section="" if web else str(stored.get("section") or ""), page=stored.get("page"),
        page_label=stored.get("page_label"),
        url=url, date=str(stored.get("date") or ""),
        provenance=provenance_of(url, settings) if web else "")
