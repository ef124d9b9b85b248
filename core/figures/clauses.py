"""The clause of a question a measure is named in.

A segment, region or product word binds only to the measure of its own clause: in "Did
Acme's revenue grow in fiscal 2024, and what drove Cloud?" the yes / no is asked of total
revenue, and Cloud belongs to the second clause (a text question). Clauses end at a
sentence's end, a semicolon, or a conjunction that opens a new question ("..., and what
...", "... but did ..."); a bare comma does not end one ("For the Cloud segment, what was
revenue?" is one clause).
"""

from __future__ import annotations

import re

_OPENERS = (r"what|how|why|which|who|whom|whose|when|where|did|does|do|is|was|were|are|has|"
            r"have|had|can|could|will|would|should|explain|describe|discuss|identify|list|"
            r"summari[sz]e|name|give|tell|find")
_BREAK = re.compile(
    rf"[;?!]|(?<!\bInc)(?<!\bCorp)(?<!\bCo)(?<!\bLtd)(?<!\bNo)\.(?=\s+[A-Z])|"
    rf",?\s+(?:and|but|while|whereas|then|also|plus)\s+(?:also\s+|then\s+)?(?=(?:{_OPENERS})\b)",
    re.IGNORECASE)


def clause_span(text: str, start: int, end: int) -> tuple[int, int]:
    """``(a, b)``: the bounds of the clause of ``text`` holding ``text[start:end]``."""
    a, b = 0, len(text)
    for m in _BREAK.finditer(text):
        if m.end() <= start:
            a = m.end()
        elif m.start() >= end:
            b = m.start()
            break
    return a, b


def own_clause(text: str, start: int, end: int) -> tuple[str, int, int]:
    """``(clause, start, end)``: the clause holding ``text[start:end]``, offsets in it."""
    a, b = clause_span(text, start, end)
    return text[a:b], start - a, end - a
