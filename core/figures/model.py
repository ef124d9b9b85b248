"""Records of the figures layer: what a figure question asks, and what was found and computed.

A figure question ("What is 3M's FY2018 capex in USD millions?", "the FY2019 fixed asset
turnover ratio, defined as revenue / average PP&E") is read into a ``FigureRequest``: the
metric, its formula over other metrics (from the catalogue or the question's own
definition), the periods, and the unit and rounding asked. Looking up each input among the
corpus's facts and evaluating the formula gives a ``FigureResult``: the value stated in the
unit asked, every input with the fact it came from (its chunk and page, so the answer can
cite it), the arithmetic, what is missing, and facts that disagree.

These are plain records (pydantic, JSON-safe): the agent keeps them in its state and run
records, the dashboard renders them, the evaluation scores them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from core.foundation.types import Fact

Aggregate = Literal["value", "average", "change", "pct_change", "cagr", "formula"]
UnitAsked = Literal["USD", "USD thousands", "USD millions", "USD billions", "percent", "ratio",
                    "days", "times", "per share", "shares"]


class FigureRequest(BaseModel):
    """What a figure question asks for (``core.figures.question.parse_figure_question``)."""

    name: str = Field(description="The metric as the question names it ('capital "
                      "expenditure', 'fixed asset turnover ratio').")
    metric: str | None = Field(default=None, description="Catalogue key when known ('capex').")
    formula: str = Field(description="What to compute, in the formula grammar of "
                         "``core.figures.formula`` with absolute periods, e.g. "
                         "'capex[FY2018]' or 'revenue[FY2019] / avg(ppe_net[FY2018], "
                         "ppe_net[FY2019])'.")
    formula_source: Literal["catalogue", "question", "lookup"] = Field(
        default="lookup", description="Where the formula came from: the metric catalogue, "
        "the question's own definition, or a plain look-up of one metric.")
    periods: list[str] = Field(default_factory=list, description="Fiscal periods asked, "
                               "'FY2018' (or 'FY2024-Q1'), oldest first.")
    aggregate: Aggregate = Field(default="value", description="value of one period; average, "
                                 "change, pct_change or cagr across periods; or formula.")
    unit: UnitAsked | None = Field(default=None, description="The unit asked ('in USD "
                                   "millions', 'in percents'); None: the metric's own.")
    decimals: int | None = Field(default=None, description="Rounding asked ('round to two "
                                 "decimal places' -> 2); None: the unit's usual rounding.")
    companies: list[str] = Field(default_factory=list, description="Companies named, as in "
                                 "the registry.")
    doc_ids: list[str] = Field(default_factory=list, description="Filings to read (the "
                               "question's scope); empty: every filing of the companies.")
    definition: str = Field(default="", description="The question's own definition text, "
                            "verbatim, when it gives one.")
    fiscal_quarters: bool = Field(default=False, description="The question names its quarters "
                                  "as fiscal ('Q1 FY2023'): never moved to a filing's own "
                                  "quarter as a calendar quarter would be.")
    member: str | None = Field(default=None, description="A segment, product line or region "
                               "the figure is of, as the question names it ('Digital "
                               "Media'); None: the entity total.")


class FigureInput(BaseModel):
    """One input of a computation: a metric for one period, and the fact used for it."""

    ref: str = Field(description="The input as the formula names it: 'ppe_net[FY2018]'.")
    label: str = Field(description="Readable: 'Property, plant and equipment, net, FY2018'.")
    metric: str
    period: str = Field(description="'FY2018', 'FY2024-Q1'.")
    value: float | None = Field(default=None, description="Base units (as the fact), or None "
                                "when missing.")
    unit: str = "USD"
    fact: Fact | None = Field(default=None, description="The fact used (None: missing).")
    alternatives: list[Fact] = Field(default_factory=list, description="Other facts for the "
                                     "same input whose value differs (XBRL vs table, a "
                                     "restated comparative): shown side by side.")
    note: str = Field(default="", description="Why this fact was chosen, or what is missing "
                      "('no FY2017 PP&E in the filings loaded').")
    sign_note: str = Field(default="", description="A sign convention applied ('printed "
                           "negative on the cash-flow statement; taken as a positive amount').")


class WorkRow(BaseModel):
    """One row of the computation table shown under the answer."""

    input: str = Field(description="Input or step ('Revenue', 'Average PP&E', 'Result').")
    period: str = ""
    value: str = Field(description="As displayed: '$1,577 million', '0.66'.")
    unit: str = ""
    chunk_id: str | None = Field(default=None, description="Source chunk, cited as [n].")
    page: int | None = None
    page_label: str | None = Field(default=None, description="The page number the filing "
                                   "prints on ``page`` ('53'), when known.")
    source: str = Field(default="", description="'XBRL us-gaap:Revenues' or 'table row'.")

    @property
    def where(self) -> str:
        """'p. 53' (the printed number), 'PDF p. 54' (none known), '' (no page): as
        Sources and the Library say it (``core.foundation.pages.page_ref``)."""
        from core.foundation.pages import page_ref

        return page_ref(self.page, self.page_label, short=True)


class FigureResult(BaseModel):
    """A looked-up or computed figure with its work (``core.figures.compute``)."""

    request: FigureRequest
    value: float | None = Field(default=None, description="The result in the unit asked "
                                "(1577.0 for '$1,577 million'; 65.4 for '65.4%'); None when an "
                                "input is missing or the arithmetic is undefined.")
    unit: str = Field(default="", description="Unit of ``value``: one of ``UnitAsked``.")
    display: str = Field(default="", description="The value as stated: '$1,577 million', "
                         "'0.66', '65.4%', '-3.7 days'.")
    inputs: list[FigureInput] = Field(default_factory=list)
    work: str = Field(default="", description="The arithmetic in words and figures: '(1,577 "
                      "+ 1,373) / 2 = 1,475'.")
    rows: list[WorkRow] = Field(default_factory=list, description="The computation table.")
    missing: list[str] = Field(default_factory=list, description="Inputs not found, said "
                               "plainly ('no FY2017 PP&E in the filings loaded').")
    notes: list[str] = Field(default_factory=list, description="Choices a reader should "
                             "know: which filing's figures were used and why, disagreements.")
    no_statements: list[str] = Field(default_factory=list, description="Filings in scope "
                                     "that hold no financial statements (an 8-K, a press "
                                     "release), by name.")

    @property
    def ok(self) -> bool:
        """True when a value was computed (nothing missing)."""
        return self.value is not None and not self.missing
