"""Judgement words and the named criteria that decide them (``criteria.toml``).

"Is Acme capital-intensive?" is decided by a criterion of this catalogue: each of its tests is
a figure (a measure as a question names it: "capex as a % of revenue") against a stated
threshold, combined by the criterion's rule (any / all). The answer names the criterion and
states every threshold (``describe``); nothing is decided by a threshold it does not say.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

CRITERIA = Path(__file__).with_name("criteria.toml")


@dataclass(frozen=True)
class Test:
    measure: str
    name: str
    op: str  # "above" | "below"
    threshold: float


@dataclass(frozen=True)
class Criterion:
    key: str
    label: str
    words: tuple[str, ...]
    rule: str  # "any" | "all"
    tests: tuple[Test, ...]
    compare: str = ""  # the measure that compares companies by the judgement
    compare_words: tuple[str, ...] = ()

    def asked(self, question: str) -> re.Match | None:
        low = question.lower()
        for w in self.words:
            m = re.search(rf"(?<![a-z]){w}(?![a-z])", low)
            if m:
                return m
        return None


def describe(criterion: Criterion, unit_of: dict[str, str] | None = None) -> str:
    """'capex / revenue above 10% or net PP&E / total assets above 40%'."""
    units = unit_of or {}
    parts = []
    for t in criterion.tests:
        unit = units.get(t.name, "")
        value = f"{t.threshold:g}%" if unit == "percent" else f"{t.threshold:g}"
        parts.append(f"{t.name} {t.op} {value}")
    return f" {'or' if criterion.rule == 'any' else 'and'} ".join(parts)


@lru_cache(maxsize=4)
def criteria(path: Path = CRITERIA) -> tuple[Criterion, ...]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out = []
    for c in data.get("criterion", []):
        tests = tuple(Test(t["measure"], t["name"], t["op"], float(t["threshold"]))
                      for t in c.get("test", []))
        out.append(Criterion(c["key"], c["label"], tuple(c["words"]), c.get("rule", "all"),
                             tests, c.get("compare", ""), tuple(c.get("compare_words", ()))))
    return tuple(out)


def criterion_asked(question: str) -> Criterion | None:
    """The criterion the question's judgement words ask for (the first named), or None."""
    hits = [(m.start(), c) for c in criteria() if (m := c.asked(question))]
    return min(hits, key=lambda h: h[0])[1] if hits else None


@dataclass(frozen=True)
class Comparison:
    """A comparative judgement ("more leveraged than"): its criterion, the span of its words
    in the question and which way it points."""

    criterion: Criterion
    start: int
    end: int
    direction: str  # "higher" | "lower"
    superlative: bool = False  # "the most leveraged of A, B and C"

    @property
    def reading(self) -> str:
        word = "higher" if self.direction == "higher" else "lower"
        return (f"Compared by {self.criterion.compare} (the catalogue's measure for "
                f"{self.criterion.label}): the {word} figure is the answer.")


def comparison_asked(question: str) -> Comparison | None:
    """The comparative judgement a question asks ("Is A more leveraged than B?", "Which is
    less capital-intensive?", "growing faster"), or None."""
    low = question.lower()
    hits = []
    for c in criteria():
        for w in c.compare_words:
            m = re.search(rf"(?<![a-z]){w}(?![a-z])", low)
            if m and c.compare:
                word = m.group("dir")
                way = "higher" if word in ("more", "most", "faster", "fastest") else "lower"
                hits.append(Comparison(c, m.start(), m.end(), way,
                                       word in ("most", "least", "fastest", "slowest")))
    return min(hits, key=lambda h: h.start) if hits else None


def get_criterion(key: str) -> Criterion | None:
    return next((c for c in criteria() if c.key == key), None)
