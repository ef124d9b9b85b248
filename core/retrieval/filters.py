"""Resolving the filters a search is given (documents, sections) to exact values.

A section filter may name an Item ("Item 1A"), a Part and Item ("Part II Item
1A"), an exact title ("Item 1A. Risk Factors") or a title phrase ("Risk
Factors"); case, dashes and punctuation do not matter. "Item 1A" matches both
"Item 1A. Risk Factors" (10-K) and "Part II — Item 1A. Risk Factors" (10-Q), and
never "Item 1" or "Item 11". Unknown values raise RetrievalError listing the
valid ones, so the caller (or the agent's plan editor) can correct them.
"""

from __future__ import annotations

import re

from core.foundation.errors import RetrievalError
from core.foundation.types import DocumentMeta

_ITEM = re.compile(r"\bitem\s+(\d{1,2}[a-z]?)\b")
_PART = re.compile(r"\bpart\s+(iv|i{1,3}|[1-4])\b")
_ROMAN = {"1": "i", "2": "ii", "3": "iii", "4": "iv"}


def normalise_title(text: str) -> str:
    """Lower-case, punctuation and dashes to spaces, single spaces."""
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


def _item_part(norm: str) -> tuple[str | None, str | None]:
    item = _ITEM.search(norm)
    part = _PART.search(norm)
    part_value = _ROMAN.get(part.group(1), part.group(1)) if part else None
    return (item.group(1) if item else None), part_value


def section_matches(wanted: str, title: str) -> bool:
    """Whether the filter value ``wanted`` selects the section ``title``."""
    w, t = normalise_title(wanted), normalise_title(title)
    if not w:
        return False
    if w == t:
        return True
    w_item, w_part = _item_part(w)
    if w_item is not None:
        t_item, t_part = _item_part(t)
        if t_item != w_item:
            return False
        return w_part is None or w_part == t_part
    return re.search(rf"(?<![a-z0-9]){re.escape(w)}(?![a-z0-9])", t) is not None


def resolve_doc_ids(doc_ids: list[str] | None, documents: list[DocumentMeta]) -> list[str] | None:
    """Check ``doc_ids`` against the corpus; ``None`` means every document."""
    if doc_ids is None:
        return None
    known = {d.doc_id for d in documents}
    unknown = [d for d in doc_ids if d not in known]
    if unknown:
        valid = ", ".join(f"{d.doc_id} ({d.file_name})" for d in documents) or "none"
        raise RetrievalError(
            f"Unknown document id(s): {', '.join(unknown)}. Documents in the corpus: {valid}."
        )
    return list(dict.fromkeys(doc_ids))


def resolve_sections(
    wanted: list[str] | None, available: dict[str, list[str]], doc_ids: list[str] | None
) -> list[str] | None:
    """Exact section titles selected by ``wanted`` within ``doc_ids`` (``None``: no filter)."""
    if wanted is None:
        return None
    titles: list[str] = []
    for doc_id, doc_titles in available.items():
        if doc_ids is None or doc_id in doc_ids:
            titles.extend(doc_titles)
    titles = list(dict.fromkeys(titles))
    chosen: list[str] = []
    missing: list[str] = []
    for w in wanted:
        hits = [t for t in titles if section_matches(w, t)]
        if not hits:
            missing.append(w)
        chosen.extend(hits)
    if missing:
        listed = "; ".join(titles[:60]) + (" ..." if len(titles) > 60 else "")
        scope = "the selected documents" if doc_ids is not None else "the corpus"
        raise RetrievalError(
            f"Unknown section(s): {', '.join(repr(m) for m in missing)}. Sections in {scope}: "
            f"{listed or 'none'}. Use an Item (e.g. 'Item 1A') or one of these titles."
        )
    return list(dict.fromkeys(chosen))
