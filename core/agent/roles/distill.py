"""Distiller role: the reranked evidence as a short context that keeps each fact's reference.

With an LLM this is ONE call that also does the reflection (finding, coverage,
what is missing), cutting a call per step; the reflection role (``reflect.py``)
records the result. Offline rule: extractive sentence selection scored by
IDF-weighted query-term overlap (terms folded: risks -> risk, compet*; a term seen
only in "anti-competition" counts little), a bonus when the terms lead the
sentence, a bonus for a risk's heading-like summary sentence on risk questions,
plus embedding cosine when an embedder is at hand; at most two sentences per
hit, near-identical sentences once; coverage = share of the query's terms the
kept sentences contain. When the query states a figure or year, table rows are
candidates too, one per row, quoted with their column headings and caption; a
row scores by how exactly its label names what is asked (``label_match``), and
rows matching much worse than the best row are left out.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

from pydantic import BaseModel, Field

from core.agent.deps import AgentDeps, RoleCall, ask_llm
from core.agent.roles.citations import known_lines
from core.agent.roles.sentences import (
    caption_sentences,
    content_words,
    head_terms,
    is_heading,
    is_table_line,
    main_terms,
    near_duplicate,
    overlap,
    query_terms,
    sentences,
    shorten,
    strip_bullet,
    summary_sentences,
    table_rows,
    terms,
)
from core.agent.state import Coverage, PlanStep
from core.foundation.safety import addresses_the_reader
from core.foundation.types import Hit

DISTILL_PROMPT = """You distill the evidence retrieved for one step of a financial research
agent and reflect on what it shows.
- context: 3 to 8 lines, each "- <one fact from the evidence> [<evidence id>]", quoting figures
  and names exactly; keep only facts that help answer the sub-question.
- finding: ONE sentence answering the sub-question from these facts (the step's reflection).
- coverage: "answered" when the evidence answers the sub-question, "partial" when it answers
  only part of it, "none" when it does not help at all.
- missing: what the sub-question asks that the evidence does not say ("" if nothing)."""

MAX_SENTENCES = 6
PER_HIT = 2
EMBED_WEIGHT = 0.3  # cosine adds at most 0.3 to a 0..1 term overlap
HEAD_WEIGHT = 0.25  # query terms among the sentence's first words: the sentence is about them
COMPOUND_WEIGHT = 0.25  # a term seen only in "anti-competition" counts a quarter
SUMMARY_BONUS = 0.2  # a risk's heading-like summary sentence, when the step asks about risks
LABEL_WEIGHT = 0.5  # a table row whose label (first cell) is what the question names
ROW_KEEP = 0.5  # rows whose label matches under half as well as the best row's are dropped
MIN_WORDS = 5


class DistillOutput(BaseModel):
    """The distiller's reply (distilled context plus the step's reflection)."""

    context: str = Field(description="Fact lines, each ending with its evidence id in brackets.")
    finding: str = Field(description="One sentence answering the sub-question (the reflection).")
    coverage: Coverage = Field(description="answered, partial or none.")
    missing: str = Field(default="", description="What the evidence does not say.")


@dataclass
class Extract:
    """One sentence kept by the offline rule."""

    evidence_id: str
    sentence: str
    score: float


@dataclass
class _Sentence:
    """A candidate sentence: its hit, text, whether it is a summary, and its term sets; a
    table row also has its label's terms (then its head is its label)."""

    hit: int
    text: str
    summary: bool
    label: set[str] | None = None
    terms: set[str] = field(init=False)
    main: set[str] = field(init=False)
    head: set[str] = field(init=False)

    def __post_init__(self) -> None:
        self.terms, self.main = terms(self.text), main_terms(self.text)
        self.head = head_terms(self.text) if self.label is None else self.label


def _candidates(i: int, hit: Hit, with_tables: bool) -> list[_Sentence]:
    """Prose sentences of the hit; with ``with_tables`` also its table rows, each quoted with
    its column headings and caption (the caption lines are not candidates themselves)."""
    text = hit.chunk.text
    summaries, captions = summary_sentences(text), caption_sentences(text)
    out = []
    for s in sentences(text):
        if len(s.split()) < MIN_WORDS or is_heading(s) or is_table_line(s) or s in captions:
            continue
        if addresses_the_reader(s):  # evidence is data: an instruction is never a finding
            continue
        out.append(_Sentence(i, shorten(strip_bullet(s), 400), s in summaries))
    if with_tables:
        out.extend(_Sentence(i, shorten(row.quote(), 400), False, terms(row.label))
                   for row in table_rows(text))
    return out


def _idf(q_terms: set[str], pool: list[_Sentence]) -> dict[str, float]:
    """Weight of each query term by its rarity in the pool (IDF)."""
    n = len(pool)
    return {t: math.log(1 + n / (1 + sum(t in p.terms for p in pool))) for t in q_terms}


def sentence_score(weight: dict[str, float], sent: _Sentence, prefer_summaries: bool) -> float:
    """Term score of one sentence: IDF-weighted share of the query terms it contains (a term
    seen only inside a prefixed compound counts ``COMPOUND_WEIGHT``), plus ``HEAD_WEIGHT`` for
    the share found among its first words (a table row: its label), plus ``SUMMARY_BONUS`` for
    a matching summary, plus ``LABEL_WEIGHT`` times ``label_match`` for a table row."""
    total = sum(weight.values()) or 1.0
    body = sum(w if t in sent.main else COMPOUND_WEIGHT * w if t in sent.terms else 0.0
               for t, w in weight.items()) / total
    head = sum(w for t, w in weight.items() if t in sent.head) / total
    bonus = SUMMARY_BONUS if prefer_summaries and sent.summary and sent.main & set(weight) \
        else 0.0
    label = LABEL_WEIGHT * label_match(weight, sent.label) if sent.label is not None else 0.0
    return body + HEAD_WEIGHT * head + bonus + label


def label_match(weight: dict[str, float], label: set[str]) -> float:
    """How exactly a table row's label names what is asked (0..1): the IDF-weighted share of
    the query terms in the label times the squared share of the label's terms that were
    asked, so "Net income" beats "Interest and other income, net" and "Net income per share"."""
    if not label:
        return 0.0
    total = sum(weight.values()) or 1.0
    asked = sum(w for t, w in weight.items() if t in label) / total
    return asked * (len(label & set(weight)) / len(label)) ** 2


def weak_rows(weight: dict[str, float], pool: list[_Sentence]) -> set[int]:
    """Indexes of table rows whose label names nothing asked or matches under ``ROW_KEEP`` of
    the best row's match: the asked row is quoted, not its neighbours."""
    match = {j: label_match(weight, s.label) for j, s in enumerate(pool) if s.label is not None}
    best = max(match.values(), default=0.0)
    return {j for j, m in match.items() if m <= 0.0 or m < ROW_KEEP * best}


def _select(pool: list[_Sentence], scores: list[float], q_terms: set[str], hits: list[Hit],
            skip: set[int]) -> list[Extract]:
    """Best sentences but ``skip``, near-duplicates dropped: first the best sentence of each
    hit (so every reranked source that says something asked is kept), then second sentences,
    at most ``PER_HIT`` per hit and ``MAX_SENTENCES`` in all; returned best first."""
    kept: list[Extract] = []
    per_hit: dict[int, int] = {}
    order = sorted(range(len(pool)), key=lambda j: -scores[j])
    for round_ in range(1, PER_HIT + 1):
        for j in order:
            sent = pool[j]
            if j in skip or not q_terms & sent.terms or per_hit.get(sent.hit, 0) >= round_:
                continue
            if len(kept) >= MAX_SENTENCES or any(near_duplicate(sent.text, e.sentence)
                                                 for e in kept):
                continue
            per_hit[sent.hit] = per_hit.get(sent.hit, 0) + 1
            kept.append(Extract(hits[sent.hit].chunk.chunk_id, sent.text, round(scores[j], 4)))
    return sorted(kept, key=lambda e: -e.score)


def extract(query: str, hits: list[Hit], ignore: set[str], embedder=None, *,
            prefer_summaries: bool = False) -> tuple[list[Extract], Coverage, str]:
    """Offline distillation: ``(kept sentences best first, coverage, missing terms)``."""
    q_terms = query_terms(query) - ignore or query_terms(query)
    tables = bool(re.search(r"\d", query))
    pool = [s for i, h in enumerate(hits) for s in _candidates(i, h, tables)]
    if not pool or not q_terms:
        return [], "none", "no evidence was retrieved" if not pool else ""
    weight = _idf(q_terms, pool)
    scores = [sentence_score(weight, s, prefer_summaries) + 0.05 / (1 + s.hit) for s in pool]
    if embedder is not None:
        focus = [w for w in content_words(query, 30) if terms(w) & q_terms]
        vecs = embedder.encode([" ".join(focus) or query] + [s.text for s in pool])
        cos = vecs[1:] @ vecs[0]
        scores = [sc + EMBED_WEIGHT * max(float(c), 0.0) for sc, c in zip(scores, cos, strict=True)]
    kept = _select(pool, scores, q_terms, hits, weak_rows(weight, pool))
    found = set().union(*(terms(e.sentence) for e in kept)) if kept else set()
    share = len(q_terms & found) / len(q_terms)
    best = max((overlap(q_terms, e.sentence) for e in kept), default=0.0)
    if share >= 0.6 and best >= 0.4 and len(kept) >= 2:
        coverage: Coverage = "answered"
    elif share >= 0.3 and best >= 0.25:
        coverage = "partial"
    else:
        coverage = "none"
    missing = ", ".join(sorted(q_terms - found))
    return kept, coverage, (f"terms not found: {missing}" if missing else "")


def context_text(kept: list[Extract]) -> str:
    """Context lines in the LLM format: ``- sentence [evidence id]``."""
    return "\n".join(f"- {e.sentence} [{e.evidence_id}]" for e in kept)


def context_lines(context: str) -> list[tuple[str, list[str]]]:
    """``(sentence, [evidence ids])`` from context lines ``- fact [id]`` (the inverse of
    ``context_text``; LLM contexts in the same format parse too)."""
    out = []
    for line in context.splitlines():
        line = re.sub(r"^\s*[-*•]\s*", "", line).strip()
        ids = re.findall(r"\[([^\[\]]+)\]", line)
        text = re.sub(r"\s*\[[^\[\]]+\]", "", line).strip()
        if text and ids:
            out.append((text, [p.strip() for i in ids for p in i.split(",")]))
    return out


def restore_ids(context: str, known: list[str]) -> str:
    """``context`` with each evidence id as the model saw it in its fence (``fence_id``:
    shortened, unsafe characters replaced) put back to the real id."""
    from core.llm.prompts import fence_id

    alias = {fence_id(k): k for k in known if fence_id(k) != k}
    if not alias:
        return context

    def sub(m: re.Match) -> str:
        parts = re.split(r"([,;]\s*)", m.group(1))
        return "[" + "".join(alias.get(p.strip(), p) for p in parts) + "]"

    return re.sub(r"\[([^\[\]]+)\]", sub, context)


def cited_ids(context: str, known: list[str]) -> list[str]:
    """Known evidence ids referenced in ``context``, in order of first mention."""
    out = []
    for m in re.finditer(r"\[([^\[\]]+)\]", context):
        for part in re.split(r"[,;]\s*", m.group(1)):
            if part.strip() in known and part.strip() not in out:
                out.append(part.strip())
    return out


def distiller_messages(step: PlanStep, query: str, hits: list[Hit]) -> list[tuple[str, str]]:
    from core.llm.prompts import fence_evidence, with_safety

    blocks = [{"id": h.chunk.chunk_id, "text": h.chunk.text, "source": _source(h)} for h in hits]
    user = (f"Sub-question: {step.sub_question}\nSearch query: {query}\n\n"
            f"Evidence:\n{fence_evidence(blocks)}")
    return [("system", with_safety(DISTILL_PROMPT)), ("user", user)]


def _source(hit: Hit) -> str:
    d = hit.document
    if hit.chunk.doc_id == "web":
        return f"web: {hit.chunk.section} ({d.period if d else 'undated'})"
    return hit.citation_label


@dataclass
class Distilled:
    """The distiller's result for one step."""

    context: str
    evidence_ids: list[str]
    finding: str
    coverage: Coverage
    missing: str
    source: str
    call: RoleCall
    extracts: list[Extract] = field(default_factory=list)


def asks_risks(step: PlanStep) -> bool:
    """True when the step is about risks (its question, or a risk-factor section filter)."""
    return "risk" in terms(f"{step.sub_question} {step.section or ''}")


def distill(step: PlanStep, query: str, hits: list[Hit], ignore: set[str],
            deps: AgentDeps) -> Distilled:
    """One LLM call (distil + reflect), or the offline extractive rule."""
    known = [h.chunk.chunk_id for h in hits]
    call = ask_llm(deps, "distiller", DistillOutput, distiller_messages(step, query, hits))
    if call.value is not None and call.value.context.strip():
        v = call.value
        context, dropped = known_lines(restore_ids(v.context, known), known)
        ids = cited_ids(context, known)
        if dropped and ids:
            marks = dict.fromkeys(m for ln in dropped for m in re.findall(r"\[[^\[\]]+\]", ln))
            note = (f"distiller: dropped {len(dropped)} context line(s) citing evidence that "
                    f"was not retrieved: {', '.join(list(marks)[:5])}")
            call = replace(call, warning=f"{call.warning} {note}" if call.warning else note)
        if ids or v.coverage == "none":
            return Distilled(context.strip(), ids, v.finding.strip(), v.coverage, v.missing,
                             "llm", call)
    if call.value is not None:  # answered, but nothing usable: a fallback all the same
        call = call.fell_back("distiller: the LLM's context cited no evidence id; used the "
                              "offline rule instead.")
    kept, coverage, missing = extract(f"{query} {step.sub_question}", hits, ignore,
                                      deps.text_embedder, prefer_summaries=asks_risks(step))
    ids = list(dict.fromkeys(e.evidence_id for e in kept))
    return Distilled(context_text(kept), ids, "", coverage, missing, "offline", call, kept)
