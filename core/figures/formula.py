"""The formula grammar: what to compute, as text an analyst can read and edit in a plan.

    formula  := sum
    sum      := product (("+" | "-") product)*
    product  := unary (("*" | "/") unary)*
    unary    := "-" unary | power
    power    := atom ("^" unary)?                 (right-associative)
    atom     := number | ref | func "(" formula ("," formula)* ")" | "(" formula ")"
    ref      := metric member? "[" period "]"     revenue[FY2019], capex[FY2024-Q1]
    member   := "{" name "}"                      revenue{Digital Media}[FY2024]: a segment's,
                                                  product line's or region's figure
    period   := FY2019 | FY2024-Q1 | FY2024-H1 | FY2024-9M | t | t-1 | t+1
                (H1, 9M: six and nine months to date; t: the period asked, catalogue formulas)
    func     := avg | abs | sum | min | max

Examples: ``capex[FY2018]``; ``revenue[FY2019] / avg(ppe_net[FY2018], ppe_net[FY2019])``;
``(revenue[FY2022] / revenue[FY2020]) ^ (1 / 2) - 1``; a segment's share of the total,
``revenue{Google Services}[FY2024] / revenue[FY2024]``. ``parse`` gives a tree,
``render`` writes it back (``parse(render(f)) == f``), ``inputs`` lists the references,
``bind`` turns relative periods into absolute ones, ``evaluate`` computes it.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

from core.foundation.errors import AppError

FUNCTIONS: dict[str, Callable[[list[float]], float]] = {
    "avg": lambda xs: sum(xs) / len(xs),
    "abs": lambda xs: abs(xs[0]),
    "sum": sum,
    "min": min,
    "max": max,
}
_ARITY = {"abs": (1, 1)}
_PERIOD = re.compile(r"FY(\d{4})(?:-(Q[1-4]|H1|9M))?|t(?:([+-])(\d+))?")
_TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d+)?|\.\d+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
                    r"|(?P<member>\{[^{}\[\]]*\})|(?P<period>\[[^\]]*\])|(?P<op>[-+*/^(),]))")
_PREC = {"+": 1, "-": 1, "*": 2, "/": 2, "^": 3}


class FormulaError(AppError):
    """A formula that cannot be read or computed; the message says where and why."""


@dataclass(frozen=True)
class Num:
    value: float


@dataclass(frozen=True)
class Ref:
    metric: str
    period: str
    member: str | None = None
    """A segment, product line or region as named ('Digital Media'); None: the entity's."""

    def __str__(self) -> str:
        member = f"{{{self.member}}}" if self.member else ""
        return f"{self.metric}{member}[{self.period}]"


@dataclass(frozen=True)
class Neg:
    operand: Node


@dataclass(frozen=True)
class BinOp:
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple[Node, ...]


Node = Num | Ref | Neg | BinOp | Call


# --- parsing ---------------------------------------------------------------------------

class _Parser:
    def __init__(self, text: str, known: set[str] | None):
        self.text, self.known = text, known
        self.tokens: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if not m:
                raise self.error(pos, f"unexpected character {text[pos:].lstrip()[0]!r}")
            kind = m.lastgroup or ""
            self.tokens.append((kind, m.group(kind), m.start(kind)))
            pos = m.end()
        self.i = 0

    def error(self, pos: int, what: str) -> FormulaError:
        return FormulaError(f"Bad formula at character {pos + 1} ({what}): {self.text}")

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self, value: str | None = None) -> tuple[str, str, int]:
        tok = self.peek()
        if tok is None:
            raise self.error(len(self.text), f"expected {value!r}, found the end" if value
                             else "unexpected end")
        if value is not None and tok[1] != value:
            raise self.error(tok[2], f"expected {value!r}, found {tok[1]!r}")
        self.i += 1
        return tok

    def parse(self) -> Node:
        if not self.tokens:
            raise FormulaError("The formula is empty: write what to compute, e.g. "
                               "'capex[FY2018]' or 'revenue[t] / revenue[t-1] - 1'.")
        node = self.sum()
        tok = self.peek()
        if tok is not None:
            raise self.error(tok[2], f"unexpected {tok[1]!r}")
        return node

    def sum(self) -> Node:
        node = self.product()
        while (tok := self.peek()) and tok[1] in "+-" and tok[0] == "op":
            self.take()
            node = BinOp(tok[1], node, self.product())
        return node

    def product(self) -> Node:
        node = self.unary()
        while (tok := self.peek()) and tok[1] in "*/" and tok[0] == "op":
            self.take()
            node = BinOp(tok[1], node, self.unary())
        return node

    def unary(self) -> Node:
        tok = self.peek()
        if tok and tok[1] == "-":
            self.take()
            return Neg(self.unary())
        return self.power()

    def power(self) -> Node:
        node = self.atom()
        tok = self.peek()
        if tok and tok[1] == "^":
            self.take()
            node = BinOp("^", node, self.unary())
        return node

    def atom(self) -> Node:
        kind, value, pos = self.take()
        if kind == "num":
            return Num(float(value))
        if value == "(":
            node = self.sum()
            self.take(")")
            return node
        if kind != "name":
            raise self.error(pos, f"expected a number, a metric or '(', found {value!r}")
        nxt = self.peek()
        if nxt and nxt[1] == "(":
            return self.call(value.lower(), pos)
        member = None
        if nxt and nxt[0] == "member":
            self.take()
            member = " ".join(nxt[1][1:-1].split()) or None
            if member is None:
                raise self.error(nxt[2], "an empty member {}: name the segment, e.g. "
                                 f"{value}{{Digital Media}}[FY2024]")
            nxt = self.peek()
        if not nxt or nxt[0] != "period":
            raise self.error(pos, f"metric {value!r} needs a period, e.g. {value}[FY2019] "
                             f"or {value}[t]")
        self.take()
        period = nxt[1][1:-1].strip().replace(" ", "")
        if not _PERIOD.fullmatch(period):
            raise self.error(nxt[2], f"period {period!r} is not FY2019, FY2024-Q1, "
                             "FY2024-H1, t or t-1")
        if self.known is not None and value not in self.known:
            near = difflib.get_close_matches(value, sorted(self.known), n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise self.error(pos, f"unknown metric {value!r}{hint}")
        return Ref(value, period, member)

    def call(self, func: str, pos: int) -> Node:
        if func not in FUNCTIONS:
            raise self.error(pos, f"unknown function {func!r}: use {', '.join(FUNCTIONS)}")
        self.take("(")
        args = [self.sum()]
        while (tok := self.peek()) and tok[1] == ",":
            self.take()
            args.append(self.sum())
        self.take(")")
        lo, hi = _ARITY.get(func, (1, 99))
        if not lo <= len(args) <= hi:
            raise self.error(pos, f"{func}() takes {lo} argument" if lo == hi
                             else f"{func}() takes {lo} to {hi} arguments")
        return Call(func, tuple(args))


def parse(text: str, known: Iterable[str] | None = None) -> Node:
    """The formula ``text`` as a tree; ``known``: the metric keys allowed (None: any)."""
    return _Parser(text or "", set(known) if known is not None else None).parse()


# --- writing back ----------------------------------------------------------------------

def _fmt_num(value: float) -> str:
    return str(int(value)) if value == int(value) and abs(value) < 1e15 else repr(value)


def render(node: Node, ref_text: Callable[[Ref], str] | None = None) -> str:
    """The formula as text, with only the parentheses it needs; ``ref_text`` writes each
    reference another way (a label, a value) for the work shown under an answer."""

    def go(n: Node) -> str:
        if isinstance(n, Num):
            return _fmt_num(n.value)
        if isinstance(n, Ref):
            return ref_text(n) if ref_text else str(n)
        if isinstance(n, Call):
            return f"{n.func}({', '.join(go(a) for a in n.args)})"
        if isinstance(n, Neg):
            inner = go(n.operand)
            return f"-({inner})" if isinstance(n.operand, BinOp) else f"-{inner}"
        prec = _PREC[n.op]
        left, right = go(n.left), go(n.right)
        if isinstance(n.left, BinOp) and (_PREC[n.left.op] < prec or
                                          (n.op == "^" and n.left.op == "^")):
            left = f"({left})"
        if isinstance(n.left, Neg) and n.op == "^":
            left = f"({left})"
        if isinstance(n.right, BinOp) and (_PREC[n.right.op] < prec or
                                           (_PREC[n.right.op] == prec and n.op != "^")):
            right = f"({right})"
        return f"{left} {n.op} {right}"

    return go(node)


# --- references and periods ------------------------------------------------------------

def walk(node: Node) -> Iterable[Node]:
    yield node
    if isinstance(node, Neg):
        yield from walk(node.operand)
    elif isinstance(node, BinOp):
        yield from walk(node.left)
        yield from walk(node.right)
    elif isinstance(node, Call):
        for a in node.args:
            yield from walk(a)


def inputs(node: Node) -> list[Ref]:
    """The metric references, first use order, each once."""
    return list(dict.fromkeys(n for n in walk(node) if isinstance(n, Ref)))


def shift_period(period: str, years: int) -> str:
    """'FY2019' shifted by ``years`` ('FY2018' for -1); a quarter keeps its quarter."""
    m = _PERIOD.fullmatch(period)
    if not m or not m.group(1):
        raise FormulaError(f"Cannot shift period {period!r}: it is not FY2019 or FY2024-Q1.")
    quarter = f"-{m.group(2)}" if m.group(2) else ""
    return f"FY{int(m.group(1)) + years}{quarter}"


def resolve_period(period: str, base: str) -> str:
    """An absolute period for ``period`` ('t-1') relative to ``base`` ('FY2019')."""
    m = _PERIOD.fullmatch(period)
    if not m or m.group(1):
        return period
    offset = int(m.group(4) or 0) * (-1 if m.group(3) == "-" else 1)
    return shift_period(base, offset)


def bind(node: Node, base: str) -> Node:
    """``node`` with relative periods (t, t-1) made absolute against ``base``."""
    return substitute(node, lambda r: replace(r, period=resolve_period(r.period, base)))


def with_member(node: Node, member: str | None) -> Node:
    """``node`` with every reference made ``member``'s (a segment's gross profit is its
    revenue less its cost of sales); None leaves it as it is."""
    return node if not member else substitute(node, lambda r: replace(r, member=member))


def substitute(node: Node, fn: Callable[[Ref], Node]) -> Node:
    """``node`` with every reference replaced by ``fn(ref)``."""
    if isinstance(node, Ref):
        return fn(node)
    if isinstance(node, Neg):
        return Neg(substitute(node.operand, fn))
    if isinstance(node, BinOp):
        return BinOp(node.op, substitute(node.left, fn), substitute(node.right, fn))
    if isinstance(node, Call):
        return Call(node.func, tuple(substitute(a, fn) for a in node.args))
    return node


# --- computing -------------------------------------------------------------------------

def evaluate(node: Node, values: Mapping[str, float | None]) -> float:
    """The value of ``node``, each reference read from ``values`` ('ppe_net[FY2018]' -> x).

    A missing reference or undefined arithmetic (division by zero, a negative base under
    a fractional power) raises ``FormulaError`` naming it.
    """
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Ref):
        value = values.get(str(node))
        if value is None:
            raise FormulaError(f"No value for {node}.")
        return float(value)
    if isinstance(node, Neg):
        return -evaluate(node.operand, values)
    if isinstance(node, Call):
        return float(FUNCTIONS[node.func]([evaluate(a, values) for a in node.args]))
    a, b = evaluate(node.left, values), evaluate(node.right, values)
    if node.op == "+":
        return a + b
    if node.op == "-":
        return a - b
    if node.op == "*":
        return a * b
    if node.op == "/":
        if b == 0:
            raise FormulaError(f"Division by zero in {render(node)}.")
        return a / b
    try:
        out = a ** b
    except (OverflowError, ZeroDivisionError) as exc:
        raise FormulaError(f"Cannot compute {render(node)}: {exc}.") from exc
    if isinstance(out, complex) or math.isnan(out):
        raise FormulaError(f"Cannot compute {render(node)}: negative base.")
    return out
