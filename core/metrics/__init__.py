"""The metric catalogue: what analysts name, where filings print it, how it is derived.

Foundation layer (imports nothing from core but itself): ingest tags facts with
``metric_for_concept`` / ``metric_for_label``, retrieval reads the search glossary, the
figures layer reads formulas and sign conventions. The data is ``catalog.toml``.
"""

from __future__ import annotations

from core.metrics.catalog import (
    Catalog,
    Metric,
    MetricMatch,
    SearchGroup,
    allowed,
    catalog,
    normalise_label,
    unit_kind,
)

__all__ = ["Catalog", "Metric", "MetricMatch", "SearchGroup", "allowed", "catalog",
           "find_metrics", "get_metric", "metric_for_concept", "metric_for_label",
           "metrics_for_label", "normalise_label", "unit_kind"]


def get_metric(key: str) -> Metric | None:
    """The catalogue entry ``key`` ('capex'), or None."""
    return catalog().get(key)


def metric_for_concept(concept: str | None) -> str | None:
    """The metric an XBRL concept reports ('us-gaap:Revenues' -> 'revenue'), or None."""
    found = catalog().metrics_for_concept(concept)
    return found[0] if found else None


def metric_for_label(label: str, statement: str | None = None, *,
                     unit: str | None = None) -> str | None:
    """The metric a printed line item reports, or None.

    ``statement`` ('income', 'balance', 'cash_flow', ...; None for a note or MD&A table)
    keeps balances off flow statements and flows off the balance sheet; ``unit`` (the
    fact's: 'USD', 'shares', 'USD/share') separates "Diluted" per-share from share counts.
    """
    found = catalog().metrics_for_label(label, statement, unit)
    return found[0] if found else None


def metrics_for_label(label: str, statement: str | None = None, *,
                      unit: str | None = None) -> list[str]:
    """Every metric a printed line item may report, best first."""
    return catalog().metrics_for_label(label, statement, unit)


def find_metrics(text: str) -> list[MetricMatch]:
    """The metric names ``text`` uses (longest first where they overlap), in text order."""
    return catalog().find_metrics(text)
