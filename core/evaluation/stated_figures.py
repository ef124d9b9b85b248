"""The figures a text states, in order, as an analyst reads them (no LLM).

``stated_figures(text)`` finds every figure a reader would take as a stated amount,
ratio or percentage, and skips the numbers that only label or locate something:
citation markers ``[3]``, years (``2023``), fiscal labels (``FY2018``, ``Q2 2023``,
``fiscal 2023``), dates (``January 29, 2023``), page and document references
(``page 52``, ``Note 5``, ``Item 7``, ``Form 10-K``), list numbering and footnote marks
(``1.``, ``(2) Current``, ``Operating income (3):``), durations used as labels (``3 year
average``, ``12 months ended``), numbers glued to words (``3M``, ``COVID-19``, ``H100``)
and questions (a restated sub-question, "What is the 3 year average ...?", states
nothing). Each figure keeps its sign (``-3.7``, ``$(1,234)``), its scale word
(``million``, ``bn``, ``$1.6B``; or the line's ``in millions`` caption), whether it is a
percentage or a currency amount, and how many decimals it was printed with (the
reference's rounding).

``asked_scale(question)`` reads the unit a question asks for ("in USD millions").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SCALES = {"thousand": 3, "thousands": 3, "k": 3, "million": 6, "millions": 6, "mn": 6,
          "mm": 6, "mil": 6, "m": 6, "billion": 9, "billions": 9, "bn": 9, "b": 9,
          "trillion": 12, "trillions": 12, "tn": 12, "t": 12}
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_SKIP = re.compile("|".join([
    r"\[\d+(?:\s*[-–,;]\s*\d+)*\]",  # citation markers
    r"\b(?:FY|CY|FQ)\s*'?\d{2,4}(?:\s*[-–/]?\s*Q[1-4])?\b",  # FY2018, FY 2023-Q1
    r"\b[1-4]Q\s*'?\d{2,4}\b", r"\b\d{4}\s*[-/]?\s*Q[1-4]\b",  # 2Q23, 2023-Q1
    r"\b[QH][1-4](?:\s*(?:FY\s*)?'?\d{2,4}\b)?", r"\b9M\b",  # Q2 2023, Q2'23, H1
    r"\bfiscal(?:\s+year)?\s+'?\d{2,4}\b",  # fiscal 2023, fiscal year 2024
    rf"\b{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:\s*,?\s*\d{{4}})?\b",  # January 29, 2023
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\.?(?:\s*,?\s*\d{{4}})?\b",  # 1st July
    r"\b\d{4}-\d{2}-\d{2}\b", r"\b\d{1,2}/\d{1,2}/\d{2,4}\b",  # ISO and US dates
    r"\b(?:pdf\s+)?(?:pages?|pp?\.)\s*\d+(?:\s*(?:[-–]|to|and)\s*\d+)?\b",  # page 52
    r"\b(?:notes?|items?|part|exhibits?|sections?|schedules?|rules?|articles?|steps?|"
    r"tables?|figures?|chapters?|footnotes?|level|tier)\s+\d+[a-z]?(?:[.(]\d+\)?)*\b",
    r"\b\d{1,2}-[KQF]\b", r"\b401\(k\)", r"\bS-[1-4]\b",  # form names
    r"^\s*(?:[-*•]\s*)?\(?\d{1,2}[.)](?=\s)",  # list numbering at a line start
    r"\(\d{1,2}\)(?=\s+[A-Za-z])", r"(?<=[A-Za-z] )\(\d{1,2}\)(?=:)",  # (1) Current; Item (3):
    r"\b\d{1,2}[- ](?:years?|yrs?|months?|quarters?|weeks?)\b",  # 3 year average, 52-week
    r"'\d{2}\b",  # '23
]), re.IGNORECASE | re.MULTILINE)
_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_PREFIX = re.compile(r"(?P<neg>[-−–])?(?P<open>\()?(?P<plus>\+)?(?P<cur>US\$|USD ?|\$ ?|€|£)?"
                     r"(?P<neg2>[-−])?(?P<open2>\()?$")
_SUFFIX = re.compile(r"(?P<close>\))?(?P<unit>(?P<pct>\s?(?:%|percent\b|per\s?cent\b|pct\b|"
                     r"percentage points?\b|pp\b|ppts?\b))|\s(?P<word>thousands?|millions?|"
                     r"billions?|trillions?|mn|mm|bn|tn)\b|(?P<tight>thousands?|millions?|"
                     r"billions?|trillions?|mn|mm|bn|tn|mil|[kmbt])(?![A-Za-z])"
                     r"|\s?x(?![A-Za-z]))?(?P<close2>\))?", re.IGNORECASE)
_TRAILING_CURRENCY = re.compile(r"\s?\$(?!\s?[\d(])|\s(?:USD|US dollars|dollars)\b",
                                re.IGNORECASE)
_QUESTION = re.compile(r"(?:^|(?<=[.!?:]\s))(?:[^.!?\n]|\.(?=\d))*\?", re.MULTILINE)
"""A sentence asking something (a restated question states no figure)."""
_CAPTION = re.compile(r"\bin\s+(?:USD\s+|US\s+dollars\s+|\$\s*)?(thousands|millions|billions)\b",
                      re.IGNORECASE)
_ASKED = re.compile(r"\b(?:in|of)\s+(?:units\s+of\s+)?(?:USD|US\$|US\s+dollars|\$|dollars)?\s*"
                    r"(thousands|millions|billions)\b|\(\s*(?:in\s+)?(?:USD|\$)\s*"
                    r"(thousands|millions|billions)\s*\)", re.IGNORECASE)


@dataclass(frozen=True)
class StatedFigure:
    """One figure as stated: its printed text, signed value and how to read it."""

    text: str
    value: float
    """As printed, sign applied: '$(1,234) million' -> -1234.0."""
    scale: int | None = None
    """Power of ten of its scale word or the line's caption (6: million); None: no word."""
    percent: bool = False
    currency: bool = False
    decimals: int = 0
    """Digits printed after the decimal point (the rounding of a reference)."""
    start: int = 0

    @property
    def base(self) -> float | None:
        """The value in base units when the scale is known (percentages: as printed)."""
        if self.percent:
            return self.value
        return None if self.scale is None else self.value * 10 ** self.scale


def _masked(text: str) -> str:
    """``text`` with every skipped span and every question blanked (offsets kept)."""
    blank = _SKIP.sub(lambda m: " " * len(m.group(0)), text)
    return _QUESTION.sub(lambda m: " " * len(m.group(0)), blank)


def _caption_scale(text: str, at: int) -> int | None:
    """The scale of an 'in millions' caption on the line holding offset ``at``."""
    lo = text.rfind("\n", 0, at) + 1
    hi = text.find("\n", at)
    m = _CAPTION.search(text[lo: hi if hi >= 0 else len(text)])
    return SCALES[m.group(1).lower()] if m else None


def _lead(masked: str, start: int) -> tuple[int, bool, bool, bool, bool] | None:
    """Where the figure's printed form starts (sign, parenthesis, currency before the digits),
    and whether it is negative, opens a parenthesis, names a currency; None when the
    digits are glued to a word ('H100', 'COVID-19')."""
    pre = _PREFIX.search(masked, max(0, start - 8), start)
    lead = start - len(pre.group(0)) if pre else start
    neg = bool(pre and pre.group("neg2"))
    if pre and pre.group("neg"):
        c = masked[lead - 1] if lead > 0 else " "
        if c.isspace() or c in "(:;,=":
            neg = True
        elif c.isalnum():
            return None
        else:  # '2.8%-3.1%': a range's dash
            lead += 1
    before = masked[lead - 1] if lead > 0 else " "
    if before.isalnum() or before in "._/":
        return None
    return (lead, neg, bool(pre and (pre.group("open") or pre.group("open2"))),
            bool(pre and pre.group("cur")), bool(pre and pre.group("plus")))


def _figure(text: str, masked: str, m: re.Match) -> StatedFigure | None:
    raw, start, end = m.group(0), m.start(), m.end()
    head = _lead(masked, start)
    if head is None:
        return None
    lead, neg, opened, cur, plus = head
    suf = _SUFFIX.match(masked, end)
    pct = bool(suf.group("pct"))
    word = suf.group("word") or suf.group("tight")
    tail = suf.end("unit") if suf.group("unit") else end
    if suf.group("tight") and len(suf.group("tight")) <= 2 and not (
            cur or "," in raw or "." in raw):
        word, tail = None, end  # '3M', '5G': a name, not '3 million'
    after = _TRAILING_CURRENCY.match(masked, tail)
    if after:
        cur, tail = True, after.end()  # '0.01$', '4.6 billion dollars'
    if tail < len(masked) and (masked[tail].isalnum() or masked[tail] == "_"):
        return None
    if opened and not plus and (suf.group("close") or suf.group("close2")):
        neg, tail = True, suf.end()  # accounting parentheses: '(1,234)', '$(1,234) million'
    elif opened:
        lead = masked.index("(", lead) + 1  # an aside's parenthesis: '(+0.2%)', '(24.8% of'
    decimals = len(raw.split(".")[1]) if "." in raw else 0
    value = float(raw.replace(",", ""))
    if not (cur or pct or word or decimals or "," in raw) and 1900 <= value <= 2100:
        return None  # a year
    scale = SCALES[word.lower()] if word else None
    if scale is None and not pct:
        scale = _caption_scale(text, start)
    return StatedFigure(text=text[lead:tail].strip(), value=-value if neg else value,
                        scale=scale, percent=pct, currency=cur, decimals=decimals, start=lead)


def stated_figures(text: str) -> list[StatedFigure]:
    """The figures ``text`` states, in order (see the module docstring)."""
    text = text or ""
    masked = _masked(text)
    out = []
    for m in _NUMBER.finditer(masked):
        fig = _figure(text, masked, m)
        if fig is not None:
            out.append(fig)
    return out


def asked_scale(question: str) -> int | None:
    """The scale a question asks its answer in ('in USD millions' -> 6), or None."""
    m = _ASKED.search(question or "")
    if not m:
        return None
    return SCALES[(m.group(1) or m.group(2)).lower()]
