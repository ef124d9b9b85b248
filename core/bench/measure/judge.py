"""When a retrieved chunk counts as evidence for a benchmark question.

A chunk must come from one of the question's files. Then it is a hit when

* its physical page span overlaps a gold page (FinanceBench's protocol: page-level gold);
* or it contains a gold evidence snippet, compared on lower-cased letters and digits
  only (so spacing, punctuation and table separators from extraction do not matter);
* or, for sets whose gold is an answer (Docugami), it contains one of the answer's
  distinctive figures (as a digit string among the chunk's numbers); for an answer
  without figures, at least ``SENTENCE_SHARE`` of the content words of one of its
  sentences (six words or more).
"""

from __future__ import annotations

import re

from core.bench.measure.sets import BenchQuestion
from core.foundation.types import Chunk
from core.store.tokenize import tokenize

SENTENCE_SHARE = 0.7
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def chunk_figures(text: str) -> set[str]:
    """Every number in ``text`` as a digit string without separators or leading zeros."""
    return {m.replace(",", "").replace(".", "").lstrip("0") for m in _NUMBER.findall(text)}


def is_hit(chunk: Chunk, question: BenchQuestion, file_of: dict[str, str]) -> bool:
    """Whether ``chunk`` is gold evidence for ``question``; ``file_of`` maps doc id -> file."""
    name = file_of.get(chunk.doc_id)
    if name not in question.files:
        return False
    gold_pages = question.pages.get(name)
    if gold_pages and any(p in gold_pages for p in chunk.pages):
        return True
    if question.evidence:
        text = _norm(chunk.text)
        if any(_norm(e) in text for e in question.evidence):
            return True
    if question.figures and chunk_figures(chunk.text).intersection(question.figures):
        return True
    if question.sentences:
        have = set(tokenize(chunk.text))
        for terms in question.sentences:
            if sum(t in have for t in terms) >= SENTENCE_SHARE * len(terms):
                return True
    return False


def first_hit_rank(chunks: list[Chunk], question: BenchQuestion,
                   file_of: dict[str, str]) -> int | None:
    """1-based rank of the first hit among ``chunks``; None when there is none."""
    for rank, chunk in enumerate(chunks, start=1):
        if is_hit(chunk, question, file_of):
            return rank
    return None
