"""The judge: an answer's text scored against the gold by the shape the question asks.

``judge(gold, answer_text) -> Judgement`` (pure). The opening (first line, first sentence;
see ``answer_text``) must carry the result, as an analyst reads it:

* figure: the first figure of the measure's unit stated within 1% (or the figure's own
  rounding); figures: the first asked, then the second, in the first line;
* compare: the expected company named first, with a comparison word; rank: every company
  named in the first line, in the order asked;
* difference: the gap in the first sentence (±0.1 point, or ±0.5% or the stated rounding
  for amounts): "X had the higher ..." with no gap is answering another question;
* growth_compare: the faster (slower) grower named first, growth said: the larger *size*
  named first with no growth said is answering another question;
* verdict, trend: opens with the right "Yes" / "No";
* share: a percent within ±0.1 point in the first sentence (an amount instead is answering
  another question); largest_member: the expected segment named first among the segments;
  balance_line: the expected line named first among the side's lines (of two named at one
  place, the longer: "Debt" inside "Long-term debt" is not named);
* text: no opening verdict ("Yes.", "No.", "X had the higher ...", "By ..., highest first").

A miss is classed: ``no-answer`` (nothing), ``said-not-answered`` (the opening says it could
not, or the answer says plainly a part was not answered), ``wrong-value`` (the asked shape,
the wrong content), ``wrong-question`` (another kind's result, not said).
"""

from __future__ import annotations

import re

from core.bench.paraphrase.answer_text import (
    Number,
    first_mention,
    first_sentence,
    matches,
    mention_order,
    numbers,
    opening_yes_no,
    result_line,
)
from core.bench.paraphrase.model import Gold, Judgement

_CANNOT = re.compile(r"\b(?:could\s+not|couldn['\u2019]t|cannot|can['\u2019]t|unable\s+to|"
                     r"not\s+answered|no\s+figure|not\s+found|did\s+not\s+find|"
                     r"(?:is|are)\s+not\s+in\s+the\s+filings|not\s+loaded)\b", re.I)
_NOT_ANSWERED = re.compile(r"\b(?:not\s+answered|could\s+not\s+(?:read|answer|compute|decide|"
                           r"find|tell|determine|identify)|I\s+(?:could\s+not|cannot|can['\u2019]t)"
                           r"|cannot\s+(?:say|tell|decide|answer))\b", re.I)
_COMPARATIVE = re.compile(r"\b(?:higher|lower|larger|smaller|bigger|greater|better|worse|"
                          r"stronger|weaker|more|less|highest|lowest|largest|smallest|"
                          r"biggest|best|worst|strongest|weakest|ahead|behind|leads?|led|beat|"
                          r"outperform\w*|exceed\w*|above|below|than|vs\.?|versus|against|"
                          r"faster|slower)\b", re.I)
_VERDICT_COMPARE = re.compile(r"\b(?:had|has|have|was|were|is)\s+the\s+(?:higher|lower|larger|"
                              r"smaller|bigger|greater|better|worse|stronger|weaker|highest|"
                              r"lowest|largest|smallest|biggest|faster|slower)\b", re.I)
_RANK = re.compile(r"\b(?:highest|lowest|largest|smallest|strongest|weakest|best|worst)\s+"
                   r"first\b|\branked\b|\branking\b|\bfrom\s+(?:highest|lowest)\s+to\b", re.I)
_GROWTH = re.compile(r"\b(?:grew|grow\w*|growth|faster|slower|more\s+quickly|more\s+slowly|"
                     r"increas\w+|rose|expan\w+|declin\w+|fell)\b", re.I)
_GAP = re.compile(r"(?:\d[\d,.]*\s*(?:%|percent|points?|pp|pts?|million|billion|bn|m)?\s+"
                  r"(?:higher|lower|more|less|larger|smaller|greater|bigger)\s+than|"
                  r"\b(?:gap|difference)\b[^.]{0,60}\d|\bby\s+\$?\d|\d\s*(?:percentage\s+)?"
                  r"points?\b|\d\s*(?:pp|pts)\b)", re.I)
_SHARE = re.compile(r"\b(?:share|percent(?:age)?\s+of|portion|slice|accounted|proportion|"
                    r"contributed)\b|%\s+of\b", re.I)

_BRIEF = re.compile(r"^\W*extractive\s+brief\b", re.I | re.M)
"""An answer that says it is a brief of lines quoted from its sources (the offline engine's
footer): its opening is a passage, whatever figures the quoted line holds."""

_EXPECTED_SHAPES = {
    "figure": {"figure", "share"}, "figures": {"figure"}, "compare": {"compare"},
    "rank": {"rank", "compare"}, "difference": {"gap"}, "growth_compare": {"growth"},
    "verdict": {"yes-no"}, "trend": {"yes-no"}, "share": {"share"},
    "largest_member": {"compare", "rank"}, "balance_line": {"compare", "rank", "figure"},
    "text": {"passage", "figure", "share"},
}


def opening_shape(line: str, gold: Gold) -> str:
    """The kind of result the answer opens with: yes-no, cannot, gap, growth, share, rank,
    compare, figure, passage, or empty."""
    first = first_sentence(line)
    if not first:
        return "empty"
    if opening_yes_no(first):
        return "yes-no"
    if _CANNOT.search(first):
        return "cannot"
    stated = [n for n in numbers(first) if n.kind != "plain"]
    named = mention_order(first, gold.names)
    if _GAP.search(first) and stated:
        return "gap"
    if _GROWTH.search(first) and (_COMPARATIVE.search(first) or len(named) >= 2) \
            and len(named) >= 1 and gold.kind != "figure":
        return "growth"
    if any(n.kind == "percent" for n in stated) and _SHARE.search(first):
        return "share"
    if _RANK.search(line) or len(mention_order(line, gold.names)) >= 3:
        return "rank"
    if _VERDICT_COMPARE.search(first) or (len(named) >= 2 and _COMPARATIVE.search(first)):
        return "compare"
    if stated:
        return "figure"
    return "passage"


def _of_unit(found: list[Number], unit: str) -> list[Number]:
    if unit in ("percent", "points"):
        return [n for n in found if n.kind in ("percent", "points")]
    return [n for n in found if n.kind == "money"]


def _check_figure(gold: Gold, line: str, first: str) -> tuple[bool, str]:
    found = _of_unit(numbers(first), gold.unit)
    if not found:
        return False, f"no {'percent' if gold.unit == 'percent' else 'money'} figure in " \
                      "the first sentence"
    ok = matches(found[0], gold.value, 0.01)
    return ok, f"first figure {found[0].value:g}, expected {gold.value:g}"


def _check_figures(gold: Gold, line: str, first: str) -> tuple[bool, str]:
    found = _of_unit(numbers(line), gold.unit)
    if not found:
        return False, "no figure in the first line"
    first_ok = matches(found[0], gold.values[0], 0.01)
    second_ok = any(matches(n, gold.values[1], 0.01) for n in found[1:])
    return first_ok and second_ok, (f"figures {[round(n.value, 2) for n in found[:4]]}, "
                                    f"expected {[round(v, 2) for v in gold.values]} in order")


def _check_compare(gold: Gold, line: str, first: str) -> tuple[bool, str]:
    order = mention_order(first, gold.names)
    if not order:
        return False, "no company named in the first sentence"
    if not _COMPARATIVE.search(first):
        return False, f"names {order[0]} with no comparison"
    return order[0] == gold.expect, f"named first: {order[0]}; expected {gold.expect}"


def _check_rank(gold: Gold, line: str, first: str) -> tuple[bool, str]:
    order = mention_order(line, gold.names)
    if order == gold.order:
        return True, "order as asked"
    why = "the reverse order" if order == gold.order[::-1] else f"order {order}"
    return False, f"{why}; expected {gold.order}"


def _gap_candidates(gold: Gold, first: str) -> list[Number]:
    found = _of_unit(numbers(first), gold.unit)
    if gold.unit == "points":
        return [n for n in found if n.kind == "points" or not any(
            abs(abs(n.value) - abs(v)) < abs(abs(n.value) - gold.value) for v in gold.values)]
    return [n for n in found if not any(
        abs(abs(n.value) - abs(v)) < abs(abs(n.value) - gold.value) for v in gold.values)]


def _check_difference(gold: Gold, line: str, first: str) -> tuple[bool, str]:
    points = gold.unit == "points"
    for n in _gap_candidates(gold, first):
        if matches(n, gold.value, 0.0 if points else 0.005, 0.1 if points else 0.0):
            return True, f"gap {n.value:g} stated"
    return False, f"no gap of {gold.value:.2f} {gold.unit} in the first sentence"


def _check_growth(gold: Gold, line: str, first: str) -> tuple[bool, str]:
    order = mention_order(first, gold.names)
    if not order:
        return False, "no company named in the first sentence"
    if not _GROWTH.search(first):
        size = " (the larger size)" if order[0] == gold.size_winner else ""
        return False, f"names {order[0]}{size} first with no growth said"
    if len(order) < 2 and not _COMPARATIVE.search(first):
        return False, f"states {order[0]}'s growth, compared with nothing"
    return order[0] == gold.expect, f"named first: {order[0]}; expected {gold.expect}"


def _check_yes_no(gold: Gold, line: str, first: str) -> tuple[bool, str]:
    said = opening_yes_no(line)
    return said == gold.expect, f"opens {said or 'with no yes/no'}; expected {gold.expect}"


def _check_share(gold: Gold, line: str, first: str) -> tuple[bool, str]:
    found = [n for n in numbers(first) if n.kind == "percent"]
    if not found:
        return False, "no percent in the first sentence"
    for n in found:
        if any(matches(n, v, 0.0, 0.1) for v in [gold.value, *gold.alternates]):
            return True, f"share {n.value:g}% stated"
    return False, f"percents {[n.value for n in found[:3]]}; expected {gold.value:.2f}%"


def _check_member(gold: Gold, line: str, first: str) -> tuple[bool, str]:
    order = mention_order(first, gold.names)
    if not order:
        return False, "no segment named in the first sentence"
    return order[0] == gold.expect, f"named first: {order[0]}; expected {gold.expect}"


def _check_line(gold: Gold, line: str, first: str) -> tuple[bool, str]:
    found = [(at, -len(name), name) for name, aliases in gold.names.items()
             if (at := first_mention(first, aliases)) is not None]
    if not found:
        return False, "no line of the side named in the first sentence"
    named = min(found)[2]
    return named == gold.expect, f"named first: {named}; expected {gold.expect}"


def _check_text(gold: Gold, line: str, first: str) -> tuple[bool, str]:
    if opening_yes_no(line):
        return False, "opens with a yes/no verdict"
    if _VERDICT_COMPARE.search(first) or re.match(r"(?i)by\b.{0,80}\bfirst\b", first):
        return False, "opens with a comparison verdict"
    return True, "no opening verdict"


_CHECKS = {"figure": _check_figure, "figures": _check_figures, "compare": _check_compare,
           "rank": _check_rank, "difference": _check_difference,
           "growth_compare": _check_growth, "verdict": _check_yes_no,
           "trend": _check_yes_no, "share": _check_share, "largest_member": _check_member,
           "balance_line": _check_line,
           "text": _check_text}


def judge(gold: Gold, answer: str, question: str = "") -> Judgement:
    """Score ``answer`` (the answer's whole text) against ``gold`` (module docstring);
    ``question``: the question asked, so a line repeating it is not read as the result."""
    line = result_line(answer, question)
    if not line:
        return Judgement(passed=False, miss="no-answer", opening="empty",
                         reason="no answer text")
    first = first_sentence(line)
    shape = opening_shape(line, gold)
    if shape == "yes-no" and gold.kind not in ("verdict", "trend"):
        ok, reason = False, "opens with a yes/no: the question asks no yes/no"
    else:
        ok, reason = _CHECKS[gold.kind](gold, line, first)
    if ok:
        return Judgement(passed=True, opening=shape, reason=reason, first_line=line)
    if _BRIEF.search(answer) and shape not in ("cannot", "yes-no"):
        shape = "passage"  # the answer says it is lines quoted from the sources
    return Judgement(passed=False, miss=classify(gold, answer, shape, line), opening=shape,
                     reason=reason, first_line=line)


def classify(gold: Gold, answer: str, shape: str, line: str = "") -> str:
    """The class of a miss, given the shape the answer opens with (and its first line)."""
    if shape == "empty":
        return "no-answer"
    if shape == "cannot":
        return "said-not-answered"
    if gold.kind == "figures" and shape == "figure" and len(_of_unit(numbers(line),
                                                                      gold.unit)) < 2:
        shape = "one figure"  # one figure stated where two were asked
    if gold.kind in ("largest_member", "balance_line") and mention_order(line, gold.names):
        shape = "compare"  # a segment (a line) named: the shape asked, the wrong one
    if shape in _EXPECTED_SHAPES[gold.kind]:
        return "wrong-value"
    if _NOT_ANSWERED.search(answer or ""):
        return "said-not-answered"
    return "wrong-question"
