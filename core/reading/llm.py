"""The LLM's reading: the same slots, filled through structured output, checked against the
corpus and the catalogue.

With an LLM configured the planner's one call also returns ``ReadingSlots`` (no call of its
own). ``validated`` turns them into a ``Reading`` (``source='llm'``) only with what exists:
companies of the corpus (by name, short name or ticker, never a guess), catalogue metric
keys, fiscal periods; what it had to drop is returned as problems. ``differs`` says whether
two readings ask different things (kind, companies, measures, periods, direction, test),
in which case plan review shows both.
"""

from __future__ import annotations

import math
import re
from typing import Literal

from pydantic import BaseModel, Field

from core.foundation.types import DocumentMeta
from core.reading.model import CompanyRef, Kind, MeasureRef, Reading

READING_PROMPT = """Reading: also fill "reading" with how you read the question: kind (figure,
figures, compare, rank, difference, growth_compare, verdict, trend, share, text), the companies
it names (as the document list names them, or their tickers), the metrics (keys from the metric
list), a segment or region (member) if one is named, the fiscal periods named ("FY2024"; [] for
each company's latest), direction ("lower" for "weakest first", "largest loss"), and for a
yes / no its test (above, below, grew, declined, positive, negative, more, less) and
threshold (in the figure's unit: 20 for 20%)."""
_PERIOD = re.compile(r"FY\d{4}(?:-Q[1-4])?")


class ReadingSlots(BaseModel):
    """How the LLM read the question (the planner's reply carries it)."""

    kind: Kind = Field(description="What the question asks for.")
    companies: list[str] = Field(default_factory=list, description="Companies named, as the "
                                 "document list names them or by ticker.")
    metrics: list[str] = Field(default_factory=list, description="Catalogue metric keys, in "
                               "the order asked.")
    member: str | None = Field(default=None, description="A segment or region named.")
    periods: list[str] = Field(default_factory=list, description="Fiscal periods named: "
                               "'FY2024', 'FY2024-Q1'; [] for each company's latest.")
    direction: Literal["higher", "lower"] | None = Field(default=None, description="Which "
                                                         "comes first or wins.")
    test: str | None = Field(default=None, description="What a yes / no tests.")
    threshold: float | None = Field(default=None, description="A yes / no's threshold.")


def _company(words: str, documents: list[DocumentMeta]) -> CompanyRef | None:
    from core.analysis.subjects import short_name
    from core.ingest.cover import squash
    from core.store.companies import companies

    key = squash(words)
    for group in companies(documents):
        names = {squash(group.name), squash(short_name(group.name)),
                 *(squash(t) for t in group.tickers)}
        if key and key in names:
            return CompanyRef(name=group.name, words=words, cik=group.cik,
                              doc_ids=list(group.doc_ids))
    return None


def validated(slots: ReadingSlots, question: str, documents: list[DocumentMeta]
              ) -> tuple[Reading | None, list[str]]:
    """``(the LLM's reading, what was dropped)``; None when nothing it named exists."""
    from core.metrics import get_metric

    problems: list[str] = []
    refs = []
    for words in slots.companies:
        ref = _company(words, documents)
        if ref is None:
            problems.append(f"the LLM named '{words}', which no loaded filing is of")
        elif all(r.name != ref.name for r in refs):
            refs.append(ref)
    measures = []
    for key in slots.metrics:
        entry = get_metric(key)
        if entry is None:
            problems.append(f"the LLM named the metric '{key}', which the catalogue lacks")
        else:
            measures.append(MeasureRef(name=entry.label, metric=entry.key,
                                       member=slots.member or None))
    periods = [p for p in slots.periods if _PERIOD.fullmatch(p)]
    problems += [f"the LLM named the period '{p}', not a fiscal period" for p in
                 slots.periods if p not in periods]
    threshold = slots.threshold
    if threshold is not None and not math.isfinite(threshold):
        problems.append("the LLM's threshold is not a number")
        threshold = None
    if slots.kind != "text" and (not refs or not measures):
        return None, problems + ["the LLM's reading names no company or metric that exists"]
    return Reading(question=question, text=question, kind=slots.kind, companies=refs,
                   measures=measures, periods=periods, direction=slots.direction,
                   test=slots.test, threshold=threshold, source="llm"), problems


def differs(a: Reading, b: Reading) -> bool:
    """Whether two readings ask different things (not merely say them differently)."""
    def key(r: Reading) -> tuple:
        compared = r.kind in ("compare", "rank", "difference", "growth_compare")
        return (r.kind, sorted(c.name for c in r.companies),
                [m.metric for m in r.measures], sorted(r.periods),
                (r.direction or "higher") if compared else None,
                r.test if r.kind in ("verdict", "trend") else None,
                r.threshold if r.kind == "verdict" else None)
    return key(a) != key(b)


def merged(grammar: Reading | None, slots: ReadingSlots | None, question: str,
           documents: list[DocumentMeta]) -> tuple[Reading | None, list[str]]:
    """The run's reading once the LLM has read the question too: the grammar's, with the
    LLM's beside it when they differ; the LLM's when the grammar read no figures; and what
    the check dropped from the LLM's (said in the plan's notes)."""
    if slots is None:
        return grammar, []
    llm, problems = validated(slots, question, documents)
    notes = [f"reading: {p}" for p in problems]
    if llm is None or (llm.kind == "text" and grammar is not None):
        return grammar, notes
    if grammar is None or not grammar.figures:
        return llm, notes
    if differs(grammar, llm):
        return grammar.model_copy(update={"alternative": llm}), notes
    return grammar, notes
