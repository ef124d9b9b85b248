"""Web search providers: Tavily online, a local snapshot of dated articles offline.

``get_web_search(settings)`` picks one (``"auto"``: Tavily when a key is set,
else the snapshot folder when it holds articles, else none). All providers
share one call shape: ``.name`` for the UI and ``.search(query, k=5, *,
after=None) -> list[WebHit]``. Results fetched online can be saved into the
snapshot (``save_to_snapshot``) so a demo replays offline.

Snapshot articles are Markdown files with a front-matter header::

    ---
    url: https://example.com/news/1
    title: Something happened
    date: 2024-08-19
    source: Example News
    provenance: demo
    ---
    Body paragraphs...

``provenance`` says where an article came from: ``demo`` (written for the project,
its URL unverified: the bundled articles), ``saved`` (a page or search result the
analyst added, see ``core.retrieval.web_saved``). A demo article's publisher is
returned as ``"<publisher> · demo article"`` so every label built from it says so.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from datetime import date, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, Field
from rank_bm25 import BM25Okapi

from core.foundation.config import Settings
from core.foundation.errors import RetrievalError
from core.store.tokenize import tokenize


class WebHit(BaseModel):
    """One web result, from Tavily or the local snapshot."""

    url: str = Field(description="Address of the article.")
    title: str = Field(default="", description="Article title.")
    date: str | None = Field(default=None, description="Publication date, ISO YYYY-MM-DD if known.")
    text: str = Field(default="", description="Article text or its most relevant passages.")
    score: float = Field(default=0.0, description="Provider relevance score (higher is better).")
    source: Literal["tavily", "snapshot"] = Field(description="Provider that returned the hit.")
    publisher: str | None = Field(default=None, description="Publisher, e.g. 'Reuters'.")


class WebSearch(Protocol):
    """A web search provider."""

    name: str

    def search(self, query: str, k: int = 5, *, after: str | None = None) -> list[WebHit]: ...


def normalise_date(value: object) -> str | None:
    """ISO ``YYYY-MM-DD`` from a date, ISO string or RFC 2822 string; ``None`` if unknown."""
    if value in (None, ""):
        return None
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    text = str(value).strip()
    m = re.match(r"(\d{4})-(\d{2})-(\d{2})", text)
    if m:
        return "-".join(m.groups())
    try:
        return parsedate_to_datetime(text).date().isoformat()
    except (TypeError, ValueError, IndexError):
        return None


def _check_k(k: int) -> None:
    if k <= 0:
        raise RetrievalError(f"k must be greater than 0 (got {k}).")


class NoWebSearch:
    """No web provider configured: every search returns nothing."""

    name = "none"

    def search(self, query: str, k: int = 5, *, after: str | None = None) -> list[WebHit]:
        """Return an empty list (web search is off)."""
        _check_k(k)
        return []


# --- snapshot ----------------------------------------------------------------


class _LuceneBM25(BM25Okapi):
    """BM25Okapi with Lucene's IDF, log(1 + (N - n + 0.5) / (n + 0.5)), which stays
    positive: Okapi's IDF turns negative for a term in over half the passages, and a
    snapshot of a few articles about one company has many such terms."""

    def _calc_idf(self, nd: dict[str, int]) -> None:
        self.idf = {
            word: math.log(1 + (self.corpus_size - freq + 0.5) / (freq + 0.5))
            for word, freq in nd.items()
        }

_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*\n?(.*)\Z", re.DOTALL)


def parse_article(text: str) -> tuple[dict[str, str], str]:
    """Split a Markdown article into (front-matter fields, body). Values may be JSON-quoted."""
    m = _FRONT.match(text.lstrip("\ufeff"))
    if not m:
        return {}, text
    meta: dict[str, str] = {}
    for line in m.group(1).splitlines():
        key, sep, value = line.partition(":")
        if not sep or not key.strip():
            continue
        value = value.strip()
        if value.startswith('"'):
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                value = value.strip('"')
        elif value.startswith("'") and value.endswith("'"):
            value = value[1:-1]
        meta[key.strip().lower()] = str(value)
    return meta, m.group(2)


@dataclass(frozen=True)
class _Article:
    path: Path
    url: str
    title: str
    date: str | None
    publisher: str | None
    passages: tuple[str, ...]
    provenance: str = ""


def _passages(body: str, min_chars: int = 200) -> tuple[str, ...]:
    """Paragraphs of the body, short ones merged with the next (headings, one-liners)."""
    paras = [p.strip() for p in re.split(r"\n\s*\n", body) if p.strip()]
    out: list[str] = []
    buf = ""
    for p in paras:
        buf = f"{buf}\n\n{p}" if buf else p
        if len(buf) >= min_chars:
            out.append(buf)
            buf = ""
    if buf:
        if out and len(buf) < min_chars // 2:
            out[-1] = f"{out[-1]}\n\n{buf}"
        else:
            out.append(buf)
    return tuple(out)


DEMO = "demo"
SAVED = "saved"


def _articles(folder: Path, default_provenance: str = "") -> list[_Article]:
    if not folder.is_dir():
        return []
    articles = []
    for path in sorted(folder.glob("*.md")):
        if path.name.lower() == "readme.md":
            continue
        meta, body = parse_article(path.read_text(encoding="utf-8", errors="replace"))
        if not meta.get("url") or not body.strip():
            continue
        articles.append(_Article(path, meta["url"], meta.get("title", ""),
                                 normalise_date(meta.get("date")), meta.get("source"),
                                 _passages(body),
                                 meta.get("provenance", default_provenance).strip().lower()))
    return articles


class SnapshotWebSearch:
    """BM25 over the passages of a folder of dated Markdown articles (offline web).

    ``saved`` is a second folder, the analyst's own saved pages and search results
    (provenance ``saved`` unless an article says otherwise), searched with the first."""

    def __init__(self, folder: Path | str, *, saved: Path | str | None = None,
                 max_chars: int = 1800):
        self.folder = Path(folder)
        self.saved = Path(saved) if saved else None
        self.max_chars = max_chars
        self.refresh()

    def refresh(self) -> None:
        """(Re)load the folders, e.g. after ``save_to_snapshot``."""
        self._articles = _articles(self.folder) + (
            _articles(self.saved, SAVED) if self.saved else [])
        self._owner: list[tuple[int, int]] = []
        docs: list[list[str]] = []
        for a_idx, art in enumerate(self._articles):
            for p_idx, passage in enumerate(art.passages):
                self._owner.append((a_idx, p_idx))
                docs.append(tokenize(f"{art.title}\n{passage}"))
        self._bm25 = _LuceneBM25(docs) if docs else None

    def __len__(self) -> int:
        return len(self._articles)

    @property
    def name(self) -> str:
        return f"Web snapshot ({len(self)} articles)"

    def search(self, query: str, k: int = 5, *, after: str | None = None) -> list[WebHit]:
        """Best ``k`` articles for ``query`` (published on/after ``after`` if given)."""
        _check_k(k)
        tokens = tokenize(query)
        if self._bm25 is None or not tokens:
            return []
        since = normalise_date(after)
        scores = self._bm25.get_scores(tokens)
        per_article: dict[int, list[tuple[float, int]]] = {}
        for (a_idx, p_idx), score in zip(self._owner, scores, strict=True):
            if score > 0:
                per_article.setdefault(a_idx, []).append((float(score), p_idx))
        ranked = []
        for a_idx, scored in per_article.items():
            art = self._articles[a_idx]
            if since and (art.date is None or art.date < since):
                continue
            scored.sort(reverse=True)
            # Best passage dominates; other matching passages add a little.
            total = scored[0][0] + 0.25 * sum(s for s, _ in scored[1:3])
            ranked.append((total, a_idx, scored))
        ranked.sort(key=lambda r: (-r[0], self._articles[r[1]].url))
        return [self._hit(a_idx, total, scored) for total, a_idx, scored in ranked[:k]]

    def _hit(self, a_idx: int, score: float, scored: list[tuple[float, int]]) -> WebHit:
        art = self._articles[a_idx]
        chosen: list[int] = []
        size = 0
        for _, p_idx in scored:
            if size and size + len(art.passages[p_idx]) > self.max_chars:
                continue
            chosen.append(p_idx)
            size += len(art.passages[p_idx])
        text = "\n\n".join(art.passages[i] for i in sorted(chosen))
        publisher = art.publisher
        if art.provenance == DEMO:
            publisher = f"{publisher} · demo article" if publisher else "demo article"
        return WebHit(url=art.url, title=art.title, date=art.date, text=text,
                      score=round(score, 4), source="snapshot", publisher=publisher)


def _slug(text: str, limit: int = 60) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:limit].strip("-") or "article"


def _front_value(value: str) -> str:
    return json.dumps(" ".join(value.split()), ensure_ascii=False)


def save_to_snapshot(hits: list[WebHit], folder: Path | str, *,
                     skip_urls: set[str] | frozenset[str] = frozenset()) -> list[Path]:
    """Write hits as snapshot articles (provenance ``saved``); returns the files written.

    File names are ``<date>-<title-slug>-<url-hash>.md`` (only ``[a-z0-9-]``),
    so saving the same URL twice writes nothing new. A URL already present in
    the folder under another name, or in ``skip_urls``, is skipped too.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    known = {a.url for a in _articles(folder)} | set(skip_urls)
    written: list[Path] = []
    for hit in hits:
        if not hit.url or hit.url in known or not hit.text.strip():
            continue
        digest = hashlib.sha256(hit.url.encode()).hexdigest()[:10]
        name = f"{hit.date or 'undated'}-{_slug(hit.title or hit.url)}-{digest}.md"
        path = folder / name
        lines = ["---", f"url: {_front_value(hit.url)}", f"title: {_front_value(hit.title)}"]
        if hit.date:
            lines.append(f"date: {hit.date}")
        lines.append(f"source: {_front_value(hit.publisher or hit.source)}")
        lines += [f"provenance: {SAVED}", "---", "", hit.text.strip(), ""]
        path.write_text("\n".join(lines), encoding="utf-8")
        known.add(hit.url)
        written.append(path)
    return written


# --- Tavily ------------------------------------------------------------------


class TavilyWebSearch:
    """Tavily's search API (``tavily-python``), with our timeout and error messages."""

    name = "Tavily"

    def __init__(self, settings: Settings, *, topic: str = "general"):
        if not settings.tavily_api_key:
            raise RetrievalError("Tavily needs an API key: set DTR_TAVILY_API_KEY.")
        from tavily import TavilyClient

        self.settings = settings
        self.topic = topic
        self._client = TavilyClient(api_key=settings.tavily_api_key,
                                    api_base_url=settings.tavily_base_url or None)

    def search(self, query: str, k: int = 5, *, after: str | None = None) -> list[WebHit]:
        """Up to ``k`` results; ``after`` becomes Tavily's ``start_date``."""
        _check_k(k)
        if not query.strip():
            return []
        extra = {"start_date": normalise_date(after)} if normalise_date(after) else {}
        try:
            reply = self._client.search(query, max_results=min(k, 20), topic=self.topic,
                                        timeout=self.settings.tavily_timeout_s, **extra)
        except Exception as exc:  # noqa: BLE001 - every failure becomes a RetrievalError
            raise RetrievalError(self._explain(exc)) from None
        hits = []
        for item in reply.get("results") or []:
            if not isinstance(item, dict) or not item.get("url"):
                continue
            hits.append(WebHit(url=str(item["url"]), title=str(item.get("title") or ""),
                               date=normalise_date(item.get("published_date")),
                               text=str(item.get("content") or ""),
                               score=float(item.get("score") or 0.0), source="tavily"))
        return hits[:k]

    def _explain(self, exc: BaseException) -> str:
        from core.llm.failures import redact

        kind = type(exc).__name__
        where = self.settings.tavily_base_url or "https://api.tavily.com"
        hints = {
            "InvalidAPIKeyError": "the API key was rejected: check DTR_TAVILY_API_KEY",
            "UsageLimitExceededError": "usage or rate limit reached: wait or upgrade the plan",
            "ForbiddenError": "access forbidden for this key",
            "BadRequestError": "the request was rejected",
            "TimeoutError": f"no reply within {self.settings.tavily_timeout_s:g} s "
            "(raise DTR_TAVILY_TIMEOUT_S)",
            "ConnectionError": "could not connect (network down or wrong DTR_TAVILY_BASE_URL)",
            "HTTPError": "the service returned an error status",
        }
        hint = hints.get(kind, "unexpected failure")
        detail = str(exc).strip()
        return redact(f"Tavily web search failed at {where}: {hint}"
                      + (f" ({kind}: {detail[:300]})" if detail else f" ({kind})"), self.settings)


def get_web_search(settings: Settings) -> WebSearch:
    """The provider ``settings.web_provider`` asks for (``auto``: Tavily > snapshot > none)."""
    provider = settings.web_provider
    if provider == "tavily" or (provider == "auto" and settings.tavily_api_key):
        return TavilyWebSearch(settings)
    if provider == "snapshot":
        return SnapshotWebSearch(settings.snapshot_dir, saved=settings.saved_web_dir)
    if provider == "auto":
        snapshot = SnapshotWebSearch(settings.snapshot_dir, saved=settings.saved_web_dir)
        if len(snapshot):
            return snapshot
    return NoWebSearch()
