"""Records of the analysis layer: answers that combine figures and judge.

An analyst question that one figure does not answer ("Which had the higher operating margin,
Acme or Birch?", "Rank A, B and C by net income", "Did Acme generate positive free cash
flow in fiscal 2024?", "Give Acme's operating margin and net margin", "Is Acme
capital-intensive?") is read into figure requests (``core.figures.model.FigureRequest``: one
per company and metric, each company's latest fiscal year unless a year is named) and an
``AnalysisSpec`` that says how their results combine. Combining the ``FigureResult``s gives an
``AnalysisResult``: the verdict first ("Birch", "Yes", the ranking), one ``PeerRow`` per
company, metric or segment with its figure, period, inputs and the chunks its facts are
printed in, and the comparison or the named criterion that decided it. A company or figure
that is missing keeps its row (``missing``), never dropped.

Plain records (pydantic, JSON-safe): the agent keeps them on its step records and the answer
(``Answer.analyses``), the dashboard draws the peer table and the bar chart from them, the
evaluation scores the verdict.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from core.figures.model import FigureResult

AnalysisKind = Literal["compare", "rank", "verdict", "multi", "criterion", "pick"]
"""compare: which of several subjects is higher (or lower); rank: all of them ordered;
verdict: a yes/no that figures decide; multi: several figures of one subject stated in the
order asked (with a relation between them, if asked); criterion: a judgement word decided by a
named criterion of the catalogue; pick: the row of a statement or table that is largest
(or smallest)."""

Test = Literal["positive", "negative", "grew", "declined", "less", "more", "above", "below",
               "improving", "worsening", "equal", "stable"]
"""What a verdict tests: the sign of one figure (positive, negative), its change (grew,
declined; improving, worsening over the periods given; stable: no year-to-year change above
the threshold), a relation between two figures (less, more, equal) or a figure against a
threshold (above, below)."""


class AnalysisSpec(BaseModel):
    """How the figures of an analysis question combine (read from the question, editable in
    the plan as the ``analyze`` step's settings)."""

    kind: AnalysisKind
    name: str = Field(description="The measure as the question names it ('operating margin', "
                      "'free cash flow'); for multi, the measures joined ('operating margin "
                      "and net margin').")
    direction: Literal["higher", "lower"] = Field(
        default="higher", description="compare: which one wins ('higher', 'lower'); rank: "
        "the order ('higher' = highest first).")
    test: Test | None = Field(default=None, description="verdict: what is tested.")
    threshold: float | None = Field(default=None, description="verdict 'above' / 'below': the "
                                    "threshold in the figure's unit (20.0 for '20%').")
    criterion: str | None = Field(default=None, description="criterion: the catalogue key of "
                                  "the judgement ('capital_intensive', core/metrics/"
                                  "criteria.toml).")
    absent: list[str] = Field(default_factory=list, description="compare / rank / verdict: "
                              "companies "
                              "the question names whose filings are not loaded (kept as rows "
                              "without a figure, said, never dropped).")
    either: bool = Field(default=False, description="verdict: the question asks which of two "
                         "('improved or declined?'): the answer names the change, not yes/no.")
    factor: float = Field(default=1.0, description="verdict more / less: a multiple the "
                          "first figure is tested against ('more than twice': 2).")
    difference: bool = Field(default=False, description="compare / verdict of two: the "
                             "question asks by how much; the answer states the gap.")
    each: bool = Field(default=False, description="verdict improving / worsening: every "
                       "year step must move that way ('rise in each of the last three "
                       "years'), not only the latest.")
    expect: str = Field(default="", description="compare: the subject a yes/no asks about "
                        "('Was Cloud the largest segment?'): the verdict is Yes when "
                        "it comes first.")
    reading: str = Field(default="", description="How a judgement word was read as a "
                         "measure ('more leveraged': compared by debt to equity), said in the "
                         "answer's notes.")
    labels: list[str] = Field(default_factory=list, description="What each input figure is "
                              "called in the answer, in input order: the company ('Acme'), "
                              "the measure ('net margin') or the segment ('Digital Media').")


class PeerRow(BaseModel):
    """One row of the peer table: a subject's figure for its period, with its source."""

    label: str = Field(description="The company, measure or segment as the answer names it.")
    company: str = Field(default="", description="The company (registry's canonical name).")
    period: str = Field(default="", description="Fiscal period of the figure: 'FY2024'.")
    period_end: str | None = Field(default=None, description="ISO date the period ends "
                                   "('2024-11-29'), when known.")
    value: float | None = Field(default=None, description="The figure in ``unit`` (31.3 for "
                                "31.3%); None when it was not found.")
    unit: str = Field(default="", description="Unit of ``value`` (one of ``UnitAsked``).")
    display: str = Field(default="", description="As stated: '31.3%', '$7,873 million'; "
                         "'not found' when missing.")
    inputs: str = Field(default="", description="The work in words and figures: 'operating "
                        "income $6,741 million / revenue $21,505 million'.")
    chunk_ids: list[str] = Field(default_factory=list, description="Chunks its facts are "
                                 "printed in, cited [n] in the table's source column.")
    missing: str = Field(default="", description="Why there is no figure ('no FY2024 "
                         "revenue in the filings loaded'); '' when found.")
    rank: int | None = Field(default=None, description="compare / rank / pick: 1 for the "
                             "first in the verdict's order; None for rows without a figure.")
    figure: int | None = Field(default=None, description="Which of ``AnalysisResult.figures`` "
                               "this row states (rows are reordered, figures keep the input "
                               "order); None for a company no loaded filing is of.")


class AnalysisResult(BaseModel):
    """A combination of figures, decided (see the module docstring)."""

    spec: AnalysisSpec
    verdict: str = Field(default="", description="The answer in a word or a list: the "
                         "winner's name ('Birch'), 'Yes' / 'No', the ranking ('Birch, "
                         "Acme, Cobalt'), the row picked; '' when figures are missing.")
    lead: str = Field(default="", description="The answer's first line, without [n] "
                      "markers: 'Birch had the higher operating margin: 28.0% in fiscal "
                      "2024 against Acme's 25.0% in fiscal 2024.'")
    basis: str = Field(default="", description="What decided it: the comparison ('32.1% > "
                       "31.3%') or the criterion with its thresholds, named ('capital-"
                       "intensive: capex / revenue above 5% or net PP&E / total assets "
                       "above 30%').")
    rows: list[PeerRow] = Field(default_factory=list, description="compare / rank / pick: in "
                                "the verdict's order, rows without a figure last; otherwise "
                                "in the order asked.")
    unit: str = Field(default="", description="Unit the rows' values share (for the chart "
                      "axis); '' when they differ.")
    notes: list[str] = Field(default_factory=list, description="What a reader should know: "
                             "'Fiscal years end in different months: Acme's on 2024-11-29, "
                             "Birch's on 2024-12-31.'")
    missing: list[str] = Field(default_factory=list, description="Subjects whose figure was "
                               "not found, said plainly.")
    figures: list[FigureResult] = Field(default_factory=list, description="The figures "
                                        "combined, in input order (their work and cited "
                                        "inputs).")
    subjects: list[str] = Field(default_factory=list, description="The company of each "
                                "figure, as the question names it ('Acme').")

    @property
    def decided(self) -> bool:
        """True when a verdict was reached (no input it needs is missing)."""
        return bool(self.verdict)

    @property
    def chartable(self) -> bool:
        """Whether a bar chart of the rows says something: two or more figures of one unit."""
        return bool(self.unit) and sum(r.value is not None for r in self.rows) >= 2
