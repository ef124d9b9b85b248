"""Each kind of analysis declared once: how it is named in the plan editor, what its plan
step says it does, how it decides, and how its answer's first line is written.

``combine.analyze`` and ``combine.lead`` dispatch through ``KINDS``; the plan editor's
choices (``components.plan_analysis``) and the analyze step's justification
(``core.agent.roles.analysis_plan``) read their words here. A new kind is one entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core.analysis.model import AnalysisResult, AnalysisSpec, PeerRow
from core.figures.model import FigureResult

Mark = Callable[[PeerRow], str]


@dataclass(frozen=True)
class KindDecl:
    """One kind of analysis (``AnalysisSpec.kind``)."""

    kind: str
    label: str
    """The plan editor's choice: 'Compare: which is higher / lower'."""
    verb: str
    """The analyze step's reason: '... compares the operating margin of A, B ...'."""
    decide: Callable[[AnalysisSpec, list[PeerRow], list[FigureResult], list[str], object],
                     AnalysisResult]
    lead: Callable[[AnalysisResult, Mark], str]


def _peers(spec, rows, figures, subjects, store):
    from core.analysis.peers import peers

    return peers(spec, rows)


def _peers_lead(result, mark):
    from core.analysis.peers import peers_lead

    return peers_lead(result, mark)


def _verdict(spec, rows, figures, subjects, store):
    from core.analysis.verdicts import verdict

    return verdict(spec, rows, figures, subjects)


def _verdict_lead(result, mark):
    from core.analysis.verdicts import verdict_lead

    return verdict_lead(result, result.subjects, result.figures, mark)


def _multi(spec, rows, figures, subjects, store):
    from core.analysis.verdicts import multi

    return multi(spec, rows, subjects)


def _multi_lead(result, mark):
    from core.analysis.verdicts import multi_lead

    return multi_lead(result, result.subjects, mark)


def _criterion(spec, rows, figures, subjects, store):
    from core.analysis.criteria import criterion

    return criterion(spec, rows, subjects)


def _criterion_lead(result, mark):
    from core.analysis.criteria import criterion_lead

    return criterion_lead(result, None, result.subjects, mark)


def _pick(spec, rows, figures, subjects, store):
    from core.analysis.pick import pick

    return pick(spec, figures[0], subjects[0] if subjects else "", store)


def _pick_lead(result, mark):
    from core.analysis.pick import pick_lead

    return pick_lead(result, mark)


KINDS: dict[str, KindDecl] = {k.kind: k for k in (
    KindDecl("compare", "Compare: which is higher / lower", "compares", _peers, _peers_lead),
    KindDecl("rank", "Rank all of them", "ranks", _peers, _peers_lead),
    KindDecl("verdict", "Yes / no from the figures", "decides yes or no from", _verdict,
             _verdict_lead),
    KindDecl("multi", "State each figure", "states together", _multi, _multi_lead),
    KindDecl("criterion", "Judge by a named criterion", "judges by the catalogue's criterion",
             _criterion, _criterion_lead),
    KindDecl("pick", "Pick the largest / smallest", "picks the balance-sheet line beside",
             _pick, _pick_lead),
)}
"""Every kind of ``AnalysisKind``, in the order the plan editor offers them."""
