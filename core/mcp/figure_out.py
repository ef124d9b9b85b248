"""Figures, analyses and readings said to a client: the figures layer's results as they
are (value, unit, work, inputs), each input with the fact it was read from (its filing,
tag or printed row, page) and the [n] of the chunk it is printed in.

The sentences are the product's own: ``core.figures.statement.figure_sentence`` for a
figure, ``core.analysis.combine.lead`` for an analysis, with ``Citer`` numbering the chunks.
"""

from __future__ import annotations

from core.analysis.model import AnalysisResult
from core.analysis.rows import period_end
from core.analysis.subjects import short_name
from core.figures.model import FigureInput, FigureResult
from core.foundation.safety import clean_meta
from core.foundation.types import DocumentMeta, Fact
from core.mcp.citations import Citer, library_url
from core.mcp.models import (
    AnalysisOut,
    Call,
    FigureOut,
    InputOut,
    ReadingOut,
    RowOut,
    SourceOut,
)
from core.reading.model import KIND_WORDS, Reading


def _filing(doc: DocumentMeta | None, doc_id: str) -> str:
    if doc is None:
        return doc_id
    return " ".join(clean_meta(v, limit=60, fallback="") for v in (
        doc.company, doc.form_type, doc.period)).strip() or doc.file_name


def source_out(fact: Fact, citer: Citer, docs: dict[str, DocumentMeta]) -> SourceOut:
    """Where ``fact`` was read, cited."""
    return SourceOut(
        doc_id=fact.doc_id, filing=_filing(docs.get(fact.doc_id), fact.doc_id),
        kind=fact.source, tag=fact.concept, row=fact.row, printed=fact.printed,
        label=fact.label, page=citer.page_of(fact),
        period_end=fact.end, value=fact.value, unit=fact.unit,
        citation=citer.number(fact.chunk_id),
        library_url=library_url(citer.settings, fact.chunk_id) if fact.chunk_id else None)


def input_out(item: FigureInput, citer: Citer, docs: dict[str, DocumentMeta]) -> InputOut:
    return InputOut(
        ref=item.ref, label=item.label, metric=item.metric, period=item.period,
        value=item.value, unit=item.unit,
        source=source_out(item.fact, citer, docs) if item.fact is not None else None,
        alternatives=[source_out(f, citer, docs) for f in item.alternatives],
        note=item.note, sign_note=item.sign_note)


def figure_out(result: FigureResult, citer: Citer, docs: dict[str, DocumentMeta],
               said_as: str = "") -> FigureOut:
    """``result`` with its sentence (figure first, [n] cited, the company ``said_as`` the
    question names it, else by its short name) and every input's source."""
    from core.figures.statement import figure_sentence

    req = result.request
    company = req.companies[0] if req.companies else said_as
    who = said_as or (short_name(company) if company else "")
    inputs = [input_out(i, citer, docs) for i in result.inputs]
    return FigureOut(
        company=company, name=req.name, metric=req.metric, segment=req.member,
        period=req.periods[-1] if req.periods else "", period_end=period_end(result),
        found=result.ok, value=result.value if result.ok else None, unit=result.unit,
        display=result.display if result.ok else "",
        sentence=figure_sentence(result, who, citer.marker),
        formula=req.formula, work=result.work, inputs=inputs, missing=list(result.missing),
        notes=list(result.notes) + [f"{n} holds no financial statements"
                                    for n in result.no_statements])


def analysis_out(result: AnalysisResult, citer: Citer, docs: dict[str, DocumentMeta]
                 ) -> AnalysisOut:
    """``result`` with its first line cited and its rows' chunks numbered."""
    from core.analysis.combine import lead

    def mark(row) -> str:  # as the agent's answer marks a row: " [1][2]"
        marks = "".join(dict.fromkeys(citer.marker(c) for c in row.chunk_ids))
        return f" {marks}" if marks else ""

    first = lead(result, mark) if result.rows or result.spec.kind == "pick" else result.lead
    rows = [RowOut(label=r.label, company=r.company, period=r.period,
                   period_end=r.period_end, value=r.value, unit=r.unit, display=r.display,
                   work=r.inputs, citations=[citer.number(c) for c in r.chunk_ids],
                   missing=r.missing, rank=r.rank) for r in result.rows]
    figures = [figure_out(f, citer, docs, s) for f, s in zip(
        result.figures, result.subjects or [""] * len(result.figures), strict=False)]
    return AnalysisOut(kind=result.spec.kind, measure=result.spec.name, verdict=result.verdict,
                       lead=first or result.lead, basis=result.basis,
                       criterion=result.spec.criterion, rows=rows, notes=list(result.notes),
                       missing=list(result.missing), figures=figures)


def single_figure(result: FigureResult, citer: Citer, docs: dict[str, DocumentMeta]
                  ) -> AnalysisOut:
    """A one-figure question said as an analysis of one row (its verdict: the figure)."""
    from core.analysis.rows import row_of

    fig = figure_out(result, citer, docs)
    row = row_of(fig.company, result)
    return AnalysisOut(
        kind="figure", measure=fig.name, verdict=fig.display, lead=fig.sentence,
        rows=[RowOut(label=row.label, company=row.company, period=row.period,
                     period_end=row.period_end, value=row.value, unit=row.unit,
                     display=row.display, work=row.inputs,
                     citations=[citer.number(c) for c in row.chunk_ids],
                     missing=row.missing)],
        missing=list(result.missing), figures=[fig])


def reading_out(reading: Reading, call: Call | None = None) -> ReadingOut:
    return ReadingOut(**reading.model_dump(), read_as=reading.summary() if reading.figures
                      else f"Read as: {KIND_WORDS['text']}.",
                      answered_by="figures" if reading.figures else "text",
                      unanswered=reading.not_answered(), call=call)
