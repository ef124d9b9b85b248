"""The metric catalogue key of a fact (``core.metrics``, helper B's work).

Until the catalogue is on main this returns None; wiring it is the one line below.
"""

from __future__ import annotations

from core.types import Fact


def metric_of(fact: Fact) -> str | None:
    """Catalogue key for a fact, by its XBRL concept first, else its printed line item."""
    return None
