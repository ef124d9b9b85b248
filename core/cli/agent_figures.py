"""Plain-text rendering of figures for ``python -m core ask``: a figure step's fields in the
plan and the computation table under the answer (a look-up's facts read as their event
says: ``FactsFound.line``)."""

from __future__ import annotations

from typing import Any


def figure_fields(s: Any) -> str:
    """A figure step's fields as the plan listing shows them ("" for a text step)."""
    if s.tool == "figure_lookup":
        return f" | metric: {s.metric} | periods: {', '.join(s.periods) or '-'}" + (
            f" | unit: {s.unit}" if s.unit else "") + (
            f" | decimals: {s.decimals}" if s.decimals is not None else "")
    if s.tool == "compute":
        return f" | formula: {s.formula}" + (f" | unit: {s.unit}" if s.unit else "") + (
            f" | decimals: {s.decimals}" if s.decimals is not None else "") + (
            f" | uses steps: {', '.join(str(d + 1) for d in s.depends_on)}"
            if s.depends_on else "")
    return ""


def computation_table(figures: list, evidence: list) -> list[str]:
    """Plain-text computation table per figure: input, period, value, unit, source [n]."""
    n_of = {ev.id: n for n, ev in enumerate(evidence, start=1)}
    out: list[str] = []
    for fig in figures:
        rows = [("input", "period", "value", "unit", "source")]
        for r in fig.rows:
            cite = f" [{n_of[r.chunk_id]}]" if r.chunk_id in n_of else ""
            page = f", {r.where}" if r.where else ""
            rows.append((r.input, r.period, r.value, r.unit, f"{r.source}{page}{cite}".strip()))
        widths = [max(len(str(row[k])) for row in rows) for k in range(5)]
        head = f"{fig.request.name}: {fig.display or 'not computed'}"
        out += ["", head] + ["  " + "  ".join(str(c).ljust(w) for c, w in zip(
            row, widths, strict=True)).rstrip() for row in rows]
        out += [f"  work: {fig.work}"] if fig.work else []
        out += [f"  missing: {m}" for m in fig.missing]
    return out
