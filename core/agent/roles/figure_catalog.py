"""The metric catalogue and the formula grammar as the agent reads them: metric keys and
labels (``core.metrics``), units (``core.figures.model.UnitAsked``), a formula's inputs and
its words (``core.figures.formula``)."""

from __future__ import annotations


def formula_refs(formula: str) -> list[tuple[str, str]]:
    """``(metric, period)`` of every input of ``formula``, in order, once each; raises
    ``core.figures.formula.FormulaError`` (saying where and why) for a bad formula."""
    from core.figures import formula as grammar

    try:
        return [(r.metric, r.period) for r in grammar.inputs(grammar.parse(formula))]
    except RecursionError:  # the parser recurses once per bracket and operator
        raise grammar.FormulaError(f"the formula is nested too deeply ({len(formula):,} "
                                   "characters): write it with fewer brackets and terms, "
                                   "or as several compute steps") from None


def formula_inputs(formula: str) -> list[tuple[str, str, str | None]]:
    """``(metric, period, member)`` of every input of ``formula`` (member: the segment,
    product line or region a reference names, ``revenue{Digital Media}[FY2024]``; None for
    the entity's), in order, once each; raises ``FormulaError`` like ``formula_refs``."""
    from core.figures import formula as grammar

    return [(r.metric, r.period, r.member) for r in grammar.inputs(grammar.parse(formula))]


def known_metrics() -> dict[str, str]:
    """The metric catalogue's keys and their names (what a figure step may look up)."""
    from core.metrics import catalog

    return {m.key: m.label for m in catalog().metrics.values()}


def unit_names() -> list[str]:
    """The units a figure may be stated in (``core.figures.model.UnitAsked``)."""
    from typing import get_args

    from core.figures.model import UnitAsked

    return list(get_args(UnitAsked))


def formula_name(formula: str) -> str:
    """A formula in words, to name a figure nobody named ('operating income / revenue')."""
    from core.figures import formula as grammar

    try:
        return grammar.render(grammar.parse(formula), lambda r: metric_label(r.metric))
    except grammar.FormulaError:
        return "the figure"


def metric_label(metric: str) -> str:
    """The metric as a reader names it (the catalogue's label; else its key in words)."""
    from core.metrics import get_metric

    found = get_metric(metric)
    return found.label if found is not None else metric.replace("_", " ")
