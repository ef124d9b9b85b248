"""Rewriter + supervisor role (one LLM call): the step's retrieval query and strategy.

The query is built from the step's keywords and the findings so far; the
supervisor part picks vector, keyword (BM25) or hybrid (RRF) with a reason.
Offline rule: query = the step's sub-question as written, followed by any of its
keywords the sub-question does not already contain (an analyst's added terms, or the
referent a dependent step carries); strategy = hybrid, the measured default (a rule by
query features, short/ticker -> keyword and long -> vector, measured weaker on both
external benchmark sets).

Either way, a filing step filtered to documents does not search for what the filter
already enforces: ``scope_query`` drops the company name, ticker, fiscal year and
form-type words of those documents (and the words of the section filter's title)
from the query, since every candidate matches them and they only add noise to BM25
and the embedding. Web queries keep them: there they pick the right company.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from core.agent.deps import AgentDeps, ask_llm
from core.agent.doc_facts import company_words
from core.agent.state import PlanStep, StepRecord, Strategy
from core.agent.text import content_words, terms
from core.retrieval.scope import match_companies
from core.store.tokenize import fold_plural, tokenize

REWRITER_PROMPT = """You prepare one retrieval step of a financial research agent.
Given the step's sub-question, its keywords and the findings of earlier steps, write:
- query: a concise search query (key entities, terms and figures; no filler words) that finds
  passages answering the sub-question; resolve references like "this strategy" using findings;
- strategy: "keyword" (BM25) for exact terms, figures, tickers, quoted names; "vector" for
  conceptual or paraphrased questions; "hybrid" (both, fused by RRF) when unsure;
- justification: one sentence on why that strategy fits this query.
The tool ({tool}) and filters are fixed by the plan; you only write the query. When the step
is filtered to specific filings, leave out their company name, ticker, year and form type."""

COMMON_ACRONYMS = frozenset(
    "AI ML US USA EU UK CEO CFO GAAP SEC IT PC GPU CPU DC LLC INC FY Q1 Q2 Q3 Q4 OK".split()
)
_FORM_WORDS = re.compile(
    r"\b(?:form\s+)?(?:10-?K(?:405)?|10-?Q|20-?F|40-?F|8-?K)(?:/A)?\b|"
    r"\b(?:annual|quarterly)\s+reports?\b|\bfilings?\b|\bform\b", re.IGNORECASE)
_POSSESSIVE = r"(?:['\u2019]s)?\b"


def _doc_patterns(query: str, doc_ids: list[str], deps: AgentDeps) -> list[re.Pattern]:
    """Patterns of what the document filter enforces: company, ticker, fiscal year, form."""
    pats = [_FORM_WORDS]
    for doc_id in doc_ids:
        doc = deps.corpus.doc(doc_id)
        if doc is None:
            continue
        words = company_words(doc.company, limit=3)
        if len(words) > 1:
            joined = r"[\s,.&]+".join(re.escape(w) for w in words)
            pats.append(re.compile(rf"\b{joined}{_POSSESSIVE}", re.IGNORECASE))
        if words:  # "NVIDIA"/"Nvidia"; a plain word ("General") only as the name writes it
            flags = re.IGNORECASE if words[0].isupper() and len(words[0]) > 1 else 0
            pats.append(re.compile(rf"\b{re.escape(words[0])}{_POSSESSIVE}", flags))
        facts = deps.corpus.facts.get(doc_id)
        for ticker in {facts.ticker if facts else None, doc.ticker} - {None, ""}:
            pats.append(re.compile(rf"\b{re.escape(ticker)}{_POSSESSIVE}"))
        for raw in match_companies(query, [doc]):  # how the registry resolves names
            pats.append(re.compile(rf"\b{re.escape(raw)}{_POSSESSIVE}"))
        for year in re.findall(r"(?:19|20)\d\d", doc.period):
            pats.append(re.compile(rf"\b(?:FY\s?|fiscal\s+(?:year\s+)?)?{year}\b|"
                                   rf"\bFY{year[2:]}\b", re.IGNORECASE))
    return pats


def _section_words(section: str | None) -> set[str]:
    """Folded words of the section filter's title ("Risk Factors" -> risk, factor)."""
    if not section:
        return set()
    return {fold_plural(t) for t in tokenize(section) if t.isalpha() and t != "item"}


_DANGLING = re.compile(r"(?:\s+\b(?:in|of|for|on|at|by|from|to|and|or|the|a|an|its|their)\b)+"
                       r"\s*[?.!]?$", re.IGNORECASE)


def _tidy(text: str) -> str:
    """Whitespace and punctuation cleaned; a preposition left dangling at the end by a
    removed company or year ("What was revenue in") goes too."""
    text = re.sub(r"\s+([,.;:?!])", r"\1", " ".join(text.split()))
    text = re.sub(r"^[\s,.;:'\u2019-]+|[\s,;:'\u2019-]+$", "", text)
    return _DANGLING.sub("", text)


def scope_query(query: str, step: PlanStep, deps: AgentDeps, scope: list[str] | None = None
                ) -> tuple[str, list[str]]:
    """``(query, dropped words)``: the query without what the step's filters enforce (see
    the module docstring). Unchanged for web steps and unfiltered steps; section words stay
    when nothing else would be left, and the query stays whole when nothing would be."""
    if step.tool != "filing_search":
        return query, []
    doc_ids = step.doc_ids or list(scope or [])
    dropped: list[str] = []
    out = query
    if doc_ids:
        for pat in _doc_patterns(query, doc_ids, deps):
            dropped += [m.group(0).strip() for m in pat.finditer(out) if m.group(0).strip()]
            out = pat.sub(" ", out)
    section = _section_words(step.section)
    kept, gone = [], []
    for word in out.split():
        toks = tokenize(word)
        (gone if toks and {fold_plural(t) for t in toks} <= section else kept).append(word)
    if gone and content_words(" ".join(kept)):
        out, dropped = " ".join(kept), dropped + [w.strip(".,;:!?()\"'") for w in gone]
    out = _tidy(out)
    if not dropped or not content_words(out):
        return query, []
    return out, list(dict.fromkeys(dropped))


class RewriteOutput(BaseModel):
    """The rewriter/supervisor's reply."""

    query: str = Field(description="The retrieval query.")
    strategy: Strategy = Field(description="vector, keyword or hybrid retrieval.")
    justification: str = Field(description="Why this strategy fits the query.")


def offline_query(step: PlanStep) -> str:
    """The sub-question as written plus the keywords it does not already contain."""
    text = " ".join(step.sub_question.split()).rstrip(" ?.!")
    have = terms(text)
    extra = [k.strip() for k in step.keywords
             if k.strip() and not terms(k) <= have]
    return " ".join([text, *dict.fromkeys(extra)]).strip()


OFFLINE_STRATEGY: Strategy = "hybrid"
OFFLINE_STRATEGY_WHY = ("hybrid (BM25 and embeddings fused by RRF): the measured default "
                        "offline; choosing by query features measured weaker")


def rewriter_messages(step: PlanStep, history: list[StepRecord]) -> list[tuple[str, str]]:
    from core.llm.prompts import fence_evidence, with_safety

    findings = [{"id": f"finding-{r.step + 1}", "text": r.finding}
                for r in history if r.finding]
    user = (f"Sub-question: {step.sub_question}\nKeywords: {', '.join(step.keywords) or '-'}\n"
            f"Section filter: {step.section or 'none'}\n\nFindings so far:\n"
            + (fence_evidence(findings) if findings else "(none yet)"))
    return [("system", with_safety(REWRITER_PROMPT.format(tool=step.tool))), ("user", user)]


def rewrite(step: PlanStep, history: list[StepRecord], deps: AgentDeps,
            scope: list[str] | None = None):
    """``(query, strategy, justification, source, RoleCall)`` for one step; the query is
    scoped by ``scope_query`` (the justification says what was dropped)."""
    call = ask_llm(deps, "rewriter", RewriteOutput, rewriter_messages(step, history))
    if call.value is not None and call.value.query.strip():
        v = call.value
        query, dropped = scope_query(v.query.strip(), step, deps, scope)
        return query, v.strategy, v.justification + _dropped_note(dropped), "llm", call
    query, dropped = scope_query(offline_query(step), step, deps, scope)
    return query, OFFLINE_STRATEGY, OFFLINE_STRATEGY_WHY + _dropped_note(dropped), "offline", \
        call


def _dropped_note(dropped: list[str]) -> str:
    if not dropped:
        return ""
    return (f" (left out of the query: {', '.join(dropped)}; the document/section filters "
            "already enforce them)")
