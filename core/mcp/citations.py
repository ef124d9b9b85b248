"""Citations as a client receives them: numbered, labelled, each with a link that opens the
chunk in the dashboard's Library (``<dashboard_url>/library?chunk=<id>``, the link the
Search and Peers pages open) and the chunk's MCP resource (``filings://chunks/<id>``).

``Citer`` numbers the chunks a result cites in the order they are first cited (an answer's
own evidence first, when it has one: its ``[n]`` markers are kept), then reads every chunk
cited in one registry call to label it as the dashboard does (company, form, period,
section, the page the filing prints).
"""

from __future__ import annotations

from urllib.parse import quote

from core.foundation.config import Settings
from core.foundation.pages import cited_page, page_ref
from core.foundation.types import Hit
from core.mcp.models import Citation

CHUNK_URI = "filings://chunks/{chunk_id}"
RUN_URI = "filings://runs/{run_id}"
RUN_MARKDOWN_URI = "filings://runs/{run_id}/markdown"


def library_url(settings: Settings, chunk_id: str) -> str | None:
    """The dashboard link that opens ``chunk_id`` in the Library (None: no dashboard URL)."""
    base = (settings.dashboard_url or "").rstrip("/")
    return f"{base}/library?chunk={quote(chunk_id, safe='')}" if base else None


def dashboard_url(settings: Settings, page: str, **query: str) -> str | None:
    """A dashboard page's link ('runs', run='...'); None without a dashboard URL."""
    base = (settings.dashboard_url or "").rstrip("/")
    if not base:
        return None
    args = "&".join(f"{k}={quote(v, safe='')}" for k, v in query.items())
    return f"{base}/{page}" + (f"?{args}" if args else "")


def chunk_citation(settings: Settings, n: int, chunk, document,
                   at: tuple[int | None, str | None] | None = None) -> Citation:
    """The citation of one chunk (``document``: its filing, or None when it is gone), at the
    page ``at`` (page, printed number) of what it is cited for: a figure's row on a later
    page of the chunk is cited at that page, as its source says."""
    if at is not None:
        page, label = cited_page(chunk, *at)
        chunk = chunk.model_copy(update={"page": page, "page_label": label})
    hit = Hit(chunk=chunk, document=document)
    return Citation(
        n=n, chunk_id=chunk.chunk_id, doc_id=chunk.doc_id, label=hit.citation_label,
        company=document.company if document else "", form=document.form_type if document
        else "", period=document.period if document else "", section=chunk.section,
        page=page_ref(chunk.page, chunk.page_label, short=True),
        library_url=library_url(settings, chunk.chunk_id),
        resource=CHUNK_URI.format(chunk_id=chunk.chunk_id))


class Citer:
    """Numbers and labels what a result cites (see the module docstring)."""

    def __init__(self, service, evidence: list | None = None):
        self._service = service
        self.settings = service.settings
        self._ids: list[str] = []
        self._chunks: dict[str, object] = {}
        self._evidence = {ev.id: ev for ev in evidence or []}
        self._rows: dict[str, tuple[int | None, str | None]] = {}
        """Chunk id -> the page (and printed number) of the first figure cited in it."""
        for ev in evidence or []:
            self.number(ev.id)

    def number(self, chunk_id: str | None) -> int | None:
        """The citation number of ``chunk_id`` (given one on first use); None for none."""
        if not chunk_id:
            return None
        if chunk_id not in self._ids:
            self._ids.append(chunk_id)
        return self._ids.index(chunk_id) + 1

    def marker(self, chunk_id: str | None) -> str:
        """'[n]' for ``chunk_id`` ('' for none), as answers write citations."""
        n = self.number(chunk_id)
        return f"[{n}]" if n else ""

    def _read(self, ids: list[str]) -> dict:
        """The chunks ``ids`` (read once)."""
        missing = [i for i in ids if i not in self._chunks]
        if missing:
            found = {c.chunk_id: c for c in self._service.facts.get_chunks(missing)}
            self._chunks.update({i: found.get(i) for i in missing})
        return {i: self._chunks[i] for i in ids if self._chunks.get(i) is not None}

    def page_of(self, fact) -> str:
        """Where ``fact`` is printed, as the Library says it: the filing's page number
        ('p. 54'), from its chunk's when the fact has none, else 'PDF p. 55'."""
        from core.foundation.pages import label_for

        label = fact.page_label
        if not label and fact.page and fact.chunk_id:
            chunk = self._read([fact.chunk_id]).get(fact.chunk_id)
            if chunk is not None:
                label = label_for(fact.page, chunk.page, chunk.page_label)
        if fact.chunk_id and fact.page:
            self._rows.setdefault(fact.chunk_id, (fact.page, label))
        return page_ref(fact.page, label, short=True)

    def citations(self) -> list[Citation]:
        """Every citation numbered so far, in number order."""
        settings = self.settings
        web = {i for i, ev in self._evidence.items() if ev.kind == "web"}
        chunks = self._read([i for i in self._ids if i not in web])
        docs = {d.doc_id: d for d in self._service.documents()}
        out = []
        for n, cid in enumerate(self._ids, start=1):
            ev = self._evidence.get(cid)
            if cid in web:
                out.append(Citation(n=n, label=ev.label or ev.title or cid, url=ev.url or cid,
                                    title=ev.title, date=ev.date))
            elif cid in chunks:
                chunk = chunks[cid]
                at = (ev.page, ev.page_label) if ev is not None else self._rows.get(cid)
                out.append(chunk_citation(settings, n, chunk, docs.get(chunk.doc_id), at))
            else:  # the filing was deleted since: said, the number kept
                label = ev.label if ev is not None else cid
                out.append(Citation(n=n, chunk_id=cid, label=f"{label} (no longer loaded)",
                                    doc_id=ev.doc_id if ev is not None else None))
        return out
