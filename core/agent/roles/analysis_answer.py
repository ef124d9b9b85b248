"""The analysis part of an answer: the verdict first, then each figure with its source.

For every analyze step's result (``core.analysis``) the offline answer opens with its lead
(``core.analysis.combine.lead``: "Birch had the higher operating margin: 28.0% in
fiscal 2024 [1] against Acme's 25.0% in fiscal 2024 [2]."; "Yes. ..."), then one line per
row of the peer table (company or measure, period and its end, the figure, the work, its
citations), then the notes (periods that end in different months, figures missing). The
figures an analysis combined are stated there, not again on their own. With an LLM the same
text is given to the synthesiser as authoritative, and the self-check holds its verdict to
it (``analysis_check``).
"""

from __future__ import annotations

from collections.abc import Callable

from core.agent.state import StepRecord
from core.analysis.model import AnalysisResult, PeerRow
from core.analysis.rows import period_words
from core.figures.model import FigureResult


def analysis_records(records: list[StepRecord]) -> list[StepRecord]:
    return [r for r in records if r.analysis is not None]


def combined(records: list[StepRecord]) -> list[FigureResult]:
    """The figures the run's analyses combined (stated in the analysis, not on their own)."""
    return [f for r in analysis_records(records) for f in r.analysis.figures]


def row_line(row: PeerRow, mark: Callable[[PeerRow], str]) -> str:
    """'- Birch, fiscal 2024 (ended 2024-12-31): 28.0% = operating income ... [1]'."""
    when = period_words(row.period) + (f" (ended {row.period_end})" if row.period_end else "")
    if row.label == row.period:  # a year of a series: the period is its name
        return f"- {when}: {row.display}" + (f"; {row.inputs}" if row.inputs else "") + \
            mark(row) if row.value is not None else f"- {when}: not found ({row.missing})"
    if row.value is None:
        return f"- {row.label}, {when}: not found ({row.missing})"
    work = f"; {row.inputs}" if row.inputs else ""
    return f"- {row.label}, {when}: {row.display}{work}{mark(row)}"


def analysis_paragraph(result: AnalysisResult, cite: Callable[[str], str]) -> str:
    """The lead, the rows and the notes of one analysis (see the module docstring)."""
    from core.analysis.combine import figure_of, lead

    def mark(row: PeerRow) -> str:
        marks = "".join(dict.fromkeys(cite(c) for c in row.chunk_ids if cite(c)))
        return f" {marks}" if marks else ""

    from core.figures.statement import work_lines

    lines = [lead(result, mark)]
    for row in result.rows:
        lines.append(row_line(row, mark))
        figure = figure_of(result, row)  # its own company's figure, never the next row's
        if row.value is None and figure is not None:  # what was found of it, cited
            lines += [f"  {w}" for w in work_lines(figure, cite)
                      if "missing" not in w and not w.lstrip("- ").startswith("Note:")]
    lines += [f"Note: {n}" for n in result.notes]
    return "\n".join(lines)


def analysis_text(records: list[StepRecord], cite: Callable[[str], str]) -> list[str]:
    """One paragraph per analysis of the run, in plan order."""
    return [analysis_paragraph(r.analysis, cite) for r in analysis_records(records)]
