"""Date filter for web steps: news "from 2024", "post-filing" or "recent" only.

``web_after`` reads the web step's sub-question (then the analyst's question) and
returns the earliest publication date to accept, with the reason:

* an explicit year ("from 2024", "in 2024", "since 2024", "during 2024") -> 2024-01-01;
  "after 2023" -> 2024-01-01;
* otherwise "post-filing", "after the filing", "recent", "latest" -> the day after the
  period end of the filing the plan's filing steps search (from its cover page), when known.

An explicit year wins over the relative cues: "post-filing, from 2024" over a FY2024
report that ended in December 2024 still means news from 2024.
Every ``WebSearch`` provider accepts ``after=`` (it is part of the protocol).
"""

from __future__ import annotations

import re

from core.agent.deps import CorpusInfo
from core.agent.state import PlanStep

_YEAR = re.compile(r"\b(from|in|since|during|throughout|after|post)\s+(?:early\s+|late\s+|"
                   r"mid-?\s*)?((?:19|20)\d\d)\b", re.IGNORECASE)
_POST_FILING = re.compile(r"\bpost-?\s?filing\b|\bafter\s+(?:the|its|their)\s+(?:filing|"
                          r"10-?[KQ]|annual report|report)\b|\brecent(?:ly)?\b|\blatest\b",
                          re.IGNORECASE)


def _year_start(text: str) -> tuple[str | None, str]:
    found = {(m.group(1).lower(), int(m.group(2))) for m in _YEAR.finditer(text)}
    years = {y + 1 if word == "after" else y for word, y in found}
    if len(years) != 1:  # none, or several (a range, a comparison): no single bound
        return None, ""
    year = years.pop()
    word, said = sorted(found)[0]
    return f"{year}-01-01", f"'{word} {said}'"


def _filing_after(plan: list[PlanStep], scope: list[str], corpus: CorpusInfo
                  ) -> tuple[str | None, str]:
    """The day after the latest period end among the filings the plan searches."""
    doc_ids = [d for s in plan if s.tool == "filing_search" for d in s.doc_ids] or scope \
        or [d.doc_id for d in corpus.documents]
    ends = [(f.period_end, f.after_period()) for d in dict.fromkeys(doc_ids)
            if (f := corpus.facts.get(d)) and f.after_period()]
    if not ends:
        return None, ""
    end, after = max(ends)
    return after, f"the filing's period ended {end}"


def web_after(step: PlanStep, question: str, plan: list[PlanStep], scope: list[str],
              corpus: CorpusInfo) -> tuple[str | None, str]:
    """``(earliest date ISO or None, reason)`` for a web step (see the module docstring)."""
    for text in (step.sub_question, question):
        after, said = _year_start(text)
        if after:
            return after, f"{said} in the {'step' if text is step.sub_question else 'question'}"
    for text in (step.sub_question, question):
        cue = _POST_FILING.search(text)
        if cue:
            after, why = _filing_after(plan, scope, corpus)
            if after:
                return after, f"'{cue.group(0)}': {why}"
    return None, ""

