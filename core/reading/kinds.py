"""Each kind of reading declared once: its words on screen, the analysis its plan runs, and
whether the analyst may choose it when correcting a reading at plan review.

``Reading.summary`` says ``words``; ``core.reading.requests`` plans ``analysis``;
``core.reading.edit`` offers the ``editable`` ones. A new kind is one entry here (and, if it
combines figures in a new way, one in ``core.analysis.declared``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReadingKind:
    """One kind of question (``Reading.kind``)."""

    name: str
    words: str
    """On screen: 'Read as: which is higher · ...'."""
    analysis: str | None = None
    """The ``AnalysisSpec.kind`` its plan runs; None: one figure, or passages."""
    editable: bool = False


KINDS: dict[str, ReadingKind] = {k.name: k for k in (
    ReadingKind("figure", "a figure", editable=True),
    ReadingKind("compare", "which is higher", "compare", editable=True),
    ReadingKind("difference", "the difference", "compare", editable=True),
    ReadingKind("rank", "a ranking", "rank", editable=True),
    ReadingKind("growth_compare", "growth compared", "compare", editable=True),
    ReadingKind("verdict", "yes or no", "verdict", editable=True),
    ReadingKind("trend", "a trend over the years", "verdict", editable=True),
    ReadingKind("figures", "several figures", "multi", editable=True),
    ReadingKind("share", "a share"),
    ReadingKind("pick", "a line of the balance sheet", "pick"),
    ReadingKind("members", "segments compared", "compare"),
    ReadingKind("criterion", "a judgement", "criterion"),
    ReadingKind("text", "a text question (passages of the filings)"),
)}
