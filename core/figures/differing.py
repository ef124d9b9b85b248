"""Figures other filings or tables print for the same line, said in the figure's notes.

Only a real difference is a conflict ("other filings or tables differ ($535 million); used
$612 million"); the same amount printed with the other sign (an outflow in parentheses on
one statement, a positive line in a note) is no disagreement: nothing is said (the look-up's
sign note says how a negative print was read). Amounts are written by
``core.figures.units.amount`` ("-$52,535 million", a half rounded up).
"""

from __future__ import annotations

from core.figures.units import amount
from core.foundation.types import Fact


def millions_decimals(millions: float) -> int:
    """Decimals of an amount in millions: none from 100 million or when whole, else one."""
    return 0 if abs(millions) >= 100 or millions == round(millions) else 1


def alt_text(fact: Fact, unit: str) -> str:
    """A differing figure as a note states it, by ``units.amount`` like every figure's
    inputs: "-$52,535 million", "$412.5 million", "$30,000" (a half rounded up)."""
    if unit == "USD" and fact.unit == "USD":
        return amount(fact.value, "USD")
    return f"{fact.value:,.2f}".rstrip("0").rstrip(".")


def same_amount(a: Fact, b: Fact) -> bool:
    """The same amount up to its printed sign (a cash outflow in parentheses here, a
    positive line there): not a disagreement."""
    return abs(abs(a.value) - abs(b.value)) <= max(0.5, 1e-9 * abs(b.value))


def differing_note(label: str, period: str, fact: Fact | None, alts: list[Fact],
                   unit: str, used_value: float | None = None) -> list[str]:
    """The note on figures other filings or tables print for the same line: only real
    differences are a conflict; the same amount with the other sign is none.
    ``used_value``: the figure as used (a negative print taken as a positive amount): the
    others are stated with the same sign convention, each amount once."""
    if fact is None or not alts:
        return []
    flip = -1.0 if used_value is not None and fact.value and used_value == -fact.value else 1.0
    seen: set[float] = set()
    differ = []
    for a in alts:
        if same_amount(a, fact) or round(abs(a.value)) in seen:
            continue
        seen.add(round(abs(a.value)))
        differ.append(a.model_copy(update={"value": flip * a.value}))
    if not differ:
        return []  # the same amount with the other sign: the look-up's sign note says it
    used = alt_text(fact.model_copy(update={"value": flip * fact.value}), unit)
    return [f"{label} {period}: other filings or tables differ "
            f"({', '.join(alt_text(a, unit) for a in differ)}); used {used}."]
