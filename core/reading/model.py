"""The typed reading of a question: what was asked, read once, shown, editable.

A ``Reading`` says which companies (resolved to the registry's filers: CIK, name, filings),
which measures (catalogue keys, with a segment or region), which periods per company, and
which kind of answer the question asks (a figure, several, a comparison, a ranking, a
difference, growth compared, a yes / no by a relation, a threshold or a trend, a share, the
largest of a statement's lines or of a company's segments, or text), with the direction,
threshold and every part of a multi-part question. ``matches`` records each word the reader
took for something it is not written as ("brich" read as Birch Inc.), ``unread`` the
parts it could not read: the answer says both, never a different question's result.

Plain records (pydantic, JSON-safe): the agent keeps the reading in its state and run
record, the answer prints ``summary()`` under its first line, plan review shows it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from core.reading.kinds import KINDS

Kind = Literal["figure", "figures", "compare", "rank", "difference", "growth_compare",
               "verdict", "trend", "share", "pick", "members", "criterion", "text"]
KIND_WORDS: dict[str, str] = {k: d.words for k, d in KINDS.items()}
"""How each kind is named on screen ("Read as: which is higher ...")."""


class CompanyRef(BaseModel):
    """A company the question names, resolved to a filer of the corpus."""

    name: str = Field(description="The registry's canonical name ('Birch Inc.').")
    words: str = Field(default="", description="The words of the question that name it.")
    cik: str = Field(default="", description="The filer's CIK when known.")
    doc_ids: list[str] = Field(default_factory=list, description="Its filings in scope.")
    period: str = Field(default="", description="The period asked for it ('FY2024'); '' for "
                        "its latest fiscal year.")
    how: Literal["name", "ticker", "case", "typo", "brand", "segment", "all", "only"] = Field(
        default="name", description="How the words were matched: as written, a ticker, "
        "a name in other case, a typo, a brand or segment the filer prints, every company "
        "loaded, or the only company loaded.")


class MeasureRef(BaseModel):
    """A measure the question asks for."""

    name: str = Field(description="The measure as the answer names it ('operating margin').")
    metric: str | None = Field(default=None, description="Catalogue key ('operating_margin'); "
                               "None for a formula the question defines.")
    member: str | None = Field(default=None, description="The segment or region it is of.")
    words: str = Field(default="", description="The words of the question that name it, "
                       "when they differ from ``name`` ('op margin').")


class Match(BaseModel):
    """A word read as something it is not written as, said in the answer."""

    words: str = Field(description="As typed ('brich').")
    read_as: str = Field(description="As read ('Birch Inc.').")
    how: str = Field(default="", description="Why ('a typo', 'a ticker', 'a brand').")

    def said(self) -> str:
        """>>> Match(words="brich", read_as="Birch Inc.", how="a typo").said()
        "'brich' as Birch Inc. (a typo)"
        """
        why = f" ({self.how})" if self.how else ""
        return f"'{self.words}' as {self.read_as}{why}"


class Reading(BaseModel):
    """What a question asks (see the module docstring)."""

    question: str = Field(description="The question as typed.")
    text: str = Field(default="", description="The question in the corpus's own names "
                      "(what the grammar read).")
    kind: Kind = "text"
    companies: list[CompanyRef] = Field(default_factory=list)
    measures: list[MeasureRef] = Field(default_factory=list)
    periods: list[str] = Field(default_factory=list, description="Periods named, oldest "
                               "first ('FY2023', 'FY2024-Q1'); empty: each company's latest.")
    direction: Literal["higher", "lower"] | None = None
    test: str | None = Field(default=None, description="verdict / trend: what is tested "
                             "('above', 'grew', 'more', 'improving', ...).")
    threshold: float | None = None
    threshold_unit: str = ""
    each_year: bool = Field(default=False, description="A trend that must hold in every "
                            "year step, not only from first to last.")
    absent: list[str] = Field(default_factory=list, description="Companies named that no "
                              "loaded filing is of.")
    matches: list[Match] = Field(default_factory=list)
    unread: list[str] = Field(default_factory=list, description="Parts of the question not "
                              "read into figures (said as not answered by figures).")
    source: Literal["grammar", "llm", "analyst"] = Field(
        default="grammar", description="Who read it: the grammar, the LLM, or the analyst "
        "who corrected it at plan review.")
    plan_edited: bool = Field(default=False, description="The plan's steps were edited by "
                              "hand at review after this reading (it may no longer hold).")
    nearest: list[str] = Field(default_factory=list, description="Catalogue metric keys "
                               "nearest the words of a measure the catalogue does not name "
                               "(offered first when the analyst corrects the reading).")
    alternative: Reading | None = Field(default=None, description="The other reader's "
                                        "reading when it asks something else (the LLM's "
                                        "beside the grammar's): plan review shows both.")

    @property
    def figures(self) -> bool:
        """Whether the reading is answered from figures (not passages)."""
        return self.kind != "text"

    def summary(self) -> str:
        """One line: what was asked, the measures, the companies with their periods, and
        every word read as something it is not written as.

        >>> Reading(question="q", kind="compare", measures=[MeasureRef(
        ...     name="operating margin")], companies=[CompanyRef(name="Acme Corp",
        ...     period="FY2024"), CompanyRef(name="Birch Inc.")], matches=[Match(
        ...     words="acm", read_as="Acme Corp", how="its ticker")]).summary()
        "Read as: which is higher · operating margin · Acme Corp (FY2024), Birch Inc. \
(latest fiscal year); read 'acm' as Acme Corp (its ticker)."
        """
        parts = [KIND_WORDS.get(self.kind, self.kind)]
        if self.direction == "lower" and self.kind in ("rank", "compare", "members"):
            parts[0] += " (lowest first)" if self.kind == "rank" else " (the lower)"
        if self.each_year:
            parts[0] += ", every year"
        if self.measures:
            parts.append(", ".join(m.name + (f" of {m.member}" if m.member and m.member not in
                                             m.name else "") for m in self.measures))
        if self.threshold is not None:
            parts.append(f"{self.test} {self.threshold:g}{self.threshold_unit}")
        if self.companies:
            names = [c.name for c in self.companies]
            parts.append(", ".join(  # two filers of one name: each with its CIK
                f"{c.name} ({f'CIK {c.cik}, ' if _apart(c, names) else ''}"
                f"{c.period or 'latest fiscal year'})" for c in self.companies))
        elif self.periods:
            parts.append(", ".join(self.periods))
        head = {"analyst": "Read as (corrected at review)", "llm": "Read as (by the LLM)"
                }.get(self.source, "Read as")
        if self.plan_edited:
            head = "Read as (before the plan's steps were edited at review)"
        line = f"{head}: " + " · ".join(parts)
        said = [m.said() for m in self.matches if m.words]
        if said:
            line += "; read " + ", ".join(said)
        line += "".join(f"; {m.how}: {m.read_as}" for m in self.matches if not m.words)
        return line + "."

    def not_answered(self) -> str:
        """'Not answered: ...' for the parts the reading does not hold; '' when none."""
        return f"Not answered: {'; '.join(self.unread)}." if self.unread else ""


def _apart(company: CompanyRef, names: list[str]) -> bool:
    """Whether ``company`` is said with its CIK: another company read shares its name, or
    the question picked it by its CIK among filers of one name."""
    return bool(company.cik) and (names.count(company.name) > 1 or
                                  f"CIK {company.cik}" in company.words)


def as_reading(value) -> Reading | None:
    """A reading kept in the run's state: the model, or its dict after a checkpoint."""
    if value is None or isinstance(value, Reading):
        return value
    try:
        return Reading.model_validate(value)
    except ValueError:
        return None
