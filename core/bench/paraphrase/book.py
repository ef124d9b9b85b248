"""The figures the gold is computed from, looked up once each.

``GoldBook(store)`` builds every ``FigureRequest`` explicitly (catalogue key, formula with
absolute periods, the filer's doc_ids, four decimals) and computes it with
``core.figures.compute.answer_figure``; segments come from
``core.figures.segments.members``, a balance sheet's lines from ``core.analysis.pick.
balance_lines`` beside the side's total. No question reader is involved.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.bench.paraphrase.corpus import Filer
from core.bench.paraphrase.grammar import Measure
from core.figures.compute import answer_figure
from core.figures.model import FigureRequest


@dataclass
class GoldBook:
    """Figures of a store, computed once each (``answer_figure``), for the gold."""

    store: object
    _cache: dict = field(default_factory=dict)
    _segments: dict = field(default_factory=dict)
    _lines: dict = field(default_factory=dict)

    def formula(self, filer: Filer, formula: str, unit: str, *, metric: str | None = None,
                years: tuple[int, ...] = ()) -> float | None:
        """``formula`` over ``filer``'s facts in ``unit`` ('percent', 'USD millions'),
        four decimals; None when an input is missing."""
        key = (filer.doc_ids, formula, unit)
        if key not in self._cache:
            request = FigureRequest(name=metric or formula, metric=metric, formula=formula,
                                    periods=[f"FY{y}" for y in sorted(years)], unit=unit,
                                    decimals=4, doc_ids=list(filer.doc_ids),
                                    companies=[filer.name])
            result = answer_figure(request, self.store)
            self._cache[key] = result.value if result.ok else None
        return self._cache[key]

    def figure(self, filer: Filer, measure: Measure, year: int) -> float | None:
        """The measure for one fiscal year: percent, or USD millions."""
        return self.formula(filer, f"{measure.key}[FY{year}]", unit_of(measure),
                            metric=measure.key, years=(year,))

    def segments(self, filer: Filer, year: int, metric: str = "revenue"
                 ) -> list[tuple[str, float]]:
        """The filer's segments and their ``metric`` (USD millions) in ``year``, in print
        order (``core.figures.segments.members``), a segment's parts dropped when the
        filing prints them beside it (J&J's franchises beside Innovative Medicine), and
        catch-all lines ("All other", "Corporate") left out."""
        key = (filer.doc_ids, year, metric)
        if key not in self._segments:
            from core.figures.segments import members

            try:
                found = members(self.store, list(filer.doc_ids), metric, f"FY{year}",
                                "segment")
            except ValueError:
                found = []
            rows = [(m.name, i.value / 1e6) for m, i in found
                    if i.value is not None and not generic(m.name)]
            self._segments[key] = (_without_parts(list(dict(rows).items())),
                                   list(dict.fromkeys(m.name for m, _ in found)))
        return self._segments[key][0]

    def balance_lines(self, filer: Filer, year: int, side: str) -> list[tuple[str, float]]:
        """The lines of ``side`` ('asset' or 'liability') of the filer's balance sheet at the
        end of fiscal ``year`` (USD millions, in print order): the facts of the statement
        the side's total is read from, at its date."""
        key = (filer.doc_ids, year, side)
        if key not in self._lines:
            from core.analysis.pick import balance_lines

            total = "total_assets" if side == "asset" else "total_liabilities"
            request = FigureRequest(name=total, metric=total, formula=f"{total}[FY{year}]",
                                    periods=[f"FY{year}"], unit="USD millions", decimals=4,
                                    doc_ids=list(filer.doc_ids), companies=[filer.name])
            result = answer_figure(request, self.store)
            fact = next((i.fact for i in result.inputs if i.fact is not None), None)
            rows: list[tuple[str, float]] = []
            if result.ok and fact is not None:
                facts = [f for f in self.store.facts([fact.doc_id], statement="balance")
                         if not f.dims and f.end == fact.end and f.unit == fact.unit]
                rows = [(label, f.value / 1e6) for label, f in balance_lines(facts, side)
                        if f.value > 0]
            self._lines[key] = rows
        return self._lines[key]

    def member_names(self, filer: Filer, year: int, metric: str = "revenue") -> list[str]:
        """Every member of the segment kind the filing reports ``metric`` for, parts and
        catch-all lines included (an answer naming one of them first names no segment
        asked)."""
        self.segments(filer, year, metric)
        return self._segments[(filer.doc_ids, year, metric)][1]


_GENERIC = frozenset("other others all corporate total unallocated remaining rest and & "
                     "items eliminations reconciling intersegment segment segments net "
                     "sales revenue revenues".split())


def generic(name: str) -> bool:
    """A catch-all line no analyst calls a segment ("All other", "Corporate", "Other net
    sales"): left out of the gold's segments."""
    words = name.lower().replace(",", " ").split()
    return not words or all(w in _GENERIC for w in words)


def unit_of(measure: Measure) -> str:
    return "percent" if measure.percent else "USD millions"


def _without_parts(rows: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """Rows less those a later row is the sum of (a run just before it, of two or more)."""
    parts: set[int] = set()
    for i, (_, total) in enumerate(rows):
        for j in range(i - 2, -1, -1):
            run = sum(v for _, v in rows[j:i])
            if abs(run - total) <= max(1.0, abs(total) * 0.001):
                parts.update(range(j, i))
                break
    return [r for k, r in enumerate(rows) if k not in parts]
