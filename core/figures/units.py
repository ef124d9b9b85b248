"""Units of a figure: which one a formula naturally has, its usual rounding, and how a
value in base units is stated ("$1,234 million", "0.66", "65.4%", "-3.70 days").

Formulas compute in base units: dollars for amounts, a fraction for a percentage (a margin
of 0.654 is stated "65.4%"), plain numbers for ratios and days.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Context, Decimal

from core.figures.formula import Call, Neg, Node, Num, Ref
from core.metrics import catalog

SCALE = {"USD": 1.0, "USD thousands": 1e3, "USD millions": 1e6, "USD billions": 1e9}
_CATALOGUE_UNIT = {"USD": "USD millions", "USD/share": "per share", "shares": "shares",
                   "percent": "percent", "ratio": "ratio", "times": "times", "days": "days"}
_DEFAULT_DECIMALS = {"percent": 1, "ratio": 2, "times": 2, "days": 2, "USD millions": 0,
                     "USD billions": 2, "USD thousands": 0, "USD": 0, "per share": 2,
                     "shares": 0}


def _money(node: Node, defs: dict[str, Node], depth: int = 0) -> int:
    """Dimension of ``node`` in currency: 1 an amount, 0 a pure number (ratio, days)."""
    if isinstance(node, Num):
        return 0
    if isinstance(node, Ref):
        metric = catalog().get(node.metric)
        if metric is not None:
            return 1 if metric.unit == "USD" else 0
        if node.metric in defs and depth < 8:
            return _money(defs[node.metric], defs, depth + 1)
        return 1
    if isinstance(node, Neg):
        return _money(node.operand, defs, depth)
    if isinstance(node, Call):
        return max(_money(a, defs, depth) for a in node.args)
    a, b = _money(node.left, defs, depth), _money(node.right, defs, depth)
    if node.op in "+-":
        return max(a, b)
    if node.op == "*":
        return a + b
    if node.op == "/":
        return a - b
    return a


def natural_unit(node: Node, aggregate: str, percent: bool,
                 defs: dict[str, Node] | None = None) -> str:
    """The unit a figure has when the question asks none ('USD millions', 'ratio', ...)."""
    defs = defs or {}
    if aggregate in {"pct_change", "cagr"} or (percent and _money(node, defs) < 1):
        return "percent"  # an amount asked "in percent" stays an amount (fits_unit)
    if isinstance(node, Ref):
        metric = catalog().get(node.metric)
        if metric is not None and not (metric.unit == "percent" and node.metric in defs):
            return _CATALOGUE_UNIT.get(metric.unit, "ratio")
    # A question's own definition as a plain division is a ratio unless it asks a percent.
    return "USD millions" if _money(node, defs) >= 1 else "ratio"


def fits_unit(node: Node, unit: str, defs: dict[str, Node] | None = None) -> str | None:
    """The unit to state ``node`` in when ``unit`` does not fit its kind, or None when it
    fits: an amount is never stated as a percent, a ratio or days (its dollars would be
    rescaled: "$3,694 million" shown "369,400,000,000.0%"), a pure number never in USD."""
    money = _money(node, defs or {}) >= 1
    if money and unit in {"percent", "ratio", "times", "days"}:
        return "USD millions"
    if not money and unit in SCALE:
        return natural_unit(node, "value", False, defs)
    return None


def default_decimals(metric: str | None, unit: str) -> int:
    """Usual rounding: the catalogue's for its metric in its own unit, else the unit's."""
    entry = catalog().get(metric) if metric else None
    if entry is not None and entry.decimals is not None and \
            _CATALOGUE_UNIT.get(entry.unit) == unit:
        return entry.decimals
    return _DEFAULT_DECIMALS.get(unit, 2)


def in_unit(value: float, unit: str) -> float:
    """A formula's value (base units, fractions) in ``unit``."""
    if unit in SCALE:
        return value / SCALE[unit]
    if unit == "percent":
        return value * 100.0
    return value


def display(value: float, unit: str, decimals: int) -> str:
    """``value`` (already in ``unit``) as stated: '$1,234 million', '65.4%', '0.66'; a half
    is rounded away from zero, as statements round ($412.5 million: '$413 million')."""
    body = _half_up(abs(value), max(decimals, 0))
    sign = "-" if value < 0 and float(body.replace(",", "")) != 0 else ""
    if unit in SCALE:
        word = {"USD": "", "USD thousands": " thousand", "USD millions": " million",
                "USD billions": " billion"}[unit]
        return f"{sign}${body}{word}"
    if unit == "percent":
        return f"{sign}{body}%"
    if unit == "per share":
        return f"{sign}${body} per share"
    if unit == "days":
        return f"{sign}{body} days"
    if unit == "times":
        return f"{sign}{body}x"
    if unit == "shares":
        return f"{sign}{body} shares"
    return f"{sign}{body}"


def half_up(value: float, places: int) -> float:
    """``value`` to ``places`` decimals, a half away from zero as statements round (412.5 ->
    413, -2.5 -> -3, where round() gives 412 and -2), read as its shortest decimal form."""
    return float(_half_up(value, places).replace(",", "")) if math.isfinite(value) else value


def number(value: float, places: int) -> str:
    """``value`` grouped, to ``places`` decimals, a half away from zero ('1,234.5', '-413'):
    the one rounding of every figure, amount and work line (no '-0')."""
    body = _half_up(abs(value), max(places, 0))
    return f"-{body}" if value < 0 and float(body.replace(",", "")) != 0 else body


def _half_up(value: float, places: int) -> str:
    if not math.isfinite(value):
        return f"{value:,.{places}f}"
    exact = Decimal(repr(value)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP,
                                          Context(prec=340 + places))
    return f"{exact:,.{places}f}"


def amount(value: float, unit: str = "USD") -> str:
    """A fact's value as every line states it (work rows, notes, the CLI's progress, the
    UI's tables): '$1,234 million', '$412.5 thousand' never; '$413 million' for $412.5
    million (a half rounded up, as ``display``), '$3.25 per share', '12.50%'."""
    if unit in {"USD/share", "per share"} or unit.endswith("/share"):
        return display(value, "per share", 2)
    if unit == "shares":
        return f"{number(value / 1e6, 1)} million shares" if abs(value) >= 1e6 else \
            f"{number(value, 0)} shares"
    if unit in {"percent", "pure"}:
        return f"{number(value, 2)}%" if unit == "percent" else f"{value:,.4g}"
    # Amounts in millions, as statements print them, whatever their size (one scale down
    # a computation table).
    scale = "USD millions" if abs(value) >= 1e5 else "USD"
    decimals = 0
    if scale == "USD millions" and abs(value) < 1e7 and value != round(value, -6):
        decimals = 1
    return display(in_unit(value, scale), scale, decimals)
