"""Tell two answers apart: which one covers each sub-question, with which evidence, and a
sentence-level diff of what each says.

Reference-free scores (faithfulness, citation validity) read 1.00 for two answers that
say different things; an analyst wants to know what each answer *covers*. For every
sub-question of the deep run's plan, each answer's cited sentences are scored against
it (cosine of the corpus embedder, or the share of its content words when that is
higher) and the best one decides: ``covered`` (>= COVERED), ``partial`` (>= PARTIAL)
or ``missing``; the [n] markers of the sentences that count are its evidence.
Sentences without a citation make no claim here. The diff pairs each sentence of one
answer with the most similar of the other (>= SAME counts as said by both).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

COVERED, PARTIAL, SAME = 0.5, 0.32, 0.8
_MARK = re.compile(r"\[(\d+)\]")
_GLUE = re.compile(r"([.!?])\s*((?:\[\d+\])+)")  # "claim. [1]" -> "claim.[1]"
_SPLIT = re.compile(r"(?<=[.!?\]])\s+(?=[A-Z“\"(])|\n+")
_NOTE = re.compile(r"\((?:Offline engine|Note)[^)]*\)", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9][a-z0-9'-]*")
_STOP = frozenset("""a an and are as at be by for from has have how in is it its of on or that
the their they this to was we were what which will with does did do about based find identify
explain describe recent news one those these them then there into any our your can could
would should may might also such than more most""".split())

Coverage = Literal["covered", "partial", "missing"]


@dataclass
class Sentence:
    """A sentence of an answer and the [n] markers it carries."""

    text: str
    markers: list[int] = field(default_factory=list)

    @property
    def plain(self) -> str:
        return " ".join(_MARK.sub("", self.text).split())


@dataclass
class SideVerdict:
    coverage: Coverage
    score: float
    sentence: str = ""
    markers: list[int] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)


@dataclass
class Verdict:
    """Who covers one sub-question."""

    sub_question: str
    tool: str
    baseline: SideVerdict
    deep: SideVerdict

    @property
    def winner(self) -> str:
        order = {"missing": 0, "partial": 1, "covered": 2}
        b, d = order[self.baseline.coverage], order[self.deep.coverage]
        if b == d:
            return "both" if b else "neither"
        return "deep" if d > b else "baseline"


@dataclass
class DiffLine:
    kind: Literal["both", "deep", "baseline"]
    text: str
    other: str = ""
    similarity: float = 0.0


def sentences(answer: str) -> list[Sentence]:
    """The answer's sentences (notes about the engine left out)."""
    out = []
    for piece in _SPLIT.split(_GLUE.sub(r"\1\2", _NOTE.sub("", answer or ""))):
        text = piece.strip()
        if len(text.split()) >= 3:
            out.append(Sentence(text, [int(n) for n in _MARK.findall(text)]))
    return out


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1}


def overlap(question: str, text: str) -> float:
    """Share of the question's content words found in ``text``."""
    want = _words(question)
    return len(want & _words(text)) / len(want) if want else 0.0


def _cosines(embedder: Any, queries: Sequence[str], texts: Sequence[str]) -> np.ndarray:
    if embedder is None or not queries or not texts:
        return np.zeros((len(queries), len(texts)), dtype=np.float32)
    vecs = np.asarray(embedder.encode(list(queries) + list(texts)), dtype=np.float32)
    return vecs[: len(queries)] @ vecs[len(queries):].T


def _side(question_row: np.ndarray, question: str, cited: list[Sentence],
          labels: dict[int, str]) -> SideVerdict:
    if not cited:
        return SideVerdict("missing", 0.0)
    scores = [max(float(question_row[i]), overlap(question, s.plain))
              for i, s in enumerate(cited)]
    best = int(np.argmax(scores))
    top = scores[best]
    coverage: Coverage = "covered" if top >= COVERED else "partial" if top >= PARTIAL else "missing"
    counting = [s for s, sc in zip(cited, scores, strict=True) if sc >= PARTIAL]
    markers = list(dict.fromkeys(n for s in counting for n in s.markers))
    return SideVerdict(coverage, round(top, 3), cited[best].plain if top >= PARTIAL else "",
                       markers, [labels.get(n, f"[{n}]") for n in markers])


def _labels(record: Any) -> dict[int, str]:
    answer = getattr(record, "answer", None)
    if answer is None:
        return {}
    return {c.n: c.label for c in answer.citations}


def verdicts(deep: Any, baseline: Any, embedder: Any = None) -> list[Verdict]:
    """One verdict per sub-question of the deep run's plan (the question when it has none)."""
    steps = [(s.sub_question, s.tool) for s in getattr(deep, "plan", [])] or \
        [(deep.question, "filing_search")]
    sides = []
    for record in (baseline, deep):
        text = record.answer.text if record.answer else ""
        sides.append([s for s in sentences(text) if s.markers])
    questions = [q for q, _ in steps]
    out = []
    rows = [_cosines(embedder, questions, [s.plain for s in cited]) for cited in sides]
    for i, (q, tool) in enumerate(steps):
        b = _side(rows[0][i] if rows[0].size else np.zeros(0), q, sides[0], _labels(baseline))
        d = _side(rows[1][i] if rows[1].size else np.zeros(0), q, sides[1], _labels(deep))
        out.append(Verdict(q, tool, b, d))
    return out


def answer_diff(deep_answer: str, baseline_answer: str, embedder: Any = None) -> list[DiffLine]:
    """Deep's sentences in order (said by both, or by deep only), then the baseline's own."""
    d = [s.plain for s in sentences(deep_answer)]
    b = [s.plain for s in sentences(baseline_answer)]
    sims = _cosines(embedder, d, b)
    lex = np.array([[_jaccard(x, y) for y in b] for x in d]) if d and b else sims
    sims = np.maximum(sims, lex) if sims.size else sims
    out: list[DiffLine] = []
    matched: set[int] = set()
    for i, text in enumerate(d):
        j = int(np.argmax(sims[i])) if b else -1
        if j >= 0 and sims[i, j] >= SAME:
            matched.add(j)
            out.append(DiffLine("both", text, b[j], round(float(sims[i, j]), 3)))
        else:
            out.append(DiffLine("deep", text))
    out += [DiffLine("baseline", text) for j, text in enumerate(b) if j not in matched]
    return out


def _jaccard(a: str, b: str) -> float:
    wa, wb = _words(a), _words(b)
    return len(wa & wb) / len(wa | wb) if wa and wb else 0.0
