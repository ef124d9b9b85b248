"""Rewriter + supervisor role (one LLM call): the step's retrieval query and strategy.

The query is built from the step's keywords and the findings so far; the
supervisor part picks vector, keyword (BM25) or hybrid (RRF) with a reason.
Offline rule: query = the step's keywords (else the sub-question's content words);
strategy by query features: quoted terms, figures or tickers -> keyword, a long
conceptual query -> vector, otherwise hybrid.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from core.agent.common import filter_terms
from core.agent.deps import AgentDeps, ask_llm
from core.agent.state import PlanStep, StepRecord, Strategy
from core.agent.text import content_words

REWRITER_PROMPT = """You prepare one retrieval step of a financial research agent.
Given the step's sub-question, its keywords and the findings of earlier steps, write:
- query: a concise search query (key entities, terms and figures; no filler words) that finds
  passages answering the sub-question; resolve references like "this strategy" using findings;
- strategy: "keyword" (BM25) for exact terms, figures, tickers, quoted names; "vector" for
  conceptual or paraphrased questions; "hybrid" (both, fused by RRF) when unsure;
- justification: one sentence on why that strategy fits this query.
The tool ({tool}) and filters are fixed by the plan; you only write the query."""

COMMON_ACRONYMS = frozenset(
    "AI ML US USA EU UK CEO CFO GAAP SEC IT PC GPU CPU DC LLC INC FY Q1 Q2 Q3 Q4 OK".split()
)


class RewriteOutput(BaseModel):
    """The rewriter/supervisor's reply."""

    query: str = Field(description="The retrieval query.")
    strategy: Strategy = Field(description="vector, keyword or hybrid retrieval.")
    justification: str = Field(description="Why this strategy fits the query.")


def offline_query(step: PlanStep) -> str:
    """The step's keywords, else the sub-question's content words."""
    words = [k.strip() for k in step.keywords if k.strip()] or content_words(step.sub_question)
    return " ".join(words) or step.sub_question


def choose_strategy(query: str, covered: set[str] | None = None) -> tuple[Strategy, str]:
    """Strategy by query features; ``covered`` holds words already enforced by filters."""
    covered = {c.lower() for c in (covered or set())}
    query = re.sub(r"\b(?:10-?K|10-?Q|8-?K|20-?F|S-1)\b", " ", query, flags=re.IGNORECASE)
    quoted = re.findall(r"\"([^\"]{2,})\"|“([^”]{2,})”", query)
    if quoted:
        term = next(q for pair in quoted for q in pair if q)
        return "keyword", f"the quoted term '{term}' needs exact matching (BM25)"
    figures = [n for n in re.findall(r"\$?\d[\d,.]*%?", query)
               if not re.fullmatch(r"(19|20)\d\d", n) and len(n.strip("$%,.")) >= 2]
    if figures:
        return "keyword", f"the figure '{figures[0]}' needs exact matching (BM25)"
    tickers = [t for t in re.findall(r"\b[A-Z]{2,5}\b", query)
               if t not in COMMON_ACRONYMS and t.lower() not in covered]
    if tickers:
        return "keyword", f"the ticker/name '{tickers[0]}' needs exact matching (BM25)"
    words = content_words(query, limit=50)
    if len(words) >= 7:
        return "vector", f"a long conceptual query ({len(words)} content words) suits embeddings"
    return "hybrid", "a short mixed query: fuse BM25 and embeddings (RRF)"


def rewriter_messages(step: PlanStep, history: list[StepRecord]) -> list[tuple[str, str]]:
    from core.llm.prompts import fence_evidence, with_safety

    findings = [{"id": f"finding-{r.step + 1}", "text": r.finding}
                for r in history if r.finding]
    user = (f"Sub-question: {step.sub_question}\nKeywords: {', '.join(step.keywords) or '-'}\n"
            f"Section filter: {step.section or 'none'}\n\nFindings so far:\n"
            + (fence_evidence(findings) if findings else "(none yet)"))
    return [("system", with_safety(REWRITER_PROMPT.format(tool=step.tool))), ("user", user)]


def rewrite(step: PlanStep, history: list[StepRecord], deps: AgentDeps):
    """``(query, strategy, justification, source, RoleCall)`` for one step."""
    call = ask_llm(deps, "rewriter", RewriteOutput, rewriter_messages(step, history))
    if call.value is not None and call.value.query.strip():
        v = call.value
        return v.query.strip(), v.strategy, v.justification, "llm", call
    query = offline_query(step)
    strategy, why = choose_strategy(query, filter_terms(step, deps))
    return query, strategy, why, "offline", call
