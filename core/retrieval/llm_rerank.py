"""LLM reranking: the configured chat model grades the top candidates in one batched call.

The first ``settings.llm_rerank_candidates`` hits (first-stage order) are shown to the
model as fenced evidence blocks (untrusted data, never instructions) with their filing,
section and page; it returns a 0-3 grade per passage. Hits are ordered by grade, ties
keeping their first-stage order; candidates beyond the batch follow in their order. A
failed or unusable reply keeps the first-stage order and says so in ``last_warning``;
the search never fails because of it. One call per search: the agent counts it in the
run's budget under the role ``reranker``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from core.foundation.types import Hit, RerankerInfo
from core.llm.prompts import fence_evidence, with_safety
from core.retrieval.fallback import apply_rerank_scores

RERANK_PROMPT = """You grade evidence for a financial analyst's search over SEC filings.
For every passage, grade how directly it helps answer the query:
3 = states the answer (the figure, fact or statement line asked for); 2 = closely relevant;
1 = on the topic but does not answer; 0 = unrelated or about another company or period.
Return one grade for every passage id."""
PASSAGE_CHARS = 700


class PassageGrade(BaseModel):
    """The grade of one passage."""

    id: str = Field(description="The passage id exactly as shown, e.g. 'p3'.")
    grade: int = Field(ge=0, le=3, description="0 unrelated ... 3 states the answer.")


class RerankGrades(BaseModel):
    """The reranker's reply."""

    grades: list[PassageGrade] = Field(description="One grade per passage.")


Ask = Callable[[type[BaseModel], list[Any]], BaseModel | None]


def rerank_messages(query: str, hits: list[Hit]) -> list[tuple[str, str]]:
    """The system and user messages of one reranking call."""
    blocks = []
    for n, hit in enumerate(hits, start=1):
        c = hit.chunk
        text = f"{c.context}\n{c.text}" if c.context else c.text
        blocks.append({"id": f"p{n}", "text": text[:PASSAGE_CHARS],
                       "source": hit.citation_label})
    return [("system", with_safety(RERANK_PROMPT)),
            ("user", f"Query: {query}\n\nPassages:\n{fence_evidence(blocks)}")]


class LLMReranker:
    """Reranks with one structured LLM call per search (see the module docstring)."""

    def __init__(self, ask: Ask, model: str, *, candidates: int = 12, reason: str = ""):
        if candidates <= 0:
            raise ValueError("candidates must be greater than 0")
        self.ask = ask
        self.candidates = candidates
        self.last_warning: str | None = None
        self.info = RerankerInfo(
            name=f"llm:{model}", kind="llm",
            reason=reason or f"the configured LLM grades the top {candidates} candidates",
        )

    def rerank(self, query: str, hits: list[Hit], top_n: int) -> list[Hit]:
        if not hits:
            return []
        batch = hits[: self.candidates]
        self.last_warning = None
        try:
            reply = self.ask(RerankGrades, rerank_messages(query, batch))
        except Exception as exc:  # noqa: BLE001 - reranking degrades, never fails a search
            reply = None
            self.last_warning = (f"LLM rerank failed ({type(exc).__name__}): kept the "
                                 "first-stage order")
        grades = {g.id: g.grade for g in reply.grades} if reply is not None else {}
        if reply is None and self.last_warning is None:
            self.last_warning = "LLM rerank gave no usable grades: kept the first-stage order"
        n = len(batch)
        # Grade first; the first-stage order breaks ties (and is the whole order on failure).
        scores = np.array([grades.get(f"p{i}", 0) + (n - i) / (n + 1)
                           for i in range(1, n + 1)], dtype=np.float64)
        ranked = apply_rerank_scores(batch, scores, min(top_n, n))
        rest = [h.model_copy(update={"rank": len(ranked) + i}) for i, h in
                enumerate(hits[n: n + max(0, top_n - n)], start=1)]
        return ranked + rest
