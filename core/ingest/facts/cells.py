"""Printed figures: a table cell's value and sign, a table's scale, a row's unit.

A cell is read as printed: "$(1,234)" is -1234, "(25)%" is -25 percent, "—" is zero, and
"$12,300 —%" (a figure followed by a change column glued to it) is 12300. A cell that is
words ("Up 50%", "n/m") holds no figure. The scale comes from the caption or the headings
("(In millions, except per share data)", "(Millions)", "$ in thousands"; words squeezed
together by PDF extraction, "(Inthousands,exceptsharedata)", count too); per-share amounts
and percents are never scaled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUMBER = re.compile(
    r"^(?P<lead>[^\d]*?)(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?P<trail>.*)$"
)
_DASHES = frozenset({"—", "–", "-", "―", "−", "— %", "—%", "-%", "$—", "$ —", "$-", "$ -"})
_LEAD_OK = re.compile(r"^[\s$€£¥(\-−]*(?:US\$|\$)?[\s$(\-−]*$")
_LETTERS = re.compile(r"[A-Za-z]")
NUMERIC_DATE = re.compile(r"(\d{1,2})/(\d{1,2})/((?:19|20)\d\d)")
_SCALES = (
    (9, re.compile(r"inbillions|\(billions|\$billions|billionsofdollars|\$inbillions|\(\$billion")),
    (6, re.compile(r"inmillions|\(millions|\$millions|millionsofdollars|\$inmillions|\(\$million|"
                   r"dollarsinmillions|amountsinmillions")),
    (3, re.compile(r"inthousands|\(thousands|\$thousands|thousandsofdollars|\$inthousands|"
                   r"\(\$thousand|dollarsinthousands|amountsinthousands|\(000'?s\)|in000'?s")),
)
_PER_SHARE = re.compile(r"\bper\s+(?:common\s+|ordinary\s+|diluted\s+|basic\s+|average\s+)*"
                        r"(?:share|unit)(?=\d{0,2}\b)|\bearnings\s+per\b|\beps\b", re.I)
# (a footnote mark glued to the word, "Diluted Net Income Per Share1", still reads)
_PAR_VALUE = re.compile(r"\bpar\s+value\b|\bauthorized\b", re.I)  # a stock line, no heading
_SHARES = re.compile(r"^(?:weighted[-\s]average|average|number\s+of|(?:common\s+)?shares)\b.*"
                     r"\bshares?\b|\bshares\s+(?:used|outstanding|issued)\b", re.I)


@dataclass(frozen=True)
class Figure:
    """One printed figure: ``number`` as printed with its sign, and whether it was a percent."""

    number: float
    percent: bool
    printed: str

    def scaled(self, power: int) -> float:
        """The figure times ten to ``power``, without binary noise (531.7e6, not
        531700000.00000006)."""
        return float(f"{self.number!r}e{power}") if power else self.number


def read_figure(cell: str) -> Figure | None:
    """The figure a cell prints, or None (empty, words, a footnote mark)."""
    text = cell.strip()
    if not text or NUMERIC_DATE.fullmatch(text):
        return None  # empty, or a date printed as figures ("3/25/2023")
    if text in _DASHES:
        return Figure(0.0, text.endswith("%"), text)
    m = _NUMBER.match(text)
    if m is None:
        return None
    lead, num, trail = m.group("lead"), m.group("num"), m.group("trail")
    if not _LEAD_OK.match(lead) or _LETTERS.search(lead):
        return None  # "Up 50%", "FY 2018": words before the figure
    value = float(num.replace(",", ""))
    trail_head = trail.split(" ", 1)[0] if trail.startswith((")", "%")) else trail[:2]
    negative = ("(" in lead and ")" in trail_head) or "-" in lead or "−" in lead
    percent = "%" in trail_head
    if _LETTERS.match(trail.strip()[:1] or " ") and not percent:
        return None  # "3 years", "12 months": a figure inside words
    return Figure(-value if negative else value, percent, text)


def scale_of(text: str) -> int | None:
    """Power of ten a caption or heading says the figures are in; None when it says none."""
    squashed = "".join(text.lower().split())
    best: tuple[int, int] | None = None
    for power, rx in _SCALES:
        m = rx.search(squashed)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), power)
    return best[1] if best else None


def unit_of(label: str, group: str) -> str:
    """'shares', 'USD/share' or 'USD' for a row, read from its label, else from its group
    heading ("Net income per share:" above "Basic"). A count of shares is named as one
    ("Weighted average shares used in per share computation", "Shares outstanding");
    "Proceeds from issuance of shares" is an amount."""
    heading = group if len(label.split()) <= 3 and not label.lower().startswith("total") \
        and not _PAR_VALUE.search(group) else ""
    for text in (label, heading):
        if text and _SHARES.search(text):
            return "shares"
        if text and _PER_SHARE.search(text):
            return "USD/share"
    return "USD"
