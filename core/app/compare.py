"""Tell two answers apart: which one covers each sub-question, with which evidence, and a
sentence-level diff of what each says.

Reference-free scores (faithfulness, citation validity) read 1.00 for two answers that
say different things; an analyst wants to know what each answer *covers*. For every
sub-question of the deep run's plan, each answer's cited sentences are scored against
it (cosine of the corpus embedder, or the share of its content words when that is
higher) and the best one decides: ``covered`` (>= COVERED), ``partial`` (>= PARTIAL)
or ``missing``; the [n] markers of the sentences that count are its evidence.
Sentences without a citation make no claim here, and a sentence counts for a part only
when it is about the part's company and topic (``core.app.compare_parts``); a part that
asks which company wins is fully covered only by a sentence that names one. The diff pairs
each sentence of one answer with the most similar of the other (>= SAME counts as said by
both). ``coverage_count`` is the one count of covered parts every view shows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from core.app.compare_parts import (
    Part,
    about_company,
    about_topic,
    cited_docs,
    docs_by_marker,
    names_winner,
    part_of,
)

COVERED, PARTIAL, SAME = 0.5, 0.32, 0.8
_MARK = re.compile(r"\[(\d+)\]")
_GLUE = re.compile(r"([.!?])\s*((?:\[\d+\])+)")  # "claim. [1]" -> "claim.[1]"
_SPLIT = re.compile(r"(?<=[.!?\]])\s+(?=[A-Z“\"(])|\n+")
_NOTE = re.compile(r"\((?:Offline engine|Note)[^)]*\)", re.IGNORECASE)
# Lines and sentences that are the engine talking about itself, not claims about the filings
_BANNER = re.compile(r"^\W*(?:extractive (?:brief|answer)|limit reached|offline engine|note\b|"
                     r"sources?\s*:|stopped\b)|configure an llm|no analysis across sources",
                     re.IGNORECASE)
_HEADING_LINE = re.compile(r"^\s*(?:#{1,6}\s+.*|\*\*[^*]+\*\*:?|[^.!?\[\]]{0,160}:)\s*$")
_FIGURE = re.compile(r"(?<![\w\[])(?:[$€£]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:million|billion|"
                     r"thousand|[mbk]n?)\b)?|\d[\d,]*(?:\.\d+)?\s?(?:%|percent\b|million\b|"
                     r"billion\b|x\b))", re.IGNORECASE)
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
    note: str = ""
    """Why the coverage is less than the similarity says ("names no winner")."""


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


def _norm(text: str) -> str:
    return " ".join(_WORD.findall(_MARK.sub("", text).lower()))


def sentences(answer: str, headings: Sequence[str] = ()) -> list[Sentence]:
    """The answer's claims: its sentences without the engine's notes and banners
    ("Extractive brief …", "Configure an LLM …", "Limit reached …") and without headings
    (a Markdown heading, a line ending in a colon, or a line that repeats one of
    ``headings``, the plan's sub-questions, as the offline brief does)."""
    titles = {_norm(h) for h in headings if h.strip()}
    kept = []
    for line in (answer or "").split("\n"):
        bare = _MARK.sub("", line).strip().strip("-*• ").strip()
        if not bare or _HEADING_LINE.match(line) or _norm(bare) in titles:
            continue
        kept.append(line.strip().lstrip("-*• ").strip() if line.strip()[:1] in "-*•" else line)
    out = []
    for piece in _merge_abbreviations(
            _SPLIT.split(_GLUE.sub(r"\1\2", _NOTE.sub("", "\n".join(kept))))):
        text = piece.strip()
        if len(text.split()) >= 3 and not _BANNER.search(_MARK.sub("", text)):
            out.append(Sentence(text, [int(n) for n in _MARK.findall(text)]))
    return out


_ABBREVIATION = re.compile(r"\b(?:Inc|Corp|Co|Ltd|Bros|No|U\.S|Mr|Ms|Dr|vs)\.$")


def _merge_abbreviations(pieces: Sequence[str]) -> list[str]:
    """Undo splits after 'Inc.', 'Corp.', 'U.S.' and the like (not sentence ends)."""
    out: list[str] = []
    for piece in pieces:
        if out and _ABBREVIATION.search(out[-1].rstrip()) and "\n" not in out[-1][-1:]:
            out[-1] = f"{out[-1].rstrip()} {piece.lstrip()}"
        else:
            out.append(piece)
    return out


def figures_stated(text: str) -> list[str]:
    """The figures a claim states ("$26,974 million", "12.5%", "2.8 billion"); years and
    [n] markers are not figures."""
    return [m.group(0).strip() for m in _FIGURE.finditer(_MARK.sub("", text))]


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


def _side(question_row: np.ndarray, part: Part, cited: list[Sentence],
          labels: dict[int, str], docs_of: dict[int, str],
          documents: Sequence[Any]) -> SideVerdict:
    if not cited:
        return SideVerdict("missing", 0.0)
    scores = [max(float(question_row[i]), overlap(part.question, s.plain))
              if about_company(part, s.plain, cited_docs(s.markers, docs_of), documents)
              and about_topic(part, s.plain) else 0.0
              for i, s in enumerate(cited)]
    best = int(np.argmax(scores))
    top = scores[best]
    coverage: Coverage = "covered" if top >= COVERED else "partial" if top >= PARTIAL else "missing"
    counting = [s for s, sc in zip(cited, scores, strict=True) if sc >= PARTIAL]
    note = ""
    if part.which and counting and not any(names_winner(part, s.plain, documents)
                                           for s in counting):
        coverage, note = "partial", "names no winner"
    elif part.which and counting:
        best = max((i for i, s in enumerate(cited) if scores[i] >= PARTIAL
                    and names_winner(part, s.plain, documents)), key=lambda i: scores[i])
    markers = list(dict.fromkeys(n for s in counting for n in s.markers))
    return SideVerdict(coverage, round(top, 3), cited[best].plain if top >= PARTIAL else "",
                       markers, [labels.get(n, f"[{n}]") for n in markers], note)


def _labels(record: Any) -> dict[int, str]:
    answer = getattr(record, "answer", None)
    if answer is None:
        return {}
    return {c.n: c.label for c in answer.citations}


def headings_of(record: Any) -> list[str]:
    """What an answer may repeat as headings: the run's sub-questions and question."""
    plan = getattr(record, "plan", None) or []
    return [s.sub_question for s in plan] + [getattr(record, "question", "") or ""]


def verdicts(deep: Any, baseline: Any, embedder: Any = None,
             documents: Sequence[Any] = ()) -> list[Verdict]:
    """One verdict per sub-question of the deep run's plan (the question when it has none);
    ``documents`` (the corpus's filings) name the companies each part and sentence is about."""
    plan = list(getattr(deep, "plan", []) or [])
    steps = [(s.sub_question, s.tool, s) for s in plan] or \
        [(deep.question, "filing_search", None)]
    sides = []
    heads = headings_of(deep)
    for record in (baseline, deep):
        text = record.answer.text if record.answer else ""
        sides.append([s for s in sentences(text, heads) if s.markers])
    questions = [q for q, _, _ in steps]
    out = []
    rows = [_cosines(embedder, questions, [s.plain for s in cited]) for cited in sides]
    docs = [docs_by_marker(baseline), docs_by_marker(deep)]
    for i, (q, tool, step) in enumerate(steps):
        part = part_of(q, step, documents)
        b = _side(rows[0][i] if rows[0].size else np.zeros(0), part, sides[0],
                  _labels(baseline), docs[0], documents)
        d = _side(rows[1][i] if rows[1].size else np.zeros(0), part, sides[1], _labels(deep),
                  docs[1], documents)
        out.append(Verdict(q, tool, b, d))
    return out


def answer_diff(deep_answer: str, baseline_answer: str, embedder: Any = None,
                headings: Sequence[str] = ()) -> list[DiffLine]:
    """Deep's claims in order (said by both, or by deep only), then the baseline's own
    (banners, notes and headings are not claims: see ``sentences``)."""
    d = [s.plain for s in sentences(deep_answer, headings)]
    b = [s.plain for s in sentences(baseline_answer, headings)]
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
