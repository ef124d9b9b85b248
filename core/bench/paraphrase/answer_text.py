"""Reading an answer's text as an analyst does: its opening line and sentence, the figures
it states, and where it names a company or a segment. Pure functions (the judge's parts).

* ``result_line(text)``: the first line that carries a result: markdown marks, citation
  markers ``[1]`` and "Read as: ..." lines (or a trailing "Read as: ..." on the line) set
  aside, so a line saying how the question was read never disturbs the judging;
* ``first_sentence(line)``: up to the first full stop that ends a sentence ("Inc.",
  "U.S.", "vs." and decimals do not); an opening bare "Yes." / "No." carries on into the
  next sentence;
* ``numbers(text)``: every figure stated, with its kind (money, percent, points, plain),
  its value (USD millions for money) and the half-unit of its last digit (its rounding);
* ``first_mention(text, aliases)``: where a subject is first named (case, hyphens and
  punctuation ignored).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CITE = re.compile(r"\s*(?:\[\d+(?:[,\u2013-]\s*\d+)*\])+")
_READ_AS = re.compile(r"^\W*read\s+(?:as|it\s+as)\b", re.I)
_READ_AS_TAIL = re.compile(r"[\s(\u2014-]*\bRead\s+as\b.*$", re.I)
_MARKS = re.compile(r"\*\*|__|`")
_LEAD = re.compile(r"^\s*(?:[-*\u2022>#]+\s*)+")
_ABBREVIATIONS = frozenset("inc corp co ltd plc llc bros no vs approx e.g i.e u.s u.k st jr mr "
                           "ms dr fig est".split())


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9&]+", text.lower())


def is_echo(line: str, question: str) -> bool:
    """Whether ``line`` only repeats the question (maybe reworded, under a short heading:
    "Only weak evidence — What drove HD's operating margin in FY24?"): three quarters of
    the question's words or more, at most six words besides, no figure the question does
    not hold, no opening yes/no."""
    asked, said = _tokens(question), _tokens(line)
    if len(asked) < 3 or opening_yes_no(line):
        return False
    have = set(said)
    shared = sum(w in have for w in asked)
    extra = [w for w in said if w not in set(asked)]
    if any(w[:1].isdigit() for w in extra):
        return False
    return shared >= 0.75 * len(asked) and len(extra) <= 6


def result_line(text: str, question: str = "") -> str:
    """The answer's first line of result (see the module docstring); '' when none. A line
    that only repeats ``question`` (``is_echo``) carries no result and is passed over."""
    for raw in (text or "").splitlines():
        line = _LEAD.sub("", _MARKS.sub("", raw)).strip()
        if not line or _READ_AS.match(line) or set(line) <= set("=-_ "):
            continue
        if question and is_echo(line, question):
            continue
        line = _READ_AS_TAIL.sub("", _CITE.sub("", line)).strip()
        if line:
            return line
    return ""


def _ends_sentence(line: str, dot: int) -> bool:
    """Whether the stop at ``dot`` ends a sentence."""
    after = line[dot + 1:dot + 3]
    if not after[:1].isspace():
        return False
    word = re.search(r"([A-Za-z.]+)$", line[:dot])
    token = (word.group(1) if word else "").lower().strip(".")
    if token in _ABBREVIATIONS or (len(token) == 1 and token.isalpha()):
        return False
    return True


def sentences(line: str) -> list[str]:
    """``line`` split into sentences (module docstring)."""
    out, start = [], 0
    for i, ch in enumerate(line):
        if ch in ".!?" and _ends_sentence(line, i):
            out.append(line[start:i + 1].strip())
            start = i + 1
    rest = line[start:].strip()
    if rest:
        out.append(rest)
    return out


_YES_NO = re.compile(r"^(yes|no)(?:[.,:;!]|\s*$|\s+[-\u2013\u2014])", re.I)


def opening_yes_no(line: str) -> str:
    """'Yes' or 'No' when the line opens with one; ''."""
    m = _YES_NO.match(line.strip())
    return m.group(1).capitalize() if m else ""


def first_sentence(line: str) -> str:
    """The first sentence, carried on through the next when it is a bare Yes / No."""
    parts = sentences(line)
    if not parts:
        return ""
    if len(parts) > 1 and re.fullmatch(r"(?i)(yes|no)[.!]?", parts[0]):
        return f"{parts[0]} {parts[1]}"
    return parts[0]


@dataclass(frozen=True)
class Number:
    """A figure stated in an answer."""

    value: float
    """As read: money in USD millions, percents and points as written."""
    kind: str
    """money, percent, points or plain."""
    half_unit: float
    """Half the unit of its last digit, in ``value``'s unit (its rounding)."""
    pos: int
    raw_dollars: bool = False
    """Money written with no scale ("$21,505"): read as dollars, may mean millions."""


_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_NUM = re.compile(
    r"(?P<neg>[-\u2212\u2013(]\s?)?(?P<cur>\$|USD\s?)?"
    r"(?<![A-Za-z\d.,])(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<dec>\d+))?"
    r"(?:\s?(?P<scale>trillion|billion|million|thousand|bn|tn|mn|[bmk])\b)?"
    r"(?:\s?(?P<unit>%|percent(?:age)?\s+points?|percent|pp\b|pts?\b|points?))?", re.I)
_SCALE = {"trillion": 1e6, "tn": 1e6, "billion": 1e3, "bn": 1e3, "b": 1e3, "million": 1.0,
          "mn": 1.0, "m": 1.0, "thousand": 1e-3, "k": 1e-3}


def numbers(text: str) -> list[Number]:
    """Every figure ``text`` states (a bare year, a date, a citation marker is no figure)."""
    text = _DATE.sub(lambda m: " " * len(m.group(0)), _CITE.sub(lambda m: " " * len(
        m.group(0)), text))
    out = []
    for m in _NUM.finditer(text):
        digits = m.group("int").replace(",", "")
        dec = m.group("dec") or ""
        value = float(f"{digits}.{dec}" if dec else digits)
        step = 10.0 ** -len(dec) / 2
        unit = (m.group("unit") or "").lower()
        scale = (m.group("scale") or "").lower()
        cur = bool(m.group("cur"))
        if unit:
            kind = "percent" if unit in ("%", "percent") else "points"
        elif cur or (scale and scale not in ("k",) and _money_scale(text, m)):
            kind = "money"
        else:
            kind = "plain"
        if kind == "plain" and not dec and 1900 <= value <= 2100:
            continue  # a year
        raw = False
        if kind == "money":
            factor = _SCALE.get(scale, 1e-6)
            raw = not scale
            value, step = value * factor, step * factor
        neg = (m.group("neg") or "").strip()
        if neg in ("-", "\u2212") or (neg == "(" and text[m.end():m.end() + 1] == ")"):
            value = -value
        out.append(Number(value=value, kind=kind, half_unit=step, pos=m.start(),
                          raw_dollars=raw))
    return out


def _money_scale(text: str, m: re.Match) -> bool:
    """'21.5 billion' with no $ sign is money when 'dollars' or 'USD' follows or a $ is near."""
    tail = text[m.end():m.end() + 12].lower()
    return "dollar" in tail or "usd" in tail or "$" in text[max(0, m.start() - 3):m.start()]


def matches(number: Number, gold: float, rel: float, abs_tol: float = 0.0) -> bool:
    """Whether ``number`` states ``gold`` within ``rel`` (relative), ``abs_tol`` or its own
    rounding; money with no scale is also read in millions. Signs are compared by size
    (a loss stated as "a loss of $4.4 billion" is the figure)."""
    candidates = [number.value]
    if number.raw_dollars:
        candidates.append(number.value * 1e6)
    for value in candidates:
        half = number.half_unit * (1e6 if value is not number.value else 1.0)
        tol = max(rel * abs(gold), abs_tol, half) + 1e-9
        if abs(abs(value) - abs(gold)) <= tol:
            return True
    return False


def _norm(text: str) -> str:
    text = text.lower().replace("\u2019", "'")
    text = re.sub(r"'s\b", " ", text)
    return " " + re.sub(r"[^a-z0-9&]+", " ", text).strip() + " "


def first_mention(text: str, aliases: list[str]) -> int | None:
    """Position (in the normalised text) where any alias is first named; None if never."""
    hay = _norm(text)
    best = None
    for alias in aliases:
        key = _norm(alias)
        if key.strip():
            at = hay.find(key)
            if at >= 0 and (best is None or at < best):
                best = at
    return best


def mention_order(text: str, names: dict[str, list[str]]) -> list[str]:
    """The subjects ``text`` names, by where each is first named."""
    found = [(at, key) for key, aliases in names.items()
             if (at := first_mention(text, aliases)) is not None]
    return [key for _, key in sorted(found)]
