"""What the doctor finds (``core.app.doctor``): one :class:`Finding` per problem, a
:class:`Report` of them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Finding:
    """One problem of the data folder."""

    what: str  # the piece: "vectors", "original", "run record", "registry", ...
    problem: str  # one line a user can read
    repair: str | None = None  # what --repair does; None: nothing can be done here
    repaired: bool = False
    _fix: Callable[[], str] | None = field(default=None, repr=False, compare=False)

    def line(self) -> str:
        tail = ""
        if self.repaired:
            tail = f" — repaired: {self.repair}"
        elif self.repair:
            tail = f" (--repair: {self.repair})"
        return f"{self.what}: {self.problem}{tail}"


@dataclass
class Report:
    findings: list[Finding]
    checked: list[str]  # what was looked at, for the "all well" line

    @property
    def ok(self) -> bool:
        return all(f.repaired for f in self.findings)
