"""An analysis question read: the figures it needs, asked one by one, and how they combine.

``AnalysisPlan`` holds the ``AnalysisSpec`` and one figure request per input, each read
from a plain figure question in one shape ("What was <company>'s <measure> in <period>?",
``figure_question``) by the figure reader over that company's own filings only
(``read_figure``): a name two filers share never reads the other filer's figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.analysis.model import AnalysisSpec
from core.analysis.rows import possessive
from core.analysis.subjects import Subject
from core.figures.model import FigureRequest


@dataclass
class AnalysisPlan:
    """An analysis question read: how to combine (``spec``) the figures ``requests`` ask
    for; ``questions`` are the plain figure questions they were read from (a plan step asks
    them again when it runs)."""

    spec: AnalysisSpec
    requests: list[FigureRequest] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    subjects: list[Subject] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)
    """Parts of the question this plan does not answer, each with why and what to ask
    instead (said in the answer as not answered, never swapped for another result)."""

    @property
    def who(self) -> list[str]:
        """The company of each request, as the answer names it."""
        if len(self.subjects) > 1 and len(self.subjects) == len(self.requests):
            return [s.label for s in self.subjects]
        return [self.subjects[0].label] * len(self.requests) if self.subjects else []


def figure_question(subject: Subject, words: str, period: str | None = None) -> str:
    """'What was Acme's operating margin in FY2024?' (no period: the subject's own)."""
    period = subject.period if period is None else period
    when = f" in {period}" if period else ""
    return f"What was {possessive(subject.label)} {words}{when}?"


def read_figure(text: str, documents, store, decimals: int | None,
                subject: Subject | None = None) -> FigureRequest | None:
    """The figure request ``text`` asks for, read over ``subject``'s filings when given (its
    company is the only one the question's words can name); ``decimals`` kept when asked."""
    from core.figures.question import parse_figure_question

    if subject is not None and subject.doc_ids:
        own = [d for d in documents if d.doc_id in subject.doc_ids]
        documents = own or documents
    request = parse_figure_question(text, documents, store)
    if request is not None and decimals is not None:
        request = request.model_copy(update={"decimals": decimals})
    return request
