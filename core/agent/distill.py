"""Distiller role: the reranked evidence as a short context that keeps each fact's reference.

With an LLM this is ONE call that also does the reflection (finding, coverage,
what is missing), cutting a call per step; the reflection role (``reflect.py``)
records the result. Offline rule: extractive sentence selection scored by
query-term overlap (plus embedding cosine when an embedder is at hand), at most
two sentences per hit; coverage = share of the query's terms the kept
sentences contain.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from core.agent.deps import AgentDeps, RoleCall, ask_llm
from core.agent.state import Coverage, PlanStep
from core.agent.text import (
    content_words,
    is_heading,
    overlap,
    query_terms,
    sentences,
    shorten,
    terms,
)
from core.types import Hit

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


def _candidates(hit: Hit, with_tables: bool) -> list[str]:
    out = []
    for s in sentences(hit.chunk.text):
        if len(s.split()) < MIN_WORDS or is_heading(s):
            continue
        if s.count("|") >= 2 and not with_tables:
            continue
        out.append(shorten(s, 400))
    return out


def _weighted(q_terms: set[str], found: set[str], pool: list[set[str]]) -> float:
    """Query-term overlap weighted by rarity in the pool (IDF), 0..1."""
    n = len(pool)
    weight = {t: math.log(1 + n / (1 + sum(t in p for p in pool))) for t in q_terms}
    total = sum(weight.values()) or 1.0
    return sum(w for t, w in weight.items() if t in found) / total


def extract(query: str, hits: list[Hit], ignore: set[str], embedder=None
            ) -> tuple[list[Extract], Coverage, str]:
    """Offline distillation: ``(kept sentences best first, coverage, missing terms)``."""
    q_terms = query_terms(query) - ignore or query_terms(query)
    tables = bool(re.search(r"\d", query))
    pool = [(i, s) for i, h in enumerate(hits) for s in _candidates(h, tables)]
    if not pool or not q_terms:
        return [], "none", "no evidence was retrieved" if not pool else ""
    sent_terms = [terms(s) for _, s in pool]
    scores = [_weighted(q_terms, t, sent_terms) + 0.05 / (1 + i)
              for (i, _), t in zip(pool, sent_terms, strict=True)]
    if embedder is not None:
        focus = [w for w in content_words(query, 30) if terms(w) & q_terms]
        vecs = embedder.encode([" ".join(focus) or query] + [s for _, s in pool])
        cos = vecs[1:] @ vecs[0]
        scores = [sc + EMBED_WEIGHT * max(float(c), 0.0) for sc, c in zip(scores, cos, strict=True)]
    order = sorted(range(len(pool)), key=lambda j: -scores[j])
    kept: list[Extract] = []
    per_hit: dict[int, int] = {}
    for j in order:
        i, s = pool[j]
        if overlap(q_terms, s) == 0 or per_hit.get(i, 0) >= PER_HIT:
            continue
        per_hit[i] = per_hit.get(i, 0) + 1
        kept.append(Extract(hits[i].chunk.chunk_id, s, round(scores[j], 4)))
        if len(kept) >= MAX_SENTENCES:
            break
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


def distill(step: PlanStep, query: str, hits: list[Hit], ignore: set[str],
            deps: AgentDeps) -> Distilled:
    """One LLM call (distil + reflect), or the offline extractive rule."""
    known = [h.chunk.chunk_id for h in hits]
    call = ask_llm(deps, "distiller", DistillOutput, distiller_messages(step, query, hits))
    if call.value is not None and call.value.context.strip():
        v = call.value
        ids = cited_ids(v.context, known)
        if ids or v.coverage == "none":
            return Distilled(v.context.strip(), ids, v.finding.strip(), v.coverage, v.missing,
                             "llm", call)
    kept, coverage, missing = extract(f"{query} {step.sub_question}", hits, ignore,
                                      deps.text_embedder)
    ids = list(dict.fromkeys(e.evidence_id for e in kept))
    return Distilled(context_text(kept), ids, "", coverage, missing, "offline", call, kept)
