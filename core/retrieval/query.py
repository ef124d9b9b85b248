"""What a question asks for beyond its words: metrics and the statements that print them.

Analysts name metrics ("capex", "EBITDA", "quick ratio"); filings print line items
("Purchases of property, plant and equipment") in statements. The search glossary (the
``[[search]]`` groups and ``[statement_names]`` of the metric catalogue,
``core/metrics/catalog.toml``: data, not code) maps one to the other. A question that
names a statement ("... shown in the cash flow statement") or a metric gets:

* ``line_items``: the line items, added to the keyword query so BM25 can meet the
  filing's own wording;
* ``statements``: the statements to search as a ranking of their own (see the retriever).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from core.metrics import catalog


@dataclass(frozen=True)
class Metric:
    """A search-glossary entry: names, the line items to add, the statements to rank."""

    names: tuple[str, ...]
    line_items: tuple[str, ...]
    statements: tuple[str, ...]


@dataclass
class QueryAnalysis:
    """The metrics and statements a question names."""

    metrics: list[str] = field(default_factory=list)
    line_items: list[str] = field(default_factory=list)
    statements: list[str] = field(default_factory=list)
    named_statements: list[str] = field(default_factory=list)

    @property
    def note(self) -> str:
        parts = []
        if self.metrics:
            parts.append(f"metrics: {', '.join(self.metrics)}")
        if self.statements:
            parts.append(f"statements: {', '.join(self.statements)}")
        return "; ".join(parts)


def _pattern(names) -> re.Pattern:
    alts = "|".join(re.escape(n.lower()).replace(r"\ ", r"\s+")
                    for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![a-z0-9])(?:{alts})(?![a-z0-9])")


@lru_cache(maxsize=1)
def load_glossary() -> tuple[dict[str, re.Pattern], list[tuple[Metric, re.Pattern]]]:
    """``(statement -> pattern of its names, [(search group, pattern of its names)])``."""
    cat = catalog()
    statements = {kind: _pattern(names) for kind, names in cat.statement_names.items()}
    metrics = []
    for group in cat.search_groups:
        metric = Metric(group.names, group.line_items, group.statements)
        metrics.append((metric, _pattern(metric.names)))
    return statements, metrics


def analyse(query: str) -> QueryAnalysis:
    """The statements and metrics ``query`` names (see the module docstring)."""
    text = query.lower().replace("\u2019", "'")
    statement_names, metrics = load_glossary()
    out = QueryAnalysis()
    for kind, rx in statement_names.items():
        if rx.search(text):
            out.named_statements.append(kind)
    for metric, rx in metrics:
        found = rx.search(text)
        if not found:
            continue
        out.metrics.append(found.group(0))
        out.line_items.extend(i for i in metric.line_items if i not in out.line_items)
        out.statements.extend(s for s in metric.statements if s not in out.statements)
    for kind in out.named_statements:
        if kind not in out.statements:
            out.statements.insert(0, kind)
    return out
