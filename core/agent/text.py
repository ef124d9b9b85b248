"""Small text helpers the offline rules share: sentences, content words, overlap."""

from __future__ import annotations

import re

from core.retrieval.tokenize import STOPWORDS, fold_plural, tokenize

STEM = 6
HEAD_WORDS = 8
DUPLICATE_JACCARD = 0.85
# A term that occurs only after one of these prefixes ("anti-competition", "non-compete") is not
# what the sentence is about: it counts for little when scoring sentences.
_PREFIXED = re.compile(r"\b(?:anti|non|counter|pseudo|quasi|un|mis)-[A-Za-z]+",
                       re.IGNORECASE)
_BULLET = re.compile(r"^[\s\-•*·▪◦]+")
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


def blocks(text: str) -> list[list[str]]:
    """Paragraphs (and bullet or table lines) of ``text``, each as its list of sentences."""
    out: list[list[str]] = []
    for block in re.split(r"\n\s*\n|\n(?=[-•*|])", text):
        block = " ".join(block.split())
        if block:
            out.append([s.strip() for s in _SENT_END.split(block) if s.strip()])
    return [b for b in out if b]


def sentences(text: str) -> list[str]:
    """Split prose into sentences (keeps table lines whole); drops empty pieces."""
    return [s for block in blocks(text) for s in block]


def summary_sentences(text: str) -> set[str]:
    """Sentences that stand alone as a paragraph or bullet, 6-40 words, ending with a full
    stop: the heading-like summaries 10-Ks put above each risk factor ("Competition in our
    markets could cause us to lose market share and revenue.") and in risk summaries."""
    paragraphs = blocks(text)
    if len(paragraphs) < 2:
        return set()
    return {b[0] for b in paragraphs if len(b) == 1 and b[0].rstrip().endswith(".")
            and 6 <= len(b[0].split()) <= 40 and b[0].count("|") < 2}


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


def fold(token: str) -> str:
    """One token's term: plural folded, then cut to 6 letters (``risks`` -> ``risk``;
    competition / competitors / compete -> ``compet``)."""
    return fold_plural(token)[:STEM] if token.isalpha() else token


def terms(text: str) -> set[str]:
    """Normalised terms of ``text``: the keyword index's tokens folded by ``fold``."""
    return {fold(t) for t in tokenize(text)}


def main_terms(text: str) -> set[str]:
    """Terms of ``text`` outside prefixed compounds ("anti-competition" adds nothing)."""
    return terms(_PREFIXED.sub(" ", text))


def head_terms(sentence: str, words: int = HEAD_WORDS) -> set[str]:
    """Main terms of the sentence's first ``words`` words: what the sentence is about."""
    head = " ".join(_BULLET.sub("", sentence).split()[:words])
    return main_terms(head)


def strip_bullet(sentence: str) -> str:
    """``sentence`` without a leading bullet glyph ("• Competition ..." -> "Competition ...")."""
    return re.sub(r"^[•*·▪◦\-]\s+", "", sentence.strip())


def near_duplicate(a: str, b: str) -> bool:
    """True when two sentences say the same (token-set Jaccard >= 0.85), e.g. the same
    risk heading in the summary list and above its section, or in two overlapping chunks."""
    ta, tb = set(tokenize(a)), set(tokenize(b))
    if not ta or not tb:
        return _BULLET.sub("", a).strip().lower() == _BULLET.sub("", b).strip().lower()
    return len(ta & tb) / len(ta | tb) >= DUPLICATE_JACCARD


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
