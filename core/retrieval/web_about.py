"""Web results about the companies a step asks about.

A web step whose question names companies of the corpus ("AMD's AI chip strategy in 2024")
keeps only the results that mention one of them (by the words the question uses or the
filer's name without its corporate suffix): a page about another company, such as a demo
article about NVIDIA for a question about Adobe, is not evidence for it.
"""

from __future__ import annotations

import re

from core.foundation.types import DocumentMeta, Hit

_SUFFIX = re.compile(r"[\s,]+(?:inc|incorporated|corp|corporation|company|co|ltd|limited|plc|"
                     r"llc|lp|the)\.?$", re.I)


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[-\u2010-\u2015'\u2019]", " ", text).lower().split())


def company_words(question: str, documents: list[DocumentMeta]) -> list[str]:
    """The words that name each company ``question`` names: as written, and the filer's name
    without its corporate suffix ('Coca Cola' for "COCA COLA CO")."""
    from core.retrieval.scope import match_companies

    out: list[str] = []
    for raw, (shown, _) in match_companies(question, documents).items():
        name = shown
        while (cut := _SUFFIX.sub("", name)) != name and cut:
            name = cut
        out += [w for w in (_plain(raw), _plain(name.strip(" ,."))) if len(w) >= 2]
    return list(dict.fromkeys(out))


def mentions(hit: Hit, words: list[str]) -> bool:
    text = _plain(f"{hit.chunk.section} {hit.chunk.text}")
    return any(re.search(rf"(?<![a-z0-9]){re.escape(w)}(?![a-z0-9])", text) for w in words)


def about(hits: list[Hit], question: str, documents: list[DocumentMeta]
          ) -> tuple[list[Hit], list[str]]:
    """``(hits that mention a company the question names, those words)``; every hit when it
    names none."""
    words = company_words(question, documents)
    if not words:
        return hits, []
    return [h for h in hits if mentions(h, words)], words
