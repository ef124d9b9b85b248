"""A figure line supported by the fact it cites (no LLM).

An answer's figure statement ("NVIDIA's revenue was $26,974 million in FY2023, about flat
from $26,914 million in FY2022 (+0.2%) [1]", "- Revenue, FY2023: $26,974 million (XBRL
us-gaap:Revenues, p. 54) [1]") is read from the facts store, not paraphrased from a
passage: its words rarely overlap the statement table it cites, so sentence similarity
calls it unsupported. ``fact_backed`` checks it against the figures the run recorded
(``Answer.figures`` and the figures its analyses combined):

- every figure the statement states is a recorded figure's value as stated or an input
  fact's value, to the statement's rounding ("$27.0 billion" = 26,974,000,000; scale words
  or a factor of a thousand where one side prints none; sign ignored), or the change
  between two such facts the statement states (a "+0.2%" beside both years), or a
  constant of the figure's formula its work line repeats ("revenue FY2024 / revenue
  FY2023 - 1 = 21,505 / 19,409 - 1");
- the facts behind those figures are printed in a chunk the statement cites ([n] is
  context n, whose id is the chunk id), or, for a statement that cites nothing (a
  "Computed: ..." work line), in one of the run's contexts (as ``offline.support`` reads
  an uncited statement);
- the statement names the figure's metric (its catalogue names, the request's name or the
  fact's printed line item; a computed figure also by its inputs' names, as its work line
  does: "32.1%; operating income FY2024 / revenue FY2024 = ..."), so "profit was $26,974
  million" is not backed by revenue.

Returns what backs it ("revenue FY2023 (XBRL us-gaap:Revenues, p. 54) [1]") or "".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from core.evaluation.stated_figures import StatedFigure, stated_figures
from core.figures.units import amount


@dataclass(frozen=True)
class Backing:
    """One figure the run recorded: how it can be stated, the chunks of its facts, names."""

    figures: tuple[StatedFigure, ...]
    chunks: frozenset[str]
    names: tuple[str, ...]
    label: str
    base: float | None = None
    """The fact's value in base units (inputs), for changes between two of them."""
    constants: tuple[float, ...] = ()
    """Numbers the figure's formula holds (a computed figure: the 1 of 'a / b - 1')."""


def _names(metric: str | None, *extra: str) -> list[str]:
    from core.metrics import catalog

    entry = catalog().get(metric) if metric else None
    out = [*(entry.names if entry else ()), *((entry.label,) if entry else ()), *extra]
    return [n.lower().strip() for n in out if n and n.strip()]


def _catalogue_formula(metric: str | None) -> str:
    """A derived metric's formula in the catalogue ('revenue[t] / revenue[t-1] - 1'), or ''."""
    from core.metrics import catalog

    entry = catalog().get(metric) if metric else None
    return entry.formula or "" if entry else ""


def backings(results: Iterable[Any]) -> list[Backing]:
    """What each recorded ``FigureResult`` and each input fact lets a statement say."""
    out = []
    for r in results:
        facts = [i.fact for i in r.inputs if i.fact is not None and i.fact.chunk_id]
        chunks = frozenset(f.chunk_id for f in facts)
        req = r.request
        if r.value is not None and chunks and r.display:  # named as itself or by its work
            names = _names(req.metric, req.name, *(f.label for f in facts))
            names += [n for i in r.inputs for n in _names(i.metric)]
            formula = re.sub(r"\[[^\]]*\]", "", f"{req.formula} {_catalogue_formula(req.metric)}")
            constants = tuple(float(n) for n in re.findall(r"(?<![\w.])\d+(?:\.\d+)?", formula))
            out.append(Backing(tuple(stated_figures(r.display)), chunks, tuple(names),
                               f"{req.name} {', '.join(req.periods)}".strip(),
                               constants=constants))
        for i in r.inputs:
            f = i.fact
            if f is None or not f.chunk_id or i.value is None:
                continue
            shown = {amount(i.value, i.unit), amount(f.value, f.unit)}
            figs = tuple(s for text in shown for s in stated_figures(text))
            source = f"XBRL {f.concept}" if f.source == "xbrl" and f.concept else "table row"
            where = f"{source}, p. {f.page}" if f.page else source
            out.append(Backing(figs, frozenset({f.chunk_id}),
                               tuple(_names(i.metric, f.label)), f"{i.label} ({where})",
                               base=i.value))
    return out


def _scales(f: StatedFigure) -> tuple[int, ...]:
    return (f.scale,) if f.scale is not None else (0, 3, 6, 9)


def same_value(fig: StatedFigure, ref: StatedFigure) -> bool:
    """Whether ``fig`` (stated) is ``ref`` (recorded) to the coarser of their roundings."""
    if fig.percent != ref.percent:
        return False
    for a_scale in _scales(fig):
        for r_scale in _scales(ref):
            a, r = abs(fig.value) * 10.0 ** a_scale, abs(ref.value) * 10.0 ** r_scale
            step = max(10.0 ** (a_scale - fig.decimals), 10.0 ** (r_scale - ref.decimals))
            if abs(a - r) <= 0.5 * step * (1 + 1e-9):
                return True
    return False


def _named(statement: str, names: Sequence[str]) -> bool:
    low = statement.lower()
    return any(re.search(r"(?<![a-z])" + re.escape(n) + r"(?![a-z])", low) for n in names)


def _change(fig: StatedFigure, bases: list[float]) -> bool:
    """Whether a percentage is the change between two of the statement's backed facts."""
    if not fig.percent:
        return False
    tol = max(0.5 * 10 ** -fig.decimals, 0.05)
    return any(abs(abs(fig.value) - abs(100 * (a - b) / b)) <= tol
               for a in bases for b in bases if b and a != b)


def fact_backed(statement: str, cited: Sequence[int], context_ids: Sequence[str],
                found: Sequence[Backing]) -> str:
    """What backs ``statement`` (see the module docstring), or '' when it is not a figure
    line its cited facts support. ``cited`` are its [n] markers, ``context_ids[n - 1]`` the
    chunk id of context n."""
    figures = stated_figures(statement)
    ids = {context_ids[n - 1] for n in cited if 1 <= n <= len(context_ids)} if cited \
        else set(context_ids)
    if not figures or not ids:
        return ""
    usable = [b for b in found if b.chunks & ids and _named(statement, b.names)]
    shown: list[Backing] = []  # one per figure, an input fact before a computed figure
    bases: list[float] = []
    pending: list[StatedFigure] = []
    for fig in figures:
        matches = [b for b in usable if any(same_value(fig, ref) for ref in b.figures)]
        if not matches:
            pending.append(fig)
            continue
        bases += [b.base for b in matches if b.base is not None]
        best = min(matches, key=lambda b: b.base is None)
        if best not in shown:
            shown.append(best)
    constants = {c for b in usable for c in b.constants}
    if not shown or any(not (_change(fig, bases) or (not fig.percent and fig.scale is None
                                                     and abs(fig.value) in constants))
                        for fig in pending):
        return ""
    marks = "".join(f"[{n}]" for n in dict.fromkeys(cited)) or "(uncited: in the run's evidence)"
    return "; ".join(b.label for b in shown) + f" {marks}"
