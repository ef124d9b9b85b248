"""The figure part of an answer: the figure stated first, then the work, each input cited.

``stated_figures`` picks the figures a run states, in plan order: every compute step's
result, and every look-up no compute step used. ``figure_block`` writes them offline:
``core.figures.statement.figure_sentence`` first (a ``[n]`` marker for the chunk of every
input), then ``work_lines`` (each input with its source, the arithmetic, the notes a reader
should know: which filing, disagreeing facts); for a figure not found, what is missing or
that the filing holds no statements, and the nearest lines a text search found, quoted as
weak evidence (after the brief of the text steps, when there are some). The LLM
synthesiser gets the same text as authoritative findings (``answer``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from core.agent.deps import AgentDeps
from core.agent.roles.brief import part_lines
from core.agent.roles.figure_plan import named_company
from core.agent.state import Evidence, StepRecord
from core.figures.model import FigureResult

WEAK_LEAD = "Only weak evidence — the nearest lines in the text for"


def figure_records(records: list[StepRecord]) -> list[StepRecord]:
    return [r for r in records if r.figure is not None]


def stated_figures(records: list[StepRecord]) -> list[tuple[StepRecord, FigureResult]]:
    """``(record, figure)`` for every figure the answer states (see the module docstring);
    the figures an analysis combined are stated in it (``analysis_answer``)."""
    from core.agent.roles.analysis_answer import combined

    figs = figure_records(records)
    used = {inp.ref for r in figs if r.tool == "compute" for inp in r.figure.inputs}
    inside = combined(records)
    out = []
    for rec in figs:
        if any(rec.figure == f for f in inside):
            continue
        refs = {inp.ref for inp in rec.figure.inputs}
        if rec.tool == "figure_lookup" and refs and refs <= used:
            continue  # an input of a computed figure: stated in its work
        out.append((rec, rec.figure))
    return out


def citer(numbered: dict[int, Evidence]) -> Callable[[str], str]:
    """``chunk id -> "[n]"`` over the numbered evidence ("" for a chunk not in it)."""
    n_of = {ev.id: n for n, ev in numbered.items()}
    return lambda cid: f"[{n_of[cid]}]" if cid in n_of else ""


def company_of(result: FigureResult, question: str, deps: AgentDeps) -> str:
    ids = list(result.request.doc_ids) or list(dict.fromkeys(
        i.fact.doc_id for i in result.inputs if i.fact is not None))
    return named_company(question, ids, deps)


def figure_paragraph(result: FigureResult, company: str, cite: Callable[[str], str]
                     ) -> tuple[str, list[str]]:
    """``(paragraph, not found)`` for one figure: its sentence then its work (inputs with
    their sources, the arithmetic, the notes), or what is missing (and what was found)."""
    from core.figures.statement import figure_sentence, missing_sentence, work_lines

    found = any(i.value is not None for i in result.inputs)
    if result.no_statements and not found:
        counts = Counter(result.no_statements)
        names = "; ".join(n if k == 1 else f"{n} ({k} filings)" for n, k in counts.items())
        one = len(result.no_statements) == 1
        return (f"I could not read {result.request.name}: {names} "
                f"{'holds' if one else 'hold'} no financial statements, so no figure is "
                f"reported in {'it' if one else 'them'}.", [result.request.name])
    work = [w for w in work_lines(result, cite) if w.strip()]
    if not result.ok:
        kept = work if found else [w for w in work if w.lstrip("- ").startswith("Note:")]
        return "\n".join([missing_sentence(result), *kept]), [result.request.name]
    return "\n".join([figure_sentence(result, company, cite), *work]), []


@dataclass
class FigureText:
    """The figure part of an answer: ``lead`` (the figures found: sentence and work) opens
    the answer; ``tail`` (figures not found, weak lines) opens it too when nothing else is
    said, else it follows the brief of the text steps."""

    lead: list[str] = field(default_factory=list)
    tail: list[str] = field(default_factory=list)
    figures: list[FigureResult] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)
    analyses: list = field(default_factory=list)
    """The analyses stated (``AnalysisResult``), their paragraphs first in ``lead``."""

    @property
    def text(self) -> str:
        return "\n\n".join(self.lead + self.tail)


def figure_block(records: list[StepRecord], numbered: dict[int, Evidence], question: str,
                 deps: AgentDeps) -> FigureText:
    """The run's figures as answer text (see the module docstring and ``FigureText``)."""
    from core.agent.roles.analysis_answer import analysis_records, analysis_text

    out = FigureText()
    stated = stated_figures(records)
    cite = citer(numbered)
    out.lead = analysis_text(records, cite)
    out.analyses = [r.analysis for r in analysis_records(records)]
    if not stated:
        return out
    n_of = {ev.id: n for n, ev in numbered.items()}
    for _, result in stated:
        text, missing = figure_paragraph(result, company_of(result, question, deps), cite)
        (out.lead if result.ok else out.tail).append(text)
        out.not_found += [m for m in missing if m not in out.not_found]
    used: list[str] = []
    for rec in figure_records(records):
        if rec.coverage == "none" and rec.context:
            lines = part_lines(rec, n_of, used)
            if lines:
                out.tail.append(f"{WEAK_LEAD} {rec.sub_question.rstrip('.?')}:\n"
                                + "\n".join(f"- {ln}" for ln in lines))
    out.figures = [r for _, r in stated]
    return out


def drop_empty_leads(text: str) -> str:
    """``text`` without a weak-evidence heading whose lines the self-check all removed."""
    paragraphs = re.split(r"\n\s*\n", text)
    kept = [p for p in paragraphs
            if not (p.strip().startswith(WEAK_LEAD) and len(p.strip().splitlines()) == 1)]
    return "\n\n".join(kept)
