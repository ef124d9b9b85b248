"""The metric catalogue key of a fact (``core.metrics``): by its XBRL concept first, else by
its printed line item within its statement and unit. A filing prints each line for
several periods, so answers are remembered per (concept, label, statement, unit).

A member's profit measure is its operating result whatever the filer calls it: a segment's
"EBIT", "Segment operating profit", "Segment income", "Operating result" (a custom concept
such as 'acme:SegmentEbit', or the line a segment table prints) is its ``operating_income``;
pre-tax and net figures, margins, EBITDA and other items are not (``segment_profit``).
"""

from __future__ import annotations

import re
from functools import lru_cache

from core.foundation.types import Fact
from core.ingest.facts.xbrl import concept_words
from core.metrics import metric_for_concept, metric_for_label

_NOT_PROFIT = re.compile(r"\bEBITDA\b|margin|percent|%|ratio|per\s+share|\bgrowth\b|\bchange\b|"
                         r"\bother\b|\bnon[-\s]?operating|intersegment|eliminat|discontinued|"
                         r"adjustment|reconcil|unallocated", re.I)
_EBIT = re.compile(r"\bEBIT\b|\bearnings\s+before\s+interest\s+and\s+(?:income\s+)?taxes\b",
                   re.I)
_PRE_TAX = re.compile(r"\btax|\bnet\b|expense|\bcosts?\b|\blease\b", re.I)
_PROFIT = re.compile(r"\boperating\s+(?:income|profit|earnings|results?)\b|"
                     r"\bsegments?\s+(?:operating\s+)?(?:income|profit|earnings|results?)\b",
                     re.I)


@lru_cache(maxsize=4096)
def segment_profit(text: str) -> bool:
    """Whether a member's line or concept words ``text`` name its operating result (module
    docstring)."""
    if not text or _NOT_PROFIT.search(text):
        return False
    if _EBIT.search(text):
        return True
    return not _PRE_TAX.search(text) and bool(_PROFIT.search(text))


def metric_of(fact: Fact) -> str | None:
    """Catalogue key for a fact, or None when the catalogue does not know it. A tagged
    member's fact (an XBRL axis member) is printed under the member's name, not the line
    item's: it is known by its concept only; a table's member (a segment column or row)
    carries the line it breaks down as its label ("Revenue"). A member's profit measure is
    its operating income (module docstring)."""
    if fact.dims and fact.source == "xbrl":
        found = metric_for_concept(fact.concept) if fact.concept else None
    else:
        found = _metric(fact.concept, fact.label, fact.statement, fact.unit)
    if found is None and fact.dims and _money(fact.unit) and (
            segment_profit(fact.label) or
            (fact.concept and segment_profit(concept_words(fact.concept)))):
        return "operating_income"
    return found


def _money(unit: str) -> bool:
    return bool(re.fullmatch(r"[A-Z]{3}", unit or ""))


@lru_cache(maxsize=20_000)
def _metric(concept: str | None, label: str, statement: str | None, unit: str) -> str | None:
    return metric_for_concept(concept) or metric_for_label(label, statement, unit=unit)
