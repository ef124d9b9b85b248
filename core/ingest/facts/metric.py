"""The metric catalogue key of a fact (``core.metrics``): by its XBRL concept first, else by
its printed line item within its statement and unit. A filing prints each line for
several periods, so answers are remembered per (concept, label, statement, unit)."""

from __future__ import annotations

from functools import lru_cache

from core.foundation.types import Fact
from core.metrics import metric_for_concept, metric_for_label


def metric_of(fact: Fact) -> str | None:
    """Catalogue key for a fact, or None when the catalogue does not know it. A tagged
    member's fact (an XBRL axis member) is printed under the member's name, not the line
    item's: it is known by its concept only; a table's member (a segment column or row)
    carries the line it breaks down as its label ("Revenue")."""
    if fact.dims and fact.source == "xbrl":
        return metric_for_concept(fact.concept) if fact.concept else None
    return _metric(fact.concept, fact.label, fact.statement, fact.unit)


@lru_cache(maxsize=20_000)
def _metric(concept: str | None, label: str, statement: str | None, unit: str) -> str | None:
    return metric_for_concept(concept) or metric_for_label(label, statement, unit=unit)
