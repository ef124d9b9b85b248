"""Combining figures into an analysis: the one entry the CLI, the agent and tests call.

``analyze(spec, figures, subjects)`` turns the ``FigureResult`` of each input (in the
spec's label order) into peer rows and decides by the spec's kind (``peers`` for compare and
rank, ``verdicts`` for yes/no and several figures). ``lead(result, ...)`` writes the
answer's first line again with a citation mark after each figure (the record's ``lead`` is
the same line unmarked).
"""

from __future__ import annotations

from collections.abc import Callable

from core.analysis.criteria import criterion, criterion_lead
from core.analysis.model import AnalysisResult, AnalysisSpec, PeerRow
from core.analysis.peers import peers, peers_lead
from core.analysis.rows import row_of
from core.analysis.verdicts import multi, multi_lead, verdict, verdict_lead
from core.figures.model import FigureResult


def labels_for(spec: AnalysisSpec, count: int) -> list[str]:
    labels = list(spec.labels[:count])
    return labels + [f"figure {k + 1}" for k in range(len(labels), count)]


def analyze(spec: AnalysisSpec, figures: list[FigureResult], subjects: list[str],
            store=None) -> AnalysisResult:
    """The analysis of ``figures`` (see the module docstring); ``subjects[i]`` is the company
    of ``figures[i]`` as the question names it; ``store`` (the facts) is read by a pick."""
    if spec.kind == "pick":
        from core.analysis.pick import pick

        return pick(spec, figures[0], subjects[0] if subjects else "", store)
    rows = [row_of(label, fig) for label, fig in zip(labels_for(spec, len(figures)), figures,
                                                     strict=True)]
    if spec.kind in ("compare", "rank", "verdict"):
        rows += [PeerRow(label=name, missing=f"no filing of {name} is loaded (add it in the "
                         "Library or with `python -m core fetch`)") for name in spec.absent]
    if spec.kind in ("compare", "rank"):
        out = peers(spec, rows)
    elif spec.kind == "verdict":
        out = verdict(spec, rows, figures, subjects)
    elif spec.kind == "criterion":
        out = criterion(spec, rows, subjects)
    else:
        out = multi(spec, rows, subjects)
    out.figures, out.subjects = list(figures), list(subjects)
    if spec.reading and spec.reading not in out.notes:
        out.notes.insert(0, spec.reading)
    return out


def lead(result: AnalysisResult, mark: Callable[[PeerRow], str]) -> str:
    """The answer's first line for ``result``, ``mark(row)`` after each row's figure."""
    kind, subjects = result.spec.kind, result.subjects
    if kind in ("compare", "rank"):
        return peers_lead(result, mark)
    if kind == "verdict":
        return verdict_lead(result, subjects, result.figures, mark)
    if kind == "criterion":
        return criterion_lead(result, None, subjects, mark)
    if kind == "pick":
        from core.analysis.pick import pick_lead

        return pick_lead(result, mark)
    return multi_lead(result, subjects, mark)


def answer_analysis(plan, store) -> AnalysisResult:
    """Look up every figure of an ``AnalysisPlan`` in ``store``'s facts and combine them (what
    the CLI and tests call; the agent runs the same look-ups as plan steps)."""
    from core.figures.compute import answer_figure

    figures = [answer_figure(r, store) for r in plan.requests]
    return analyze(plan.spec, figures, plan.who, store)
