"""Records of the paraphrase suite: a generated case with its gold, and an answer judged.

Plain pydantic records, JSON-safe: ``results.json`` is a ``BenchRun`` and
``--compare OLD.json`` reads one back.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Miss = Literal["wrong-question", "said-not-answered", "wrong-value", "no-answer"]
MISSES: tuple[str, ...] = ("wrong-question", "said-not-answered", "wrong-value", "no-answer")


class Gold(BaseModel):
    """The expected result of a case, computed from the facts (``core.bench.paraphrase.gold``),
    in the shape the question asks."""

    kind: str = Field(description="The kind of question (grammar.KINDS).")
    expect: str = Field(default="", description="compare, growth_compare, largest_member: "
                        "the key (in ``names``) of the subject to name first; verdict, "
                        "trend: 'Yes' or 'No'.")
    order: list[str] = Field(default_factory=list, description="rank: the subjects' keys "
                             "in the order asked.")
    value: float | None = Field(default=None, description="figure: the figure; difference: "
                                "the gap (points for percents, USD millions for amounts); "
                                "share: the percent.")
    values: list[float] = Field(default_factory=list, description="figures: the figures in "
                                "the order asked; difference: the two companies' figures "
                                "(never taken for the gap).")
    unit: str = Field(default="", description="'percent', 'points' or 'USD millions'.")
    alternates: list[float] = Field(default_factory=list, description="Other values a "
                                    "right answer may state (share: of the segments' sum).")
    size_winner: str = Field(default="", description="growth_compare: the subject whose "
                             "figure is larger (naming it first with no growth said is "
                             "answering another question).")
    names: dict[str, list[str]] = Field(default_factory=dict, description="Each subject "
                                        "(company or segment) by key: every name an answer "
                                        "may call it.")
    detail: str = Field(default="", description="Readable: 'Birch 28.0% > Acme "
                        "31.3% (FY2024)'.")


class Case(BaseModel):
    """One generated question and its gold."""

    id: str = Field(description="'compare-007': the kind and its index for the seed.")
    kind: str
    question: str
    template: str = Field(description="The template's id ('compare.3').")
    slots: dict[str, str] = Field(default_factory=dict, description="Slot -> value: "
                                  "company, measure, period, order, direction, wording, "
                                  "test, member, threshold.")
    gold: Gold


class Judgement(BaseModel):
    """What the judge made of an answer (``core.bench.paraphrase.judge.judge``)."""

    passed: bool
    miss: Miss | None = None
    opening: str = Field(default="", description="The shape the answer opens with: "
                         "yes-no, compare, rank, gap, share, figure, passage, cannot, empty.")
    reason: str = ""
    first_line: str = ""


class Outcome(BaseModel):
    """A case, the answer under test and its judgement."""

    case: Case
    judgement: Judgement
    seconds: float = 0.0
    answer: str = Field(default="", description="The answer's text (first 1,500 "
                        "characters).")
    error: str = ""


class BenchRun(BaseModel):
    """One run of the suite (written by ``--out``)."""

    seed: int
    n: int
    data_dir: str = ""
    answerer: str = "agent"
    kinds: list[str] = Field(default_factory=list)
    slots: list[str] = Field(default_factory=list, description="--slots filters, if any.")
    cases_from: str = Field(default="", description="The run whose questions and gold "
                            "were asked again (--cases), if any.")
    generated: int = 0
    skipped: int = Field(default=0, description="Cases drawn whose gold could not be "
                         "computed (missing facts): not counted.")
    started_at: str = ""
    wall_s: float = 0.0
    outcomes: list[Outcome] = Field(default_factory=list)
