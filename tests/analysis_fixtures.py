"""Fixture ``AnalysisResult``s built from real facts, as the analysis layer hands them over
(``core.analysis.model``) until the lead's agent fills ``Answer.analyses`` (contract 31).

The figures are real: NVIDIA's FY2023 and AMD's FY2025 iXBRL 10-Ks (tests/fixtures/figures)
read by the ingest pipeline and looked up by ``core.figures.compute.answer_figure``; only
the combining step (the lead's ``core.analysis``) is written out here, the way its records'
docstrings describe it.
"""

from __future__ import annotations

import copy
import functools
import gzip
from pathlib import Path

from core.analysis.model import AnalysisResult, AnalysisSpec, PeerRow
from core.figures.compute import answer_figure
from core.figures.model import FigureRequest, FigureResult

FIXTURES = Path(__file__).parent / "fixtures" / "figures"
NVDA = FIXTURES / "nvda-10k-fy2023.html.gz"
AMD = FIXTURES / "amd-10k-fy2025.htm.gz"
COMPARE_QUESTION = ("Which had the higher operating margin in its latest fiscal year, "
                    "NVIDIA or AMD?")


def prepared():
    """Both fixtures through the ingest pipeline (no embedding): ``(metas, facts, chunks)``,
    a copy of its own for each caller (the pipeline runs once per session: 3-15 s)."""
    return copy.deepcopy(_prepared_once())


@functools.cache
def _prepared_once():
    from core.foundation.config import Settings
    from core.ingest.pipeline import prepare

    metas, facts, chunks = [], [], []
    for path in (NVDA, AMD):
        done = prepare(gzip.decompress(path.read_bytes()), path.name.removesuffix(".gz"),
                       Settings(_env_file=None))
        metas.append(done.meta)
        facts += done.facts
        chunks += done.chunks
    return metas, facts, chunks


def margin(store, doc_id: str, company: str, period: str,
           metric: str = "operating_margin") -> FigureResult:
    """A company's margin for one fiscal year, looked up and computed from its facts."""
    name = metric.replace("_", " ")
    return answer_figure(FigureRequest(name=name, metric=metric, formula=f"{metric}[{period}]",
                                       periods=[period], unit="percent", doc_ids=[doc_id],
                                       companies=[company]), store)


def peer_row(label: str, result: FigureResult) -> PeerRow:
    """A peer table row for one figure (its period end, inputs and cited chunks)."""
    ends = [i.fact.end for i in result.inputs if i.fact is not None and i.fact.end]
    chunks = [i.fact.chunk_id for i in result.inputs if i.fact is not None and i.fact.chunk_id]
    company = result.request.companies[0] if result.request.companies else label
    if result.value is None:
        return PeerRow(label=label, company=company, period=result.request.periods[0],
                       display="not found", missing="; ".join(result.missing) or "not found")
    return PeerRow(label=label, company=company, period=result.request.periods[0],
                   period_end=max(ends) if ends else None, value=result.value,
                   unit=result.unit, display=result.display, inputs=result.work,
                   chunk_ids=list(dict.fromkeys(chunks)))


def compare(named: list[tuple[str, FigureResult]], measure: str = "operating margin",
            kind: str = "compare") -> AnalysisResult:
    """Which subject has the higher figure (or all of them ranked), rows without a figure
    kept last, as the analysis layer decides it."""
    rows = [peer_row(label, r) for label, r in named]
    found = sorted((r for r in rows if r.value is not None), key=lambda r: -r.value)
    for rank, r in enumerate(found, start=1):
        r.rank = rank
    lost = [r for r in rows if r.value is None]
    spec = AnalysisSpec(kind=kind, name=measure, labels=[label for label, _ in named])
    result = AnalysisResult(spec=spec, rows=found + lost, unit=found[0].unit if found else "",
                            missing=[f"{r.label}: {r.missing}" for r in lost],
                            figures=[r for _, r in named])
    if lost or len(found) < 2:
        result.lead = (f"Could not decide which had the higher {measure}: "
                       + "; ".join(result.missing) + ".")
        return result
    first, second = found[0], found[1]
    result.verdict = (first.label if kind == "compare"
                      else ", ".join(r.label for r in found))
    result.basis = " > ".join(r.display for r in found)
    year = first.period.removeprefix("FY")
    other = second.period.removeprefix("FY")
    result.lead = (f"{first.label} had the higher {measure}: {first.display} in fiscal "
                   f"{year} against {second.label}'s {second.display} in fiscal {other}.")
    if first.period_end and second.period_end and first.period_end[5:7] != \
            second.period_end[5:7]:
        result.notes.append(f"Fiscal years end in different months: {first.label}'s on "
                            f"{first.period_end}, {second.label}'s on {second.period_end}.")
    return result


def operating_margin_comparison(store, metas) -> AnalysisResult:
    """NVIDIA (FY2023) against AMD (FY2025): each company's latest fiscal year."""
    nvda, amd = metas
    return compare([("NVIDIA", margin(store, nvda.doc_id, nvda.company, "FY2023")),
                    ("AMD", margin(store, amd.doc_id, amd.company, "FY2025"))])


def ranking_with_a_missing_company(store, metas) -> AnalysisResult:
    """NVIDIA, AMD and a company whose filing is not loaded: its row is kept, said missing."""
    nvda, amd = metas
    absent = FigureResult(request=FigureRequest(name="operating margin", periods=["FY2025"],
                                                formula="operating_margin[FY2025]",
                                                companies=["INTEL CORP"]),
                          missing=["no FY2025 operating income in the filings loaded"])
    result = compare([("NVIDIA", margin(store, nvda.doc_id, nvda.company, "FY2023")),
                      ("AMD", margin(store, amd.doc_id, amd.company, "FY2025")),
                      ("Intel", absent)], kind="rank")
    return result
