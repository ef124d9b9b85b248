"""Gold from the facts, never through the question readers.

Every expected result is computed with the figures layer directly: a ``FigureRequest`` is
built explicitly (catalogue key, a formula such as ``operating_margin[FY2024]`` or
``revenue{Widget Cloud}[FY2024] / revenue[FY2024]``, the period, the filer's doc_ids, the
member for segments) and ``core.figures.compute.answer_figure`` looks it up and computes it;
the winner, order, gap, growth, verdict, trend and share are derived here. ``gold_for``
returns None when a figure it needs is missing: the generator skips (and counts) the case.

A period: the fiscal year the question names (a bare "2024" is read as fiscal 2024), else
each company's latest fiscal year. "The last three years" are the three fiscal years its
latest 10-K prints; "rose in each" means every step between them rose.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from core.bench.paraphrase.book import GoldBook, unit_of
from core.bench.paraphrase.corpus import Filer
from core.bench.paraphrase.grammar import Measure
from core.bench.paraphrase.model import Gold

_TIE = 1e-6


@dataclass(frozen=True)
class Spec:
    """What a case asks, before it is worded."""

    kind: str
    filers: tuple[Filer, ...]
    measures: tuple[Measure, ...] = ()
    year: int | None = None
    """The fiscal year named; None: each company's latest."""
    direction: str = ""
    """compare, growth_compare, largest_member: higher/lower; rank: descending/ascending;
    verdict change: up/down; relation: more/less; trend: rise/fall."""
    test: str = ""
    """verdict: above, below, relation, change; trend: rise, fall."""
    premise: str = ""
    """difference: 'higher' / 'lower': the first company is the one whose figure is."""
    target: str = ""
    """largest_member: revenue or loss; balance_line: asset or liability."""
    threshold: float | None = None
    """verdict above/below: set by the gold (a round number near the figure)."""
    segment: str = ""
    """share: set by the gold (a segment the filing reports revenue for)."""


def _shown(value: float, unit: str) -> str:
    return f"{value:.2f}%" if unit == "percent" else f"${value:,.0f}m" if unit.startswith(
        "USD") else f"{value:.2f} {unit}"


def _names(filers) -> dict[str, list[str]]:
    return {f.name: f.aliases() for f in filers}


def _year(spec: Spec, filer: Filer) -> int:
    return spec.year if spec.year is not None else filer.latest


def _values(book: GoldBook, spec: Spec, measure: Measure) -> list[float] | None:
    vals = [book.figure(f, measure, _year(spec, f)) for f in spec.filers]
    return None if any(v is None for v in vals) else vals


def _ordered(spec: Spec, vals: list[float], descending: bool) -> list[int] | None:
    """Indexes of the filers by value; None on a tie."""
    idx = sorted(range(len(vals)), key=lambda i: -vals[i] if descending else vals[i])
    if any(abs(vals[a] - vals[b]) < _TIE for a, b in zip(idx, idx[1:], strict=False)):
        return None
    return idx


def _detail(spec: Spec, vals: list[float], unit: str, idx: list[int]) -> str:
    sign = " > " if vals[idx[0]] > vals[idx[-1]] else " < "
    return sign.join(f"{spec.filers[i].short} {_shown(vals[i], unit)} (FY"
                     f"{_year(spec, spec.filers[i])})" for i in idx)


def gold_for(spec: Spec, book: GoldBook, rng: random.Random) -> tuple[Gold, Spec] | None:
    """The gold of ``spec`` (and the spec completed: the first company of a difference's
    premise, a threshold, a segment); None when a figure it needs is missing."""
    return _KINDS[spec.kind](spec, book, rng)


def _figure(spec, book, rng):
    m, f = spec.measures[0], spec.filers[0]
    v = book.figure(f, m, _year(spec, f))
    if v is None:
        return None
    return Gold(kind="figure", value=v, unit=unit_of(m), names=_names(spec.filers),
                detail=f"{f.short} {m.key} FY{_year(spec, f)} = {_shown(v, unit_of(m))}"), spec


def _figures(spec, book, rng):
    f = spec.filers[0]
    vals = [book.figure(f, m, _year(spec, f)) for m in spec.measures]
    if any(v is None for v in vals):
        return None
    detail = "; ".join(f"{m.key} {_shown(v, unit_of(m))}" for m, v in zip(spec.measures, vals,
                                                                           strict=True))
    return Gold(kind="figures", values=vals, unit=unit_of(spec.measures[0]),
                names=_names(spec.filers), detail=f"{f.short} FY{_year(spec, f)}: {detail}"), spec


def _compare(spec, book, rng):
    m = spec.measures[0]
    vals = _values(book, spec, m)
    idx = vals and _ordered(spec, vals, spec.direction in ("higher", "descending"))
    if not idx:
        return None
    keys = [spec.filers[i].name for i in idx]
    gold = Gold(kind=spec.kind, expect=keys[0], order=keys if spec.kind == "rank" else [],
                values=vals, unit=unit_of(m), names=_names(spec.filers),
                detail=_detail(spec, vals, unit_of(m), idx))
    return gold, spec


def _difference(spec, book, rng):
    m = spec.measures[0]
    vals = _values(book, spec, m)
    idx = vals and _ordered(spec, vals, True)
    if not idx:
        return None
    if spec.premise:  # "how much higher was A's than B's": A is the higher one
        first = idx if spec.premise == "higher" else idx[::-1]
        spec = replace(spec, filers=tuple(spec.filers[i] for i in first))
        vals = [vals[i] for i in first]
        idx = [0, 1] if spec.premise == "higher" else [1, 0]
    gap = abs(vals[0] - vals[1])
    return Gold(kind="difference", value=gap, values=vals,
                unit="points" if m.percent else "USD millions", names=_names(spec.filers),
                detail=f"{_detail(spec, vals, unit_of(m), idx)}: gap "
                       f"{gap:.2f}{' points' if m.percent else 'm USD'}"), spec


def _growth_compare(spec, book, rng):
    m = spec.measures[0]
    growth, size = [], []
    for f in spec.filers:
        y = _year(spec, f)
        now, before = book.figure(f, m, y), book.figure(f, m, y - 1)
        if now is None or before is None or before <= 0:
            return None
        growth.append((now / before - 1) * 100)
        size.append(now)
    idx = _ordered(spec, growth, spec.direction == "higher")
    big = _ordered(spec, size, True)
    if not idx or not big:
        return None
    detail = "; ".join(f"{f.short} {g:+.2f}% ({_shown(s, 'USD millions')})"
                       for f, g, s in zip(spec.filers, growth, size, strict=True))
    return Gold(kind="growth_compare", expect=spec.filers[idx[0]].name, values=growth,
                unit="percent", size_winner=spec.filers[big[0]].name,
                names=_names(spec.filers), detail=detail), spec


def _threshold(value: float, percent: bool, rng: random.Random) -> float | None:
    """A round threshold clearly away from ``value``."""
    if percent:
        options = [t for t in range(-20, 100, 5) if abs(value - t) >= 2.0]
    else:
        options = [k * 10 ** e for e in range(0, 7) for k in (1, 2, 5)
                   if 1.15 <= abs(k * 10 ** e / value) <= 2.5
                   or 0.4 <= abs(k * 10 ** e / value) <= 0.87] if value else []
    if not options:
        return None
    near = sorted(options, key=lambda t: abs(t - value))[:4]
    return float(rng.choice(near))


def _verdict(spec, book, rng):
    f = spec.filers[0]
    y = _year(spec, f)
    if spec.test in ("above", "below"):
        m = spec.measures[0]
        v = book.figure(f, m, y)
        thr = None if v is None else _threshold(v, m.percent, rng)
        if thr is None:
            return None
        yes = v > thr if spec.test == "above" else v < thr
        spec = replace(spec, threshold=thr)
        detail = f"{f.short} {m.key} FY{y} = {_shown(v, unit_of(m))} vs {spec.test} " \
                 f"{_shown(thr, unit_of(m))}"
    elif spec.test == "relation":
        a, b = (book.figure(f, m, y) for m in spec.measures)
        if a is None or b is None or abs(a - b) < _TIE:
            return None
        yes = a > b if spec.direction == "more" else a < b
        detail = f"{f.short} FY{y}: {spec.measures[0].key} {_shown(a, unit_of(spec.measures[0]))}" \
                 f" vs {spec.measures[1].key} {_shown(b, unit_of(spec.measures[1]))}"
    else:  # change from the year before
        m = spec.measures[0]
        now, before = book.figure(f, m, y), book.figure(f, m, y - 1)
        if now is None or before is None or abs(now - before) < _TIE:
            return None
        yes = now > before if spec.direction == "up" else now < before
        detail = f"{f.short} {m.key}: FY{y - 1} {_shown(before, unit_of(m))} -> FY{y} " \
                 f"{_shown(now, unit_of(m))}"
    return Gold(kind="verdict", expect="Yes" if yes else "No", names=_names(spec.filers),
                detail=detail), spec


def _trend(spec, book, rng):
    f, m = spec.filers[0], spec.measures[0]
    vals = [book.figure(f, m, y) for y in sorted(f.years)]
    if any(v is None for v in vals):
        return None
    steps = [b - a for a, b in zip(vals, vals[1:], strict=False)]
    if any(abs(s) < _TIE for s in steps):
        return None
    yes = all(s > 0 for s in steps) if spec.test == "rise" else all(s < 0 for s in steps)
    shown = " -> ".join(f"FY{y} {_shown(v, unit_of(m))}" for y, v in zip(sorted(f.years),
                                                                         vals, strict=True))
    return Gold(kind="trend", expect="Yes" if yes else "No", values=vals,
                names=_names(spec.filers), detail=f"{f.short} {m.key}: {shown}"), spec


def _share(spec, book, rng):
    f = spec.filers[0]
    y = _year(spec, f)
    rows = book.segments(f, y)
    if len(rows) < 2:
        return None
    name, value = rng.choice(rows)
    share = book.formula(f, f"revenue{{{name}}}[FY{y}] / revenue[FY{y}]", "percent",
                         years=(y,))
    total = sum(v for _, v in rows)
    if share is None or total <= 0:
        return None
    spec = replace(spec, segment=name)
    return Gold(kind="share", value=share, unit="percent", alternates=[value / total * 100],
                names={name: [name]}, detail=f"{f.short} {name} FY{y}: "
                f"${value:,.0f}m = {share:.2f}% of revenue ({value / total * 100:.2f}% of the "
                f"segments' sum)"), spec


def _largest_member(spec, book, rng):
    f = spec.filers[0]
    y = _year(spec, f)
    revenue = book.figure(f, _REVENUE, y)
    if spec.target == "loss":
        rows = book.segments(f, y, "operating_income")
        losses = [r for r in rows if r[1] < 0]
        if not losses:
            return None
        pick = min(losses, key=lambda r: r[1])
    else:
        rows = book.segments(f, y)
        clean = revenue is not None and abs(sum(v for _, v in rows) - revenue) <= \
            0.05 * revenue
        if len(rows) < 2 or (spec.direction == "lower" and not clean):
            return None  # "smallest" only over segments that add up to the revenue
        pick = (max if spec.direction == "higher" else min)(rows, key=lambda r: r[1])
    if sum(abs(v - pick[1]) < _TIE for _, v in rows) > 1:
        return None
    shown = ", ".join(f"{n} ${v:,.0f}m" for n, v in rows)
    every = book.member_names(f, y, "operating_income" if spec.target == "loss" else "revenue")
    names = {n: [n] for n in dict.fromkeys([*(n for n, _ in rows), *every])}
    return Gold(kind="largest_member", expect=pick[0], names=names,
                detail=f"{f.short} FY{y} {spec.target} by segment: {shown}"), spec


def _balance_line(spec, book, rng):
    """The largest (smallest) line of one side of the balance sheet; no gold on a tie or a
    side printed as fewer than two lines."""
    f = spec.filers[0]
    y = _year(spec, f)
    rows = book.balance_lines(f, y, spec.target)
    if len(rows) < 2:
        return None
    pick = (max if spec.direction == "higher" else min)(rows, key=lambda r: r[1])
    if sum(abs(v - pick[1]) < _TIE for _, v in rows) > 1:
        return None
    shown = ", ".join(f"{n} ${v:,.0f}m" for n, v in rows)
    return Gold(kind="balance_line", expect=pick[0], names={n: [n] for n, _ in rows},
                detail=f"{f.short} FY{y} {spec.target} lines: {shown}"), spec


def _text(spec, book, rng):
    return Gold(kind="text", names=_names(spec.filers), detail="no opening verdict"), spec


_REVENUE = Measure(key="revenue", unit="USD", catalogue="revenue", abbreviations=("sales",),
                   plural="revenues")
_KINDS = {"figure": _figure, "figures": _figures, "compare": _compare, "rank": _compare,
          "difference": _difference, "growth_compare": _growth_compare, "verdict": _verdict,
          "trend": _trend, "share": _share, "largest_member": _largest_member,
          "balance_line": _balance_line, "text": _text}
