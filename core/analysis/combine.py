"""Combining figures into an analysis: the one entry the CLI, the agent and tests call.

``analyze(spec, figures, subjects)`` turns the ``FigureResult`` of each input (in the
spec's label order) into peer rows and decides by the spec's kind, as ``declared.KINDS``
declares it (``peers`` for compare and rank, ``verdicts`` for yes/no and several
figures). ``lead(result, ...)`` writes the answer's first line again with a citation mark
after each figure (the record's ``lead`` is the same line unmarked).
"""

from __future__ import annotations

from collections.abc import Callable

from core.analysis.declared import KINDS
from core.analysis.model import AnalysisResult, AnalysisSpec, PeerRow
from core.analysis.rows import not_loaded, row_of
from core.figures.model import FigureResult


def labels_for(spec: AnalysisSpec, count: int,
               figures: list[FigureResult] | None = None) -> list[str]:
    """The name of each input in the answer: the spec's labels when there is one per input;
    otherwise (a plan edited to more or fewer inputs) each figure's own segment, company or
    period, never a label shifted onto another figure."""
    if len(spec.labels) == count or not figures:
        labels = list(spec.labels[:count])
        return labels + [f"figure {k + 1}" for k in range(len(labels), count)]
    return [f.request.member or (f.request.companies[0] if f.request.companies else "")
            or (f.request.periods[-1] if f.request.periods else "") or f"figure {k + 1}"
            for k, f in enumerate(figures)]


def analyze(spec: AnalysisSpec, figures: list[FigureResult], subjects: list[str],
            store=None) -> AnalysisResult:
    """The analysis of ``figures`` (see the module docstring); ``subjects[i]`` is the company
    of ``figures[i]`` as the question names it; ``store`` (the facts) is read by a pick."""
    decl = KINDS[spec.kind]
    rows = [] if spec.kind == "pick" else [
        row_of(label, fig).model_copy(update={"figure": k}) for k, (label, fig) in enumerate(
            zip(labels_for(spec, len(figures), figures), figures, strict=True))]
    if spec.kind in ("compare", "rank", "verdict"):
        rows += [PeerRow(label=name, missing=not_loaded(name)) for name in spec.absent]
    out = decl.decide(spec, rows, figures, subjects, store)
    if spec.kind == "pick":
        return out
    out.figures, out.subjects = list(figures), list(subjects)
    if spec.kind == "multi":  # each company its own measure: named from its figure
        out.lead = decl.lead(out, lambda _r: "")
    if spec.reading and spec.reading not in out.notes:
        out.notes.insert(0, spec.reading)
    return out


def figure_of(result: AnalysisResult, row: PeerRow) -> FigureResult | None:
    """The figure ``row`` states (its own company's work), or None (a company not loaded)."""
    k = row.figure
    return result.figures[k] if k is not None and 0 <= k < len(result.figures) else None


def lead(result: AnalysisResult, mark: Callable[[PeerRow], str]) -> str:
    """The answer's first line for ``result``, ``mark(row)`` after each row's figure."""
    return KINDS[result.spec.kind].lead(result, mark)


def answer_analysis(plan, store) -> AnalysisResult:
    """Look up every figure of an ``AnalysisPlan`` in ``store``'s facts and combine them (what
    the CLI and tests call; the agent runs the same look-ups as plan steps)."""
    from core.figures.compute import answer_figure

    figures = [answer_figure(r, store) for r in plan.requests]
    return analyze(plan.spec, figures, plan.who, store)
