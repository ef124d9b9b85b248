"""A question's own definitions ("DPO is defined as: ...", "Define X as ...", "X = ...")
read into formulas, and a formula expanded down to the metrics that are looked up.

A defined name the catalogue knows ("DPO", "working capital ratio") takes the question's
formula in place of the catalogue's, at every level of an expansion ("CCC is defined as
DIO + DSO - DPO. DIO is defined as ...").
"""

from __future__ import annotations

import re

from core.figures.formula import FormulaError, Node, Ref, bind, parse, substitute, with_member
from core.figures.phrases import Names, read_expression
from core.metrics import catalog

_PAREN = re.compile(r"\([^()]*\)|\[[^\]]*\]")
_DEFINED = re.compile(r"^(?:where\s+|and\s+)?(?P<name>[A-Za-z(][^:=]{0,80}?)\s+(?:is|are)\s+"
                      r"(?:here\s+|being\s+)?(?:defined|calculated|computed|measured)\s+"
                      r"(?:here\s+)?as\s*:?\s*(?P<expr>.+)$", re.I | re.S)
_DEFINE = re.compile(r"^(?:please\s+)?define\s+(?P<name>.+?)\s+as\s*:?\s*(?P<expr>.+)$",
                     re.I | re.S)
_EQUALS = re.compile(r"^(?P<name>[A-Za-z][\w &'/%-]{0,40}?)\s*=\s*(?P<expr>.+)$", re.S)
_NAME_NOISE = re.compile(r"\b(?:here|the|a|an|its|their|company's|of\s+the\s+company)\b",
                         re.I)

def definition(sentence: str) -> tuple[str, str] | None:
    for rx in (_DEFINED, _DEFINE, _EQUALS):
        m = rx.match(sentence)
        if m:
            name = _PAREN.sub(" ", m.group("name"))
            name = " ".join(_NAME_NOISE.sub(" ", name).split()).strip(" ,:")
            return (name, m.group("expr").strip()) if name else None
    return None


def read_definitions(sentences: list[str]) -> tuple[dict[str, Node], Names, list[str]]:
    """``(key -> formula node, names incl. the defined ones, definition sentences)``."""
    names = Names()
    raw: list[tuple[str, str, str]] = []
    texts: list[str] = []
    for s in sentences:
        found = definition(s)
        if not found:
            continue
        name, expr = found
        hits = names.find(name)
        key = hits[0][0] if len(hits) == 1 and hits[0][2] - hits[0][1] >= len(name) - 2 \
            else re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
        names.local[name.lower().replace("-", " ")] = key
        raw.append((key, expr, s))
    defs: dict[str, Node] = {}
    for key, expr, sentence in raw:
        try:
            defs[key] = read_expression(expr, names)
        except FormulaError:
            continue
        texts.append(sentence)
    return defs, names, texts


def expand(node: Node, defs: dict[str, Node], used: set[str] | None = None,
           depth: int = 0) -> Node:
    """``node`` with defined and derived metrics replaced by their formulas, bound to each
    reference's period, down to looked-up metrics (``used`` collects what was expanded)."""
    cat = catalog()
    used = used if used is not None else set()

    def one(ref: Ref) -> Node:
        if depth > 8:
            raise FormulaError(f"{ref.metric} is defined in terms of itself.")
        if ref.metric in defs:
            used.add(f"question:{ref.metric}")
            inner = {k: v for k, v in defs.items() if k != ref.metric}
            own = with_member(bind(defs[ref.metric], ref.period), ref.member)
            return expand(own, inner, used, depth + 1)
        metric = cat.get(ref.metric)
        if metric is not None and metric.derived:
            used.add(f"catalogue:{ref.metric}")
            inner = with_member(bind(parse(metric.formula), ref.period), ref.member)
            return expand(inner, defs, used, depth + 1)
        if metric is None:
            raise FormulaError(f"Unknown metric {ref.metric!r}: not in the catalogue and "
                               "not defined by the question.")
        return ref

    return substitute(node, one)
