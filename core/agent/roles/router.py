"""Complexity router: a simple factual question takes the fast path (one step, no plan
review unless the analyst asks for it); anything else gets the deep plan.

A rule over the question's shape, so it costs no LLM call either way. Simple means all of:
one clause; at most ``FAST_MAX_WORDS`` words; a fact-asking opening ("What was ...", "How
much/many ...", "When did ...", "Who is ..."); a period named (a figure's year) unless it asks
how much/many, when or who; at most one company of the corpus named; no request for news
or post-filing sources; no analytic cue (why, explain, describe, compare, versus, differ,
impact, affect, trend, change, relate); no reference back. The reason says which check
sent the question down the deep path.

A lone figure question ("What was X's revenue in fiscal 2023 and how did it change from
fiscal 2022?", every clause answered by look-up and compute steps, ``figure_plan``) takes
the fast path too: its steps read facts and do arithmetic, with no text search.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from core.agent.deps import AgentDeps
from core.agent.roles.plan_rules import split_clauses
from core.agent.roles.planner import WEB_CUES
from core.retrieval.scope import match_companies, question_periods

FAST_MAX_WORDS = 25
_FACT_OPENING = re.compile(
    r"^\s*(?:(?:what|which)\s+(?:was|is|were|are)\b|how\s+(?:much|many)\b|"
    r"when\s+(?:did|was|is|were)\b|who\s+(?:is|was|are|were)\b)", re.IGNORECASE)
_QUANTITY = re.compile(r"^\s*(?:how\s+(?:much|many)|when|who)\b", re.IGNORECASE)
_ANALYTIC = re.compile(
    r"\b(?:why|explain\w*|describ\w*|compar\w*|versus|vs\.?|differ\w*|impact\w*|affect\w*|"
    r"trend\w*|chang\w*|relat\w*|how\s+did|how\s+does|assess\w*|evaluat\w*|analy[sz]\w*)\b",
    re.IGNORECASE)
_BACK = re.compile(r"\b(?:this|these|those|such|it|they|them)\b", re.IGNORECASE)

Path = Literal["fast", "deep"]


@dataclass
class Route:
    """The router's choice and the reason a reader can check."""

    path: Path
    reason: str


def route_question(question: str, deps: AgentDeps, scope: list[str] | None = None) -> Route:
    """The path for ``question`` (see the module docstring)."""
    q = " ".join(question.split())
    docs = [d for d in deps.corpus.documents if not scope or d.doc_id in scope]
    figure = figure_route(q, deps, scope or [])
    if figure is not None:
        return figure
    clauses = split_clauses(q)
    checks = [
        (len(clauses) <= 1, f"it has {len(clauses)} parts"),
        (len(q.split()) <= FAST_MAX_WORDS, f"it is longer than {FAST_MAX_WORDS} words"),
        (bool(_FACT_OPENING.search(q)), "it does not open by asking for a fact "
                                        "(what was/is, how much/many, when, who)"),
        (bool(_QUANTITY.search(q) or question_periods(q)[0]),
         "it names no period for a figure (a listing or description needs a plan)"),
        (len(match_companies(q, docs)) <= 1, "it names more than one company"),
        (not WEB_CUES.search(q), "it asks for news or post-filing sources"),
        (not _ANALYTIC.search(q), f"it asks for analysis "
                                  f"('{(_ANALYTIC.search(q) or [''])[0]}')"),
        (not _BACK.search(q), "it refers to something outside itself"),
    ]
    failed = [why for ok, why in checks if not ok]
    if failed:
        return Route("deep", "deep research plan: " + "; ".join(failed))
    return Route("fast", "fast path: a single factual question (one part, one company at "
                         "most, no analysis or news asked): one retrieval step")


def figure_route(question: str, deps: AgentDeps, scope: list[str]) -> Route | None:
    """The fast path for a question that only asks for figures (see the module docstring)."""
    from core.agent.roles.figure_plan import figure_doc_ids, split_question

    split = split_question(question, deps, scope)
    if not split.figure_only or not all(
            figure_doc_ids(p, split, question, deps, scope)[0] for p in split.figures):
        return None
    what = "; ".join(f"{p.analysis.spec.kind} of {p.analysis.spec.name} for "
                     f"{', '.join(dict.fromkeys(p.analysis.who))}" if p.analysis is not None else
                     f"{p.request.name}, {', '.join(p.request.periods) or 'the period asked'}"
                     for p in split.figures)
    return Route("fast", f"fast path: a figure question ({what}): look-up and compute steps "
                         "over the filings' facts, no text search")
