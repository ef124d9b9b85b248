"""Segments, product lines and regions in analysis questions.

* A test or comparison of a member's figure ("Did Acme's North America segment revenue
  grow?") keeps the member in the figure question it asks (``with_member``), as a figure
  question alone would (``core.figures.segments_asked``).
* "Which of Acme's segments had the largest revenue?", "its biggest region by sales": every
  member of that kind compared (``member_question``): one figure question per member the
  filing reports for the measure (revenue unless another is named), in its latest fiscal
  year.
"""

from __future__ import annotations

import re

from core.figures.clauses import clause_span
from core.figures.segments_asked import member_phrase, named_member

_KIND_WORDS = (("segment", r"segments?|business(?:es)?|divisions?|reportable\s+units?"),
               ("geography", r"regions?|geograph\w*|countr(?:y|ies)|markets?\s+by\s+region"),
               ("product", r"product(?:\s+lines?|\s+categor(?:y|ies))?s?|brands?|"
                           r"(?:end\s+)?markets?|market\s+platforms?|platforms?"))
_WHICH = re.compile(r"\b(?:which|what)\s+(?:(?:of\s+)?(?:[\w&.'-]+\s+){0,4}?)?(?P<kind>"
                    + "|".join(w for _, w in _KIND_WORDS) + r")\b", re.I)
_LARGEST = re.compile(r"\b(?:largest|biggest|highest|greatest|most|smallest|lowest|least)\s+"
                      r"(?:(?:single|reportable|operating|business)\s+)?(?P<kind>"
                      + "|".join(w for _, w in _KIND_WORDS) + r")\b", re.I)
_SUPERLATIVE = re.compile(r"\b(?:largest|biggest|highest|greatest|most|smallest|lowest|least|"
                          r"fastest|slowest|larger|bigger|higher|greater|more|smaller|lower|"
                          r"less|faster|slower)\b", re.I)


def with_member(body: str, plain: str, hit: tuple, words: str, subject, store) -> str:
    """``words`` prefixed by the member the question names for the measure ``hit``, if any."""
    key, _, start, end = hit
    a, b = clause_span(body, start, end)
    anywhere = bool(re.search(r"\b(?:segments?|divisions?|regions?)\b", body[a:b], re.I))
    member = named_member(plain, start, end, anywhere, store, list(subject.doc_ids), key,
                          raw=body)
    return f"{member_phrase(member)} {words}" if member is not None else words


_RANKED = re.compile(r"\b(?:rank|order|sort)\s+(?:[\w&.'-]+\s+){0,3}?(?P<kind>"
                     + "|".join(w for _, w in _KIND_WORDS) + r")\b", re.I)


def member_kind(body: str) -> str | None:
    """The kind of member a "which segment / region ... largest" (or "rank its segments
    by ...") question compares."""
    m = _LARGEST.search(body) or _RANKED.search(body) or (
        _WHICH.search(body) if _SUPERLATIVE.search(body) else None)
    if m is None:
        return None
    word = m.group("kind").lower()
    return next(kind for kind, rx in _KIND_WORDS if re.fullmatch(rx, word, re.I))


def member_names(store, doc_ids: list[str], metric: str, period: str, kind: str) -> list[str]:
    """The members of ``kind`` the filings report ``metric`` for in ``period``, in print
    order."""
    from core.figures.formula import FormulaError
    from core.figures.segments import members

    label = _label(period)
    if not label:
        return []
    try:
        found = members(store, doc_ids, metric, label, kind)
    except (FormulaError, ValueError):
        return []
    return list(dict.fromkeys(m.name for m, _ in found))


def _label(period: str) -> str:
    """A period as a figure question names it ('Q1 FY2021', 'FY2024') as a formula names it
    ('FY2021-Q1', 'FY2024'); '' when it is neither."""
    m = re.fullmatch(r"(?:Q([1-4])\s+)?FY(\d{4})", period.strip())
    if not m:
        return ""
    return f"FY{m.group(2)}" + (f"-Q{m.group(1)}" if m.group(1) else "")
