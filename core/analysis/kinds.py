"""Which kind of analysis a question asks, from its words (``core.analysis.words``).

``spec_of`` reads the question (companies and periods blanked: ``plain``) with the measures
found in it: several companies are ranked, compared, tested against each other yes/no, or
tabled; one company's figure is tested yes/no (its sign, its change, a threshold, a series
over the years: improving, stable), two of its figures are related ("R&D less than capex"),
several of its measures are compared ("which brought in the most: operations, investing or
financing") or stated together. None: a plain figure question.
"""

from __future__ import annotations

import re

from core.analysis.measures import with_growth
from core.analysis.model import AnalysisSpec
from core.analysis.words import (
    COMPARATIVE,
    RANK,
    SUPERLATIVE,
    comparative_direction,
    relation_between,
    test_of,
    threshold_of,
    two_thresholds,
    yes_no,
)
from core.figures.clauses import clause_span

_MULTI_GAP = re.compile(r"^\s*(?:,\s*)?(?:(?:and|as\s+well\s+as|&|plus)\s+)?(?:(?:its|their|the"
                        r"|his|her)\s+)?$", re.I)
STABLE_POINTS = 2.0
"""A series is stable when no year moves more than this (in the figure's unit: percentage
points for a margin) and the question gives no threshold of its own; said in the answer."""
_DONE = re.compile(r"\b(?:paid|pay|pays|issued|repurchased|bought\s+back|recorded|incurred|"
                   r"reported|declared|made)\b", re.I)
_WHICH = re.compile(r"\b(?:which|among)\b", re.I)
_LIST_GAP = re.compile(r"^\s*(?:(?:spend|spending|expenses?|costs?|outlays?)\s*)?(?:,\s*)?"
                       r"(?:(?:and|or|&)\s+)?(?:(?:on|in)\s+)?(?:(?:its|their|the)\s+)?$", re.I)
_EITHER = re.compile(r"\b(?:grow\w*|grew|increas\w*|improv\w*|ris\w*|rose)\s+or\s+"
                     r"(?:declin\w*|decreas\w*|f[ae]ll\w*|shr[ai]nk\w*|worsen\w*)|\b(?:declin\w*|"
                     r"decreas\w*|f[ae]ll\w*|worsen\w*)\s+or\s+(?:grow\w*|grew|increas\w*|"
                     r"improv\w*|ris\w*|rose)", re.I)


def spec_of(body: str, plain: str, found: list, several: bool
          ) -> AnalysisSpec | tuple[AnalysisSpec, int | None] | None:
    """The kind and settings of the analysis, or None for a plain figure question; a
    threshold comes with the power of ten it was written in ("$50 billion": 9). Raises
    ``words.Unreadable`` for a threshold that is no finite number, or two at once."""
    name = found[0][1]
    if several:
        if RANK.search(body):
            return AnalysisSpec(kind="rank", name=name, direction=rank_order(body))
        if yes_no(body) and SUPERLATIVE.search(plain):  # "Was A the most profitable of ...?"
            return AnalysisSpec(kind="compare", name=name,
                                direction=comparative_direction(plain) or "higher")
        if yes_no(body):
            test = test_of(plain, found[0][3])
            more = comparative_direction(plain)
            if more is not None and test in (None, "more", "less"):
                return AnalysisSpec(kind="verdict", name=name,
                                    test="more" if more == "higher" else "less")
            if more is not None and test in ("grew", "declined"):  # "grow faster than"
                return AnalysisSpec(kind="verdict", name=with_growth(name),
                                    test="more" if more == "higher" else "less")
        direction = comparative_direction(plain)
        if direction is not None and _GREW_FASTER.search(plain):  # "which grew faster"
            return AnalysisSpec(kind="compare", name=with_growth(name), direction=direction)
        if direction is not None or COMPARATIVE.search(plain):
            return AnalysisSpec(kind="compare", name=name, direction=direction or "higher")
        return AnalysisSpec(kind="multi", name=name)
    if len(found) >= 2 and _WHICH.search(body) and (SUPERLATIVE.search(plain) or (
            len(found) == 2 and comparative_direction(plain))) and \
            all(_LIST_GAP.match(plain[a[3]:b[2]]) for a, b in zip(found, found[1:],
                                                                  strict=False)):
        # "Among operations, investing and financing, which brought in the most cash?"
        return AnalysisSpec(kind="compare", name=" vs ".join(w for _, w, _, _ in found[:6]),
                            direction=comparative_direction(plain) or "higher")
    if yes_no(body) or _EITHER.search(body):
        either = bool(_EITHER.search(body))
        if len(found) >= 2:
            relation = relation_between(plain, found[0][3], found[1][2])
            if relation:
                return AnalysisSpec(kind="verdict", name=f"{name} and {found[1][1]}",
                                    test=relation)
        two_thresholds(plain, found[0][3])  # "above 20% and below 10%": refused, said
        threshold, test = _own_test(plain, found[0][2], found[0][3])
        if test == "stable":
            limit = threshold_of(plain, 0)
            return AnalysisSpec(kind="verdict", name=name, test="stable",
                                threshold=limit[1] if limit else STABLE_POINTS), None
        if threshold is not None:
            test, value, power = threshold
            return AnalysisSpec(kind="verdict", name=name, test=test, threshold=value), power
        if test is not None:
            return AnalysisSpec(kind="verdict", name=name, test=test, either=either)
        if _DONE.search(plain[:found[0][2]]):  # "Has it paid dividends ...?": any at all
            return AnalysisSpec(kind="verdict", name=name, test="positive")
        return None
    if len(found) >= 2 and all(_MULTI_GAP.match(plain[a[3]:b[2]])
                               for a, b in zip(found, found[1:], strict=False)):
        return AnalysisSpec(kind="multi", name=" and ".join(w for _, w, _, _ in found[:4]))
    return None


_GREW_FASTER = re.compile(r"\b(?:grow\w*|grew|increas\w*|ris\w*|rose|expand\w*)\s+(?:\w+\s+)?"
                          r"(?:faster|quicker|more\s+quickly|slower|more\s+slowly)\b|"
                          r"\b(?:faster|slower)[-\s]growing\b", re.I)


def rank_order(body: str) -> str:
    """'higher' (highest first, the default) or 'lower' for a ranking's words."""
    low = body.lower()
    if re.search(r"\blowest\s+(?:first|to\s+highest)|\bfrom\s+(?:the\s+)?lowest|\bascending|"
                 r"\bsmallest\s+(?:first|to\s+largest)|\bleast\s+to\s+most", low):
        return "lower"
    return "higher"


def _own_test(plain: str, start: int, end: int) -> tuple[tuple | None, str | None]:
    """``(threshold, test)`` read in the measure's own clause first ("Why did Gaming decline,
    and did revenue grow?" tests growth), else in the whole question ("What was its revenue,
    and did it grow?")."""
    a, b = clause_span(plain, start, end)
    own = plain[a:b]
    threshold = threshold_of(own, end - a)
    test = test_of(own, end - a)
    if threshold is None and test is None:
        return threshold_of(plain, end), test_of(plain, end)
    return threshold, test


_ASKS_YES_NO = re.compile(r"^(?:and\s+|but\s+)?(?:did|does|do|was|is|were|are|has|have|had|"
                          r"will|would|can|could)\b", re.I)


def asked_first(found: list, plain: str) -> list:
    """The measures named in the yes / no clause first ("Why did sales in Taiwan change, and
    did its revenue grow?" tests revenue, not Taiwan's sales), else as named."""
    if len(found) < 2:
        return found
    def in_yes_no(hit) -> bool:
        a, b = clause_span(plain, hit[2], hit[3])
        return bool(_ASKS_YES_NO.match(plain[a:b].strip(" ,")))

    asked = [in_yes_no(f) for f in found]
    if not any(asked) or all(asked):
        return found
    return [f for f, y in zip(found, asked, strict=True) if y] + \
        [f for f, y in zip(found, asked, strict=True) if not y]
