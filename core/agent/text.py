"""Small text helpers the offline rules share: sentences, content words, overlap."""

from __future__ import annotations

import re

from core.retrieval.tokenize import STOPWORDS, tokenize

STEM = 6
_SENT_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9&.\-']*[A-Za-z0-9]|[A-Za-z0-9]")
_EXTRA_STOP = frozenset(
    """
    find recent news explain how directly addresses address exacerbates one stated new
    post filing post-filing then also this that these those its their his her our latest
    information about year years related relating regarding concerning into onto upon within
    whether any ways way much many
    """.split()
)


def sentences(text: str) -> list[str]:
    """Split prose into sentences (keeps table lines whole); drops empty pieces."""
    out: list[str] = []
    for block in re.split(r"\n\s*\n|\n(?=[-•*|])", text):
        block = " ".join(block.split())
        if not block:
            continue
        out.extend(s.strip() for s in _SENT_END.split(block) if s.strip())
    return out


def content_words(text: str, limit: int = 8) -> list[str]:
    """Distinct meaningful words of ``text`` in order, surface form kept (``"AMD's"`` -> AMD)."""
    seen: set[str] = set()
    out: list[str] = []
    for raw in _WORD.findall(text):
        word = re.sub(r"['\u2019]s$", "", raw).strip(".-'")
        low = word.lower()
        if not word or low in STOPWORDS or low in _EXTRA_STOP or low in seen:
            continue
        if len(word) < 2 and not word.isdigit():
            continue
        seen.add(low)
        out.append(word)
        if len(out) >= limit:
            break
    return out


def terms(text: str) -> set[str]:
    """Normalised terms of ``text``: the keyword index's tokens cut to 6 letters, so that
    competition / competitors / compete meet on ``compet``."""
    return {t[:STEM] if t.isalpha() else t for t in tokenize(text)}


def query_terms(text: str) -> set[str]:
    """Terms of a question that evidence should contain (instruction words removed)."""
    return terms(text) - terms(" ".join(_EXTRA_STOP))


def is_heading(sentence: str) -> bool:
    """A title-like line: no closing punctuation and mostly capitalised words, or a TOC row."""
    words = re.findall(r"[A-Za-z][A-Za-z'’\-]*", sentence)
    if sentence.count("|") >= 3 and re.search(r"\bpage\b", sentence, re.IGNORECASE):
        return True
    if not words or sentence.rstrip().endswith((".", "!", "?", ":", ";")):
        return False
    minor = {"and", "or", "of", "the", "to", "in", "for", "on", "our", "a", "an", "with", "by"}
    caps = [w for w in words if w.lower() not in minor]
    return bool(caps) and sum(w[0].isupper() for w in caps) / len(caps) >= 0.8


def overlap(query_terms: set[str], text: str) -> float:
    """Share of ``query_terms`` found in ``text`` (0..1)."""
    if not query_terms:
        return 0.0
    return len(query_terms & terms(text)) / len(query_terms)


def shorten(text: str, limit: int) -> str:
    """``text`` cut at a word boundary to at most ``limit`` characters, with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut + "…"
