"""Where each web source came from, and the analyst's own additions to the web snapshot.

The bundled snapshot (``settings.snapshot_dir``) holds demo articles written for the
project from memory: their URLs are plausible but unverified, so every place that shows
one (citations, exports, the Library) says "demo article" and marks the URL unverified.
The analyst can add pages they saved from a browser (HTML, Markdown or text) or search
results (Tavily's JSON reply, or a list of ``{url, title, content, published_date}``);
they go to ``settings.saved_web_dir`` and are searched with the snapshot.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from core.foundation.config import Settings
from core.foundation.errors import IngestError
from core.retrieval.web import DEMO, SAVED, WebHit, _articles, normalise_date, save_to_snapshot

NOTES = {
    DEMO: "Demo article written for this project from memory; its URL is unverified.",
    SAVED: "Saved by you to the web snapshot.",
}
SHORT = {DEMO: "demo article · URL unverified", SAVED: "saved by you"}
MIN_WORDS = 20


@dataclass(frozen=True)
class WebSource:
    """One article of the web snapshot (bundled or saved by the analyst)."""

    file: Path
    url: str
    title: str
    date: str | None
    publisher: str | None
    provenance: str  # "demo", "saved" or "" (unlabelled)

    @property
    def note(self) -> str:
        return NOTES.get(self.provenance, "")


def list_sources(settings: Settings) -> list[WebSource]:
    """Every snapshot article: the bundled ones, then the analyst's saved ones."""
    out = []
    for folder, default in ((settings.snapshot_dir, ""), (settings.saved_web_dir, SAVED)):
        for a in _articles(Path(folder), default):
            out.append(WebSource(a.path, a.url, a.title, a.date, a.publisher, a.provenance))
    return out


_CACHE: dict[tuple, dict[str, str]] = {}


def _stamp(folder: Path) -> tuple:
    if not folder.is_dir():
        return (str(folder), None)
    return (str(folder), folder.stat().st_mtime_ns, len(list(folder.glob("*.md"))))


def provenance_of(url: str | None, settings: Settings) -> str:
    """``"demo"``, ``"saved"`` or ``""`` (a live result or unknown) for a web source URL."""
    if not url:
        return ""
    key = (_stamp(Path(settings.snapshot_dir)), _stamp(Path(settings.saved_web_dir)))
    table = _CACHE.get(key)
    if table is None:
        _CACHE.clear()
        table = _CACHE[key] = {s.url: s.provenance for s in list_sources(settings)}
    return table.get(url, "")


def _check_url(url: str) -> str:
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise IngestError(f"The page's address must start with http:// or https:// (got {url!r}).")
    return url


def _page_text(data: bytes, file_name: str) -> str:
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    head = text[:2000].lower()
    if file_name.lower().endswith((".htm", ".html")) or "<html" in head or "<body" in head:
        from bs4 import BeautifulSoup

        soup = BeautifulSoup(text, "lxml")
        for tag in soup(["script", "style", "noscript", "nav", "header", "footer", "form",
                         "svg", "iframe", "img"]):
            tag.decompose()
        blocks = [" ".join(b.get_text(" ").split()) for b in soup.find_all(
            ["p", "li", "h1", "h2", "h3", "blockquote", "td"])]
        text = "\n\n".join(b for b in blocks if b) or " ".join(soup.get_text(" ").split())
    return text.strip()


def _known(settings: Settings) -> set[str]:
    return {s.url for s in list_sources(settings)}


def add_saved_page(settings: Settings, *, data: bytes, file_name: str, url: str,
                   title: str = "", date: str | None = None, publisher: str = "") -> Path:
    """Add a page the analyst saved (HTML, Markdown or text) to the snapshot; its file.

    Raises ``IngestError`` for a bad address, an empty or oversized page, or a URL the
    snapshot already holds."""
    url = _check_url(url)
    if len(data) > settings.max_file_bytes:
        raise IngestError(f"{file_name} is {len(data) / 1024 / 1024:.1f} MiB, over the "
                          f"{settings.max_file_mb:g} MiB limit (raise DTR_MAX_FILE_MB to "
                          "accept it).")
    text = _page_text(data, file_name)
    if len(text.split()) < MIN_WORDS:
        raise IngestError(f"{file_name} holds fewer than {MIN_WORDS} words of text.")
    if url in _known(settings):
        raise IngestError(f"The snapshot already holds {url}.")
    hit = WebHit(url=url, title=title.strip() or file_name, date=normalise_date(date),
                 text=text, source="snapshot", publisher=publisher.strip() or None)
    return save_to_snapshot([hit], settings.saved_web_dir)[0]


def add_search_results(settings: Settings, data: bytes) -> list[Path]:
    """Add saved search results (Tavily's JSON reply or a list of results); the files
    written (results already in the snapshot are skipped). Raises ``IngestError``."""
    try:
        reply = json.loads(data.decode("utf-8", errors="replace"))
    except json.JSONDecodeError as exc:
        raise IngestError(f"Search results must be JSON ({exc.msg}, line {exc.lineno}).") from None
    items = reply.get("results") if isinstance(reply, dict) else reply
    if not isinstance(items, list):
        raise IngestError("Search results must be a list, or an object with a 'results' list.")
    hits = []
    for item in items:
        if not isinstance(item, dict) or not item.get("url"):
            continue
        try:
            url = _check_url(str(item["url"]))
        except IngestError:
            continue
        text = str(item.get("raw_content") or item.get("content") or item.get("text") or "")
        if not text.strip():
            continue
        hits.append(WebHit(url=url, title=str(item.get("title") or ""), text=text,
                           date=normalise_date(item.get("published_date") or item.get("date")),
                           source="snapshot", publisher=item.get("source") or None))
    if not hits:
        raise IngestError("No result with an http(s) URL and some text was found.")
    return save_to_snapshot(hits, settings.saved_web_dir, skip_urls=_known(settings))


def delete_saved(settings: Settings, file_name: str) -> bool:
    """Remove one saved article (never a bundled one); False when there is none."""
    path = Path(settings.saved_web_dir) / Path(file_name).name
    if path.suffix != ".md" or not path.is_file():
        return False
    path.unlink()
    return True
