"""The words that say what an analysis question asks: yes/no, a test, a comparison, a rank.

All of them read the question with company names and periods blanked out (same length, so
the measures' offsets hold): "most recent" and "latest" are period words, never a
comparison.
"""

from __future__ import annotations

import math
import re

YES_NO = re.compile(r"^(?:(?:[^,?]{0,100},\s*){1,4}(?:and\s+|but\s+)?)?(?:did|does|do|was|is|"
                    r"were|are|has|have|had|will|would|can|could)\b", re.I)
"""A yes / no asked first or after clauses ("Why did X fall, and did Y grow?")."""
ALL_COMPANIES = re.compile(
    r"\b(?:which|what)\s+(?:of\s+the\s+)?compan(?:y|ies)\s+(?:loaded|in\s+(?:the|my|our)\s+"
    r"(?:library|corpus))|\b(?:of|among|across)\s+(?:all\s+)?(?:the\s+|these\s+)compan(?:y|ies)"
    r"|\ball\s+(?:the\s+)?compan(?:y|ies)\b|\bevery\s+company\b|\beach\s+company\b", re.I)
RANK = re.compile(
    r"\b(?:rank(?:ed|ing|s)?|sort(?:ed)?\s+by|(?:highest|lowest|largest|smallest|most|least)"
    r"\s+(?:first|to\s+(?:the\s+)?(?:lowest|highest|smallest|largest|least|most))|from\s+(?:the"
    r"\s+)?(?:highest|lowest|largest|smallest|most|least)\s+to|in\s+(?:descending|ascending)"
    r"\s+order|order\s+(?:them\s+)?by)\b", re.I)
COMPARATIVE = re.compile(r"\b(?:which|who|compar(?:e[ds]?|ing|ison)|versus|vs\.?|against|"
                         r"relative\s+to)\b", re.I)
_NOT_COMPARISON = re.compile(r"\b(?:most|more)\s+recent(?:ly)?\b|\blatest\b|\bat\s+least\b",
                             re.I)
_HIGHER = (r"higher|greater|larger|bigger|more|better|stronger|highest|largest|biggest|"
           r"greatest|most|best|strongest|exceed(?:s|ed)?|outperform(?:s|ed)?|faster|quicker|"
           r"fastest")
_LOWER = (r"lower|smaller|less|fewer|worse|weaker|lowest|smallest|least|worst|weakest|"
          r"slower|slowest")
_DIRECTION = re.compile(rf"\b(?:(?P<hi>{_HIGHER})|(?P<lo>{_LOWER}))\b", re.I)
_SIGN = re.compile(r"\b(?P<pos>positive)\b|\b(?P<neg>negative)\b", re.I)
_SERIES = re.compile(r"\b(?P<up>improving|expanding|widening|strengthening)\b|"
                     r"\b(?P<down>deteriorating|worsening|contracting|narrowing|weakening|"
                     r"declining\s+over)\b", re.I)
SUPERLATIVE = re.compile(r"\b(?:most|least|highest|lowest|largest|smallest|biggest|greatest|"
                         r"best|worst|fastest|slowest)\b", re.I)
"""A superlative: "which ... the most", "was A the most profitable of ..."."""
GROWS = re.compile(r"\b(?:grow\w*|grew|growth)\b", re.I)
PICK = re.compile(r"\b(?P<way>largest|biggest|highest|greatest|smallest|lowest)\s+(?:single\s+)?"
                  r"(?P<side>liabilit(?:y|ies)|assets?)\b", re.I)
""""The largest liability", "its biggest asset": a line of the balance sheet picked."""
_STABLE = re.compile(r"\b(?:consistent|stable|steady|flat|not\s+fluctuat\w*|fluctuat\w*|"
                     r"volatile)\b", re.I)
_EXISTENCE = re.compile(r"^(?:[^,?]{0,100},\s*)?(?:are|were|is|was|has|have|had)\s+there\b|"
                        r"\bany\s+(?:\w+\s+){0,3}?(?:events?|items?|factors?|transactions?|"
                        r"acquisitions?|risks?|charges?|changes|reasons?|developments?)\b", re.I)
_GREW = (r"grow|grew|grown|growing|increas(?:e|ed|ing)|ris(?:e|en|ing)|rose|go\s+up|went\s+up|"
         r"expand(?:ed)?|improv(?:e|ed)|climb(?:ed)?")
_DECLINED = (r"declin(?:e|ed|ing)|decreas(?:e|ed|ing)|fall(?:en)?|fell|falling|drop(?:ped)?|"
             r"shr[ai]nk|shrunk|go\s+down|went\s+down|contract(?:ed)?|worsen(?:ed)?|"
             r"deteriorat(?:e|ed)")
_CHANGE = re.compile(rf"\b(?:(?P<up>{_GREW})|(?P<down>{_DECLINED}))\b", re.I)
_ENDS = r"(?=\s*(?:(?:of|at|for|in|on)\b|[?.!,]|$))"  # "worth the most?"; not "most exposed"
_PICK_SIDE_FIRST = re.compile(
    r"(?<!total\s)\b(?P<side>liabilit(?:y|ies)|assets?)\b(?P<gap>[^.;?!]{0,80}?)\b"
    r"(?:the\s+)?(?:single\s+)?(?P<way>largest|biggest|highest|greatest|smallest|lowest|"
    rf"most{_ENDS}|least{_ENDS})", re.I)
_NOT_A_LINE = re.compile(r"\b(?:compan(?:y|ies)|segments?|filers?|peers?|businesses|"
                         r"and\s+(?:which|what|how|who|why))\b", re.I)
_IDENTIFY = re.compile(r"\b(?:which|what|name|identify)\b", re.I)


def pick_asked(text: str) -> tuple[str, str] | None:
    """``(way, side)`` when ``text`` asks for one line of a balance sheet: "the largest
    liability" (``PICK``), or the side first with the size after it in the same clause:
    "Which liability was Acme's largest?", "Of all of Acme's liabilities, which is the
    largest?", "which liability did Acme carry the most of?" (way 'largest'). Not a pick:
    "total assets", a company or segment asked ("which company had the largest ..."), a
    change ("which assets grew the most")."""
    m = PICK.search(text)
    if m is not None:
        return m.group("way").lower(), m.group("side").lower()
    if not _IDENTIFY.search(text):
        return None
    for m in _PICK_SIDE_FIRST.finditer(text):
        gap = m.group("gap")
        if _NOT_A_LINE.search(gap) or _CHANGE.search(gap) or GROWS.search(gap):
            continue
        way = m.group("way").lower()
        return {"most": "largest", "least": "smallest"}.get(way, way), m.group("side").lower()
    return None
_LESS = re.compile(r"\b(?:less|lower|smaller|fewer|below|under|short\s+of)\b", re.I)
_MORE = re.compile(r"\b(?:more|greater|higher|larger|bigger|above|over|exceed(?:s|ed|ing)?)\b",
                   re.I)
_VERB = re.compile(r"\b(?:(?P<more>exceed(?:s|ed|ing)?|surpass(?:es|ed|ing)?|outpac(?:e|es|ed|ing)|"
                   r"outstrip(?:s|ped|ping)?|top(?:s|ped)?)|(?P<less>f[ae]ll(?:s|ing)?\s+short\s+of|"
                   r"trail(?:s|ed|ing)?|lag(?:s|ged|ging)?(?:\s+behind)?))\b", re.I)
_SIDE = re.compile(r"\b(?:(?P<more>above|over|beyond|ahead\s+of)|(?P<less>below|under|"
                   r"beneath|behind))\s+(?:(?:that\s+of|its|their|the)\s+)*$", re.I)
_EQUAL = re.compile(r"\b(?:equal(?:\s+to)?|the\s+same\s+as|as\s+much\s+as)\b", re.I)
_THRESHOLD = re.compile(
    r"\b(?P<op>above|below|over|under|more\s+than|less\s+than|greater\s+than|higher\s+than|"
    r"lower\s+than|exceed(?:s|ed|ing)?|at\s+least|at\s+most|beyond)\s+(?:the\s+|a\s+)?"
    r"(?:(?:roughly|about|approximately|around|some)\s+)?"
    r"(?P<num>-?\$?\s?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?)\s*(?P<scale>%|percent\b|(?:thousand|"
    r"million|billion|trillion|bn|mn|[mbk])\b)?", re.I)
_MORE_NUMBER = re.compile(r"\s*(?:\^|\*\*|[x\u00d7]\s*10\b|e\b|\d)", re.I)
"""What would carry a number on past what was read ("10^400", "1e", "2 x 10^9"): the
threshold is not read as the part before it."""
_AND_THRESHOLD = re.compile(r"\s*,?\s*(?:and|or|but|yet|while)\s+(?:also\s+|still\s+)?"
                            r"(?:(?:was|is|were|are|be)\s+(?:it\s+|they\s+)?)?$", re.I)
_SCALES = {"%": 0, "percent": 0, "thousand": 3, "k": 3, "million": 6, "mn": 6, "m": 6,
           "billion": 9, "bn": 9, "b": 9, "trillion": 12}


DIFFERENCE = re.compile(r"\bby\s+how\s+much\b|\bhow\s+much\s+(?:higher|lower|more|less|bigger|"
                        r"larger|smaller|greater)\b|\bdifference\b|\bgap\b|\bspread\b|"
                        r"\bby\s+what\s+(?:margin|amount)\b", re.I)
"""'By how much', 'the difference between': the answer states the gap."""


_TIMES = re.compile(r"\b(?P<n>twice|double|triple|two|three|four|five|ten|\d+(?:\.\d+)?)"
                    r"(?:\s*(?:times|x)\b|(?<=twice)|(?<=double)|(?<=triple))", re.I)
_TIMES_WORDS = {"twice": 2, "double": 2, "two": 2, "triple": 3, "three": 3, "four": 4,
                "five": 5, "ten": 10}


def factor_of(text: str) -> float:
    """The multiple a comparison names ("more than twice", "three times", "2.5x"); 1 when
    none."""
    m = _TIMES.search(text)
    if m is None:
        return 1.0
    word = m.group("n").lower()
    return float(_TIMES_WORDS.get(word, word)) if word in _TIMES_WORDS or \
        re.fullmatch(r"\d+(?:\.\d+)?", word) else 1.0


def yes_no(body: str) -> bool:
    """Whether a sentence of ``body`` asks yes or no ("Did ...", "In fiscal 2024, was ...")."""
    return any(YES_NO.match(s.strip()) for s in re.split(r"(?<=[.?!])\s+", body))


_SLOWLY = re.compile(r"\b(?:more\s+slowly|less\s+(?:quickly|rapidly|fast))\b", re.I)
_QUICKLY = re.compile(r"\b(?:more\s+(?:quickly|rapidly)|less\s+slowly)\b", re.I)


def comparative_direction(text: str) -> str | None:
    """'higher' or 'lower' for the first comparison word of ``text``; None when it has none
    ("more slowly" is slower, not more)."""
    text = _QUICKLY.sub("faster", _SLOWLY.sub("slower", text))
    m = _DIRECTION.search(_NOT_COMPARISON.sub(" ", text))
    if m is None:
        return None
    return "higher" if m.group("hi") else "lower"


def test_of(plain: str, after: int) -> str | None:
    """What a yes/no question about one figure tests: its sign, its change over a series of
    periods, or its change from the year before (the first such word wins)."""
    hits = []
    stable = _STABLE.search(plain)
    if stable:
        hits.append((stable.start(), "stable"))
    for rx, up, down in ((_SIGN, "positive", "negative"), (_SERIES, "improving", "worsening"),
                         (_CHANGE, "grew", "declined")):
        m = rx.search(plain)
        if m:
            first = next(k for k, v in m.groupdict().items() if v)
            hits.append((m.start(), up if first in ("pos", "up") else down))
    return min(hits)[1] if hits else None


def relation_between(plain: str, first_end: int, second_start: int) -> str | None:
    """'less', 'more' or 'equal' when the words between two measures compare them ("R&D
    less than its capex", "more on R&D than on capex")."""
    gap = plain[first_end:second_start]
    if _THRESHOLD.search(gap) and re.search(r"\d", gap):
        return None
    if _EQUAL.search(gap):
        return "equal"
    verb = _VERB.search(gap)
    if verb:  # "R&D exceeded its capex", "fell short of its dividends"
        return "more" if verb.group("more") else "less"
    side = _SIDE.search(gap)
    if side:  # "its profit margin above its operating margin"
        return "more" if side.group("more") else "less"
    if not re.search(r"\bthan\b", gap, re.I):
        return None
    for text in (gap, plain[max(0, first_end - 60):first_end]):
        less, more = _LESS.search(text), _MORE.search(text)
        if less or more:
            if less and (not more or less.start() > more.start()):
                return "less"
            return "more"
    return None


class Unreadable(Exception):  # noqa: N818 (a reading, not an error of the program)
    """A part of the question read but not answerable as written: ``said`` says which, why,
    and what to write instead (the answer gives what it can and says this as not
    answered)."""

    def __init__(self, said: str):
        super().__init__(said)
        self.said = said


def _written(plain: str, m: re.Match) -> str:
    """A threshold as the question writes it ("1e400%", "10^400"), cut short when long."""
    tail = re.match(r"[\w^*.+\-\u00d7]*%?", plain[m.end("num"):])
    text = (m.group("num") + (tail.group(0) if tail else "")).strip()
    if m.group("scale") and not text.endswith("%"):
        text += m.group("scale") if m.group("scale") == "%" else f" {m.group('scale')}"
    return text if len(text) <= 24 else f"{text[:20]}..."


def threshold_of(plain: str, after: int) -> tuple[str, float, int | None] | None:
    """``(test, value, power of ten or None)`` of a threshold the figure is tested against
    ("above 20%" -> ('above', 20.0, 0); "more than $50 billion" -> ('above', 50.0, 9)).
    Raises ``Unreadable`` for a threshold that is no finite number as written ("1e400%",
    "10^400"): never read as the digits before it."""
    m = _THRESHOLD.search(plain, after)
    if m is None:
        return None
    op = m.group("op").lower()
    test = "below" if op.startswith(("below", "under", "less", "lower", "at most")) else "above"
    value = float(re.sub(r"[$,\s]", "", m.group("num")))
    if not math.isfinite(value) or (not m.group("scale") and _MORE_NUMBER.match(
            plain, m.end("num"))):
        raise Unreadable(f"the threshold '{_written(plain, m)}' is not a finite number the "
                         "figure can be tested against: write it as a plain number in the "
                         "figure's unit (for example 'above 20%')")
    scale = (m.group("scale") or "").lower()
    return test, value, _SCALES.get(scale)


_BETWEEN = re.compile(r"\bbetween\s+(?P<a>-?\$?\s?\d[\d,.]*\s*(?:%|percent\b)?)\s*"
                      r"(?:and|to|-)\s*(?P<b>-?\$?\s?\d[\d,.]*\s*(?:%|percent\b|(?:thousand|"
                      r"million|billion)\b)?)", re.I)


def two_thresholds(plain: str, after: int) -> None:
    """Raises ``Unreadable`` when the question tests against two thresholds at once
    ("above 20% and below 10%", "between 10% and 20%", "revenue above $1 billion and net
    income above $100 million"): a yes / no here tests one, and the answer never decides on
    the first alone."""
    between = _BETWEEN.search(plain, after)
    if between is not None and not re.match(r"\s*(?:to|-)\s*\d", plain[between.end():]):
        words = " ".join(between.group(0).split())
        raise Unreadable(f"the range '{words}': a yes / no here tests one threshold, so it "
                         f"is not decided; ask 'above {between.group('a').strip()}' and "
                         f"'below {between.group('b').strip()}' as two questions")
    first = _THRESHOLD.search(plain, after)
    second = _THRESHOLD.search(plain, first.end()) if first else None
    if first is None or second is None:
        return
    a, b = (" ".join(x.group(0).split()) for x in (first, second))
    gap = plain[first.end():second.start()]
    join = gap.strip(" ,").split()[0].lower() if _AND_THRESHOLD.match(gap) else "and"
    raise Unreadable(f"the two thresholds '{a}' {join} '{b}': a yes / no here tests one "
                     f"threshold, so neither is decided; ask each as its own question "
                     f"(for example 'Was it {a}?')")


def asks_existence(text: str) -> bool:
    """Whether a yes/no asks if something exists ("Were there any events that increased net
    income?"): a question about the text, not a test of a figure."""
    return any(_EXISTENCE.search(s.strip()) for s in re.split(r"(?<=[.?!])\s+", text))
