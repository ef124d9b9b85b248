"""Arithmetic written in words, read into the formula grammar (``core.figures.formula``).

Analysts define metrics in prose: "365 * (average accounts payable between FY2016 and
FY2017) / (FY2017 COGS + change in inventory between FY2016 and FY2017)", "total current
assets less total current liabilities", "cost of goods sold as a % of revenue". The text is
cut into operators (symbols and the words "plus", "minus", "less", "times", "divided by",
"over", "as a % of") and terms; each term names one metric (a catalogue name, or a name
the question defined), optionally with a period and a modifier:

* "FY2017 COGS", "COGS in FY2017"       -> cogs[FY2017]
* "COGS"                                -> cogs[t] (t: the period asked)
* "average X between FY2016 and FY2017" -> avg(x[FY2016], x[FY2017]); "average X" alone
  averages the opening and closing balance, avg(x[t-1], x[t])
* "change in X between FY2016 and FY2017" -> x[FY2017] - x[FY2016]; alone x[t] - x[t-1]
* "prior year X" / "previous year's X"  -> x[t-1]

Words around the metric ("total", "unadjusted", "the", "amount of") are ignored; text in
square brackets ("[from cash flow statement]") and parentheses holding no arithmetic
("(DPO)", "(from cash flow statement)") are annotations. A term naming no metric, or two,
is an error: the caller falls back to the catalogue's own formula.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.figures.formula import BinOp, Call, FormulaError, Neg, Node, Num, Ref
from core.metrics import find_metrics

_OPERATOR_WORDS = [
    (r"as\s+an?\s+(?:%|percent(?:age)?)\s+of", "/"), (r"as\s+(?:%|percent(?:age)?)\s+of", "/"),
    (r"divided\s+by", "/"), (r"multiplied\s+by", "*"), (r"over", "/"), (r"times", "*"),
    (r"plus", "+"), (r"minus", "-"), (r"less", "-"), (r"%\s+of", "/"),
    (r"as\s+an?\s+(?:share|proportion|fraction)\s+of", "/"), (r"relative\s+to", "/"),
]
_OP_RX = re.compile(
    r"(?P<sym>[+*/()])|(?P<minus>(?<![A-Za-z0-9])-(?=\s|\(|$)|(?<=\s)-(?=\S)|(?<=\))-)"
    r"|(?P<num>(?<![A-Za-z0-9.])\d+(?:\.\d+)?(?![A-Za-z0-9]))"
    r"|(?P<word>(?<![\w-])(?:" + "|".join(w for w, _ in _OPERATOR_WORDS) + r")(?![\w-]))", re.I)
_WORD_OPS = [(re.compile(rf"^{w}$", re.I), op) for w, op in _OPERATOR_WORDS]
_FY = re.compile(r"\b(?:FY\s*['\u2019]?|fiscal\s+(?:year\s+)?)(\d{4}|\d{2})\b|"
                 r"(?<![\d$.,])((?:19|20)\d\d)(?!\d|,\d)", re.I)
_PRIOR = re.compile(r"\b(?:prior|previous|preceding|last)\s+(?:fiscal\s+)?year(?:['\u2019]s)?\b"
                    r"|\bbeginning\s+of\s+(?:the\s+)?(?:fiscal\s+)?year\b", re.I)
_AVERAGE = re.compile(r"\b(?:average|avg|mean)\b", re.I)
_CHANGE = re.compile(r"\b(?:change|increase|decrease|movement)\s+in\b", re.I)
_BRACKETS = re.compile(r"\[[^\]]*\]")


@dataclass
class Names:
    """Metric names a question may use: the catalogue's, plus those it defines itself
    ("DPO is defined as ..."; ``local``: name as written, lower case -> key)."""

    local: dict[str, str] = field(default_factory=dict)

    def find(self, text: str) -> list[tuple[str, int, int]]:
        """``(key, start, end)`` of each metric named in ``text``, longest first."""
        low = text.lower().replace("-", " ")
        found: list[tuple[str, int, int]] = []
        for name in sorted(self.local, key=len, reverse=True):
            for m in re.finditer(rf"(?<![a-z0-9]){re.escape(name)}(?![a-z0-9])", low):
                if not any(s < m.end() and m.start() < e for _, s, e in found):
                    found.append((self.local[name], m.start(), m.end()))
        for hit in find_metrics(text):
            if not any(s < hit.end and hit.start < e for _, s, e in found):
                found.append((hit.key, hit.start, hit.end))
        return sorted(found, key=lambda f: f[1])

    def blank(self, text: str) -> str:
        """``text`` (lower case) without the names the question defines (same length)."""
        low = text.lower().replace("-", " ")
        for name in self.local:
            low = re.sub(rf"(?<![a-z0-9]){re.escape(name)}(?![a-z0-9])", " " * len(name), low)
        return low


def _period_label(match: re.Match) -> str:
    year = match.group(1) or match.group(2)
    y = int(year)
    return f"FY{y + 2000 if y < 100 else y}"


def term_node(text: str, names: Names) -> Node:
    """One term ("average accounts payable between FY2016 and FY2017") as a formula node."""
    found = names.find(text)
    keys = list(dict.fromkeys(k for k, _, _ in found))
    if not keys:
        raise FormulaError(f"No metric named in {text.strip()!r}.")
    if len(keys) > 1:
        raise FormulaError(f"More than one metric in {text.strip()!r}: "
                           f"{', '.join(keys)}; join them with an operator.")
    key = keys[0]
    periods = list(dict.fromkeys(_period_label(m) for m in _FY.finditer(text)))
    periods.sort()
    if _AVERAGE.search(text):
        pts = periods if len(periods) >= 2 else (["t-1", "t"] if not periods else
                                                 [_shift(periods[0], -1), periods[0]])
        return Call("avg", tuple(Ref(key, p) for p in pts))
    if _CHANGE.search(text):
        a, b = (periods[0], periods[-1]) if len(periods) >= 2 else (
            ("t-1", "t") if not periods else (_shift(periods[0], -1), periods[0]))
        return BinOp("-", Ref(key, b), Ref(key, a))
    if _PRIOR.search(text):
        return Ref(key, "t-1")
    return Ref(key, periods[-1] if periods else "t")


def _shift(period: str, years: int) -> str:
    return f"FY{int(period[2:6]) + years}{period[6:]}"


def _strip_annotations(text: str, names: Names) -> str:
    """Drop [bracketed notes] and parentheses that hold neither arithmetic nor a metric
    beyond an abbreviation of what precedes them."""
    text = _BRACKETS.sub(" ", text)
    changed = True
    while changed:
        changed = False
        for m in re.finditer(r"\(([^()]*)\)", text):
            inner = m.group(1)
            arithmetic = re.search(r"[+*/]|\s-\s|\d", inner) or any(
                rx.search(f" {inner} ") for rx, _ in
                [(re.compile(rf"\b{w}\b", re.I), op) for w, op in _OPERATOR_WORDS])
            abbreviation = re.fullmatch(r"\s*[A-Za-z&]{2,6}\s*", inner) is not None
            if arithmetic and not abbreviation:
                continue
            if names.find(inner) and not abbreviation:
                continue
            text = text[:m.start()] + " " + text[m.end():]
            changed = True
            break
    return text


def tokens(text: str, names: Names | None = None) -> list[tuple[str, str]]:
    """``[(kind, value)]``: kind is 'op' (+ - * / ( )), 'num' or 'term'. Operator words
    inside a metric's name ("times interest earned") are not operators."""
    out: list[tuple[str, str]] = []
    pos = 0
    protected = [(s, e) for _, s, e in (names or Names()).find(text)]
    for m in _OP_RX.finditer(text):
        if m.group("sym") not in ("(", ")") and any(s <= m.start() < e for s, e in protected):
            continue
        if text[pos:m.start()].strip():
            out.append(("term", text[pos:m.start()].strip()))
        if m.group("sym"):
            out.append(("op", m.group("sym")))
        elif m.group("minus"):
            out.append(("op", "-"))
        elif m.group("num"):
            out.append(("num", m.group("num")))
        else:
            word = " ".join(m.group("word").lower().split())
            out.append(("op", next(op for rx, op in _WORD_OPS if rx.match(word))))
        pos = m.end()
    if text[pos:].strip():
        out.append(("term", text[pos:].strip()))
    # A number inside a term ("3M", "10-K") is part of it; a number beside a term with no
    # operator between is not arithmetic either: glue it back.
    glued: list[tuple[str, str]] = []
    for kind, value in out:
        if glued and kind in {"term", "num"} and glued[-1][0] in {"term", "num"} and \
                "term" in {kind, glued[-1][0]}:
            glued[-1] = ("term", f"{glued[-1][1]} {value}")
        else:
            glued.append((kind, value))
    return glued


class _Reader:
    def __init__(self, toks: list[tuple[str, str]], names: Names, text: str):
        self.toks, self.names, self.text, self.i = toks, names, text, 0

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def expr(self) -> Node:
        node = self.product()
        while (t := self.peek()) and t[0] == "op" and t[1] in "+-":
            self.i += 1
            node = BinOp(t[1], node, self.product())
        return node

    def product(self) -> Node:
        node = self.unary()
        while (t := self.peek()) and t[0] == "op" and t[1] in "*/":
            self.i += 1
            node = BinOp(t[1], node, self.unary())
        return node

    def unary(self) -> Node:
        t = self.peek()
        if t and t == ("op", "-"):
            self.i += 1
            return Neg(self.unary())
        return self.atom()

    def atom(self) -> Node:
        t = self.peek()
        if t is None:
            raise FormulaError(f"The expression ends too early: {self.text.strip()!r}.")
        self.i += 1
        kind, value = t
        if kind == "num":
            return Num(float(value))
        if kind == "term":
            return term_node(value, self.names)
        if value == "(":
            node = self.expr()
            if self.peek() != ("op", ")"):
                raise FormulaError(f"Unbalanced parentheses in {self.text.strip()!r}.")
            self.i += 1
            return node
        raise FormulaError(f"Unexpected {value!r} in {self.text.strip()!r}.")


def read_expression(text: str, names: Names | None = None) -> Node:
    """The arithmetic ``text`` describes, as a formula node (periods may be relative)."""
    names = names or Names()
    clean = _strip_annotations(text, names).strip().rstrip(".;:")
    toks = tokens(clean, names)
    if not toks:
        raise FormulaError(f"Nothing to compute in {text.strip()!r}.")
    reader = _Reader(toks, names, clean)
    node = reader.expr()
    if reader.peek() is not None:
        raise FormulaError(f"Cannot read {text.strip()!r} as arithmetic (stopped at "
                           f"{reader.peek()[1]!r}).")
    return node


def percent_of(text: str) -> bool:
    """True when ``text`` says "X as a % of Y" / "X % of Y" / "X as a share of Y" (the
    result is a percentage)."""
    return re.search(r"(?:%|\bpercent(?:age)?|\bas\s+an?\s+(?:share|proportion|fraction))\s+"
                     r"of\b", text, re.I) is not None
