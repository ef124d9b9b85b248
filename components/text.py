"""Safe text for Streamlit: document, web and model text is data, never markup.

``md_escape`` backslash-escapes every Markdown control character so text shown
through ``st.markdown`` renders literally (no links, images, headings or HTML).
``safe_answer`` keeps an answer's light formatting (paragraphs, bullets, bold)
but removes what could fetch or point somewhere: images, links, raw HTML.
"""

from __future__ import annotations

import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"(?<!\\)\[([^\]]+)\]\((?:[^)]*)\)")
_REF_DEF = re.compile(r"^\s*\[[^\]]+\]:\s*\S+.*$", re.MULTILINE)
_HTML_TAG = re.compile(r"<[^>\n]{0,500}>")
_AUTOLINK_SCHEME = re.compile(r"\b(https?|ftp|data|javascript):", re.IGNORECASE)


def md_escape(text: str | None) -> str:
    """``text`` with Markdown/HTML control characters escaped (renders as plain text)."""
    if not text:
        return ""
    return _MD_SPECIAL.sub(r"\\\1", str(text))


def strip_active(text: str | None) -> str:
    """``text`` without images (alt text kept), links (their text kept), link definitions
    and HTML tags: what is left is plain text to be shown with ``textContent``."""
    if not text:
        return ""
    out = _IMAGE.sub(lambda m: m.group(1), str(text))
    out = _LINK.sub(lambda m: m.group(1), out)
    out = _REF_DEF.sub("", out)
    return _HTML_TAG.sub("", out)


def safe_answer(text: str | None) -> str:
    """Answer Markdown without images, links, link definitions, HTML tags or URL schemes.

    Citation markers such as ``[3]`` are kept (they are not followed by ``(url)``).
    """
    out = strip_active(text)
    out = out.replace("<", "&lt;").replace(">", "&gt;")
    out = _AUTOLINK_SCHEME.sub(lambda m: m.group(1) + "\\:", out)
    return out


def preview(text: str | None, limit: int = 240) -> str:
    """One-line preview of ``text`` cut at ``limit`` characters."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


_REF = re.compile(r"\[([^\[\]\n]{6,400})\]")
_URL = re.compile(r"https?://[^\s\]\)>,;\"']+")
_CHUNK_ID = re.compile(r"\b[0-9a-f]{8,}-\d{3,}\b")


def readable_refs(text: str | None, labels: dict[str, str] | None = None) -> str:
    """Model text with its evidence references made readable: ``[chunk id]`` or ``[url]``
    becomes ``[its label]`` when known; other URLs shrink to their site, other chunk ids
    to ``source``."""
    labels = labels or {}
    if not text:
        return ""

    def ref(m: re.Match) -> str:
        inner = m.group(1).strip()
        if inner in labels:
            return f"[{labels[inner]}]"
        return m.group(0)

    out = _REF.sub(ref, str(text))
    out = _URL.sub(lambda m: (m.group(0).split("/")[2] if m.group(0).count("/") >= 2
                              else m.group(0)), out)
    return _CHUNK_ID.sub("source", out)
