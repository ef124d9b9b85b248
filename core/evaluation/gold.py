"""Gold evidence matching: which retrieved chunk or run evidence is a gold hit.

A piece (a retrieved chunk or an item of a run's evidence) is a hit for a gold
item when it comes from the item's document and

- lies on the gold ``page``, or
- contains the gold ``text`` (compared on lower-cased letters and digits only,
  so whitespace, case, punctuation and table-cell separators from extraction do
  not matter: "Revenue | $ 2,184.6" matches "Revenue $2,184.6"), or
- when the item gives only a ``section``: lies in that section ("Item 1A"
  matches "Item 1A. Risk Factors").

Documents are resolved against the corpus (file name or doc id) and the web
snapshot (article file name or URL); an item whose document is in neither
matches nothing and is reported.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from core.evaluation.questions import EvalQuestion, GoldEvidence

_NON_ALNUM = re.compile(r"[^a-z0-9]")


def normalise(text: str | None) -> str:
    """Lower-cased letters and digits only (NFKC first), for containment tests."""
    return _NON_ALNUM.sub("", unicodedata.normalize("NFKC", text or "").lower())


@dataclass(frozen=True)
class Piece:
    """A retrieved chunk or an evidence item, reduced to what matching and judging need."""

    id: str
    text: str
    doc_id: str | None = None
    section: str | None = None
    page: int | None = None
    url: str | None = None
    label: str = ""

    @classmethod
    def from_chunk(cls, chunk: Any, label: str = "") -> Piece:
        """From a ``core.foundation.types.Chunk``."""
        return cls(id=chunk.chunk_id, text=chunk.text, doc_id=chunk.doc_id,
                   section=chunk.section, page=chunk.page, label=label)

    @classmethod
    def from_evidence(cls, ev: Any) -> Piece:
        """From a run's ``core.agent.state.Evidence`` (a chunk or a web result)."""
        url = ev.url if ev.kind == "web" else None
        return cls(id=ev.id, text=ev.text, doc_id=ev.doc_id, section=ev.section, page=ev.page,
                   url=url, label=ev.label)


@dataclass(frozen=True)
class GoldTarget:
    """A gold item with its document resolved: a corpus doc id, a web URL, or nothing."""

    item: GoldEvidence
    kind: Literal["filing", "web", "missing"]
    doc_id: str | None = None
    url: str | None = None


def _norm_url(url: str | None) -> str:
    return (url or "").strip().rstrip("/").lower()


def snapshot_urls(folder: Path) -> dict[str, str]:
    """``{article file name: url}`` for the web snapshot articles under ``folder``."""
    from core.retrieval.web import parse_article

    out: dict[str, str] = {}
    if not folder.is_dir():
        return out
    for path in sorted(folder.glob("*.md")):
        meta, _ = parse_article(path.read_text(encoding="utf-8"))
        if meta.get("url"):
            out[path.name] = meta["url"]
    return out


def resolve(item: GoldEvidence, documents: list[Any], web_urls: dict[str, str]) -> GoldTarget:
    """Resolve ``item.document`` against corpus ``documents`` (DocumentMeta) and ``web_urls``."""
    name = item.document.strip()
    for d in documents:
        if name == d.doc_id or name.lower() == d.file_name.lower():
            return GoldTarget(item, "filing", doc_id=d.doc_id)
    if name in web_urls:
        return GoldTarget(item, "web", url=web_urls[name])
    if name.startswith(("http://", "https://")):
        return GoldTarget(item, "web", url=name)
    return GoldTarget(item, "missing")


def resolve_question(q: EvalQuestion, documents: list[Any],
                     web_urls: dict[str, str]) -> list[GoldTarget]:
    """Every gold item of ``q`` resolved (see ``resolve``)."""
    return [resolve(item, documents, web_urls) for item in q.gold]


def section_matches(section: str | None, wanted: str) -> bool:
    """Whether ``section`` is the ``wanted`` title or Item ("Item 1A" matches its full title)."""
    from core.agent.deps import match_section

    return bool(section) and match_section(wanted, [section]) is not None


def matches(piece: Piece, target: GoldTarget) -> bool:
    """Whether ``piece`` is a hit for ``target`` (see the module docstring)."""
    if target.kind == "filing":
        if piece.doc_id != target.doc_id:
            return False
    elif target.kind == "web":
        if _norm_url(piece.url) != _norm_url(target.url):
            return False
    else:
        return False
    item = target.item
    if item.page is not None and piece.page == item.page:
        return True
    if item.text and item.text.strip():
        want = normalise(item.text)
        if want and want in normalise(piece.text):
            return True
    if item.page is None and not (item.text or "").strip() and item.section:
        return section_matches(piece.section, item.section)
    return False


def gains(pieces: list[Piece], targets: list[GoldTarget]) -> list[int]:
    """Per piece, the number of ``targets`` it matches (its graded relevance)."""
    return [sum(matches(p, t) for t in targets) for p in pieces]


def first_ranks(pieces: list[Piece], targets: list[GoldTarget]) -> list[int | None]:
    """Per target, the 1-based rank of the first piece matching it (None: not found)."""
    out: list[int | None] = []
    for t in targets:
        out.append(next((r for r, p in enumerate(pieces, start=1) if matches(p, t)), None))
    return out
