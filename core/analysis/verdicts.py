"""Yes/no questions that figures decide, and several figures stated together.

The answer is "Yes" or "No" first, then the figures and the comparison that decided it:

* positive / negative: the figure against zero;
* grew / declined: the measure's growth (the figure is the change), with the two amounts;
* less / more / equal: the first figure against the second (two measures of one company, or
  one measure of two companies);
* above / below: the figure against the threshold the question gives, in its unit;
* improving / worsening: the first period of the series against the last, every period
  said.

``multi`` states each figure in the order asked; nothing is decided.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from core.analysis.model import AnalysisResult, AnalysisSpec, PeerRow
from core.analysis.rows import (
    gap,
    period_notes,
    period_words,
    possessive,
    shared_unit,
    stated,
    was,
)
from core.figures.model import FigureResult

Mark = Callable[[PeerRow], str]
_PERIOD_LABEL = re.compile(r"(?:Q[1-4] )?FY\d{4}")  # rows named by their periods


def _decide(spec: AnalysisSpec, rows: list[PeerRow]) -> tuple[bool, str] | None:
    """``(yes, basis)``, or None when a figure it needs is missing."""
    vals = [r.value for r in rows]
    if any(v is None for v in vals) or not vals:
        return None
    test, first = spec.test, vals[0]
    if test in ("positive", "negative"):
        yes = first > 0 if test == "positive" else first < 0
        return yes, f"{rows[0].display} {'>' if first > 0 else '<' if first < 0 else '='} 0"
    if test in ("grew", "declined") and len(rows) >= 2:  # a figure in two periods
        yes = vals[-1] > first if test == "grew" else vals[-1] < first
        return yes, _arrow(rows[0], rows[-1])
    if test in ("grew", "declined"):
        yes = first > 0 if test == "grew" else first < 0
        return yes, f"change {rows[0].display}"
    if test in ("above", "below") and spec.threshold is not None:
        yes = first > spec.threshold if test == "above" else first < spec.threshold
        limit = stated(spec.threshold, rows[0].unit, rows[0])
        return yes, f"{rows[0].display} {'>' if first > spec.threshold else '<='} {limit}"
    if len(rows) < 2 or len({r.unit for r in rows}) > 1:
        return None
    last = vals[-1]
    if test == "stable" and spec.threshold is not None:
        steps = _moves(rows)
        worst = max(steps, key=abs) if steps else 0.0
        return abs(worst) <= spec.threshold, f"largest year-to-year move {abs(worst):.1f} " \
            f"{_move_unit(rows)} (limit {spec.threshold:g})"
    if test in ("improving", "worsening") and spec.each:  # every year step
        steps = [b - a for a, b in zip(vals, vals[1:], strict=False)]
        yes = all(m > 0 for m in steps) if test == "improving" else all(m < 0 for m in steps)
        return yes, " -> ".join(f"{r.display} ({period_words(r.period)})" for r in rows)
    if test in ("improving", "worsening"):  # the latest move: the profile as it is now
        prev = vals[-2]
        yes = last > prev if test == "improving" else last < prev
        return yes, _arrow(rows[-2], rows[-1])
    if spec.factor != 1 and test in ("more", "less") and last:  # "more than twice"
        times = first / last
        yes = times > spec.factor if test == "more" else times < spec.factor
        return yes, f"{rows[0].label} / {rows[1].label} = {times:.2f} (against {spec.factor:g})"
    sign = "<" if first < last else ">" if first > last else "="
    yes = {"less": first < last, "more": first > last, "equal": rows[0].display == rows[1].display
           }.get(test or "", False)
    return yes, f"{rows[0].label} {rows[0].display} {sign} {rows[1].label} {rows[1].display}"


def _arrow(old: PeerRow, new: PeerRow) -> str:
    """'36.8% (fiscal 2021) -> 34.6% (fiscal 2022)'."""
    return f"{old.display} ({period_words(old.period)}) -> {new.display} " \
           f"({period_words(new.period)})"


def _moves(rows: list[PeerRow]) -> list[float]:
    """Year-to-year moves of a series: in points for a percentage, else in percent."""
    vals = [r.value for r in rows]
    if rows and rows[0].unit == "percent":
        return [b - a for a, b in zip(vals, vals[1:], strict=False)]
    return [(b - a) / abs(a) * 100 for a, b in zip(vals, vals[1:], strict=False) if a]


def _move_unit(rows: list[PeerRow]) -> str:
    return "points" if rows and rows[0].unit == "percent" else "%"


def verdict(spec: AnalysisSpec, rows: list[PeerRow], figures: list[FigureResult],
            subjects: list[str]) -> AnalysisResult:
    """Decide a yes/no question (see the module docstring)."""
    out = AnalysisResult(spec=spec, rows=rows, unit=shared_unit(rows),
                         notes=period_notes(rows) if len(set(subjects)) > 1 else [],
                         missing=[f"{r.label}: {r.missing}" for r in rows if r.value is None])
    decided = _decide(spec, rows)
    if decided is not None:
        out.verdict, out.basis = ("Yes" if decided[0] else "No"), decided[1]
    out.lead = verdict_lead(out, subjects, figures, lambda _r: "")
    return out


def _amounts(figure: FigureResult | None) -> tuple[str, str] | None:
    """The amounts a change was computed from: ``(older, newer)`` as stated, with periods."""
    from core.figures.units import amount

    if figure is None:
        return None
    ins = sorted((i for i in figure.inputs if i.value is not None), key=lambda i: i.period)
    if len(ins) < 2 or ins[0].metric != ins[-1].metric:
        return None
    return (f"{amount(ins[0].value, ins[0].unit)} in {period_words(ins[0].period)}",
            f"{amount(ins[-1].value, ins[-1].unit)}")


def verdict_lead(result: AnalysisResult, subjects: list[str], figures: list[FigureResult],
                 mark: Mark) -> str:
    """"Yes." / "No." then the figures that decided it, each followed by ``mark``."""
    from core.analysis.peers import missing_lead

    spec, rows = result.spec, result.rows
    if not result.verdict:
        return missing_lead(result, mark)
    who = subjects[0] if subjects else "The company"
    whose = possessive(who)
    r0 = rows[0]
    when = period_words(r0.period)
    word = f"{result.verdict}."
    if spec.test in ("positive", "negative"):
        side = "above" if r0.value > 0 else "below" if r0.value < 0 else "exactly"
        return (f"{word} {whose} {spec.name} in {when} {was(spec.name)} {r0.display}{mark(r0)}, "
                f"{side} zero.")
    if spec.test in ("grew", "declined") and len(rows) >= 2:
        return _span_lead(result, whose, word, mark)
    if spec.test in ("grew", "declined"):
        move = "grew" if r0.value > 0 else "declined" if r0.value < 0 else "was unchanged"
        if spec.either:  # "improved or declined?": the change is the answer
            word = {"grew": "It rose.", "declined": "It fell."}.get(move, "It was unchanged.")
        size = r0.display.lstrip("-")
        base = (spec.name.removesuffix(" growth"))
        text = f"{word} {whose} {base} {move} {size} in {when}{mark(r0)}"
        pair = _amounts(figures[0] if figures else None)
        return text + (f", from {pair[0]} to {pair[1]}." if pair else ".")
    if spec.test in ("above", "below"):
        side = "above" if r0.value > spec.threshold else "not above" if spec.test == "above" \
            else "not below"
        if spec.test == "below" and r0.value < spec.threshold:
            side = "below"
        limit = stated(spec.threshold, r0.unit, r0)
        return (f"{word} {whose} {spec.name} in {when} {was(spec.name)} {r0.display}{mark(r0)}, "
                f"{side} {limit}.")
    if spec.test == "stable":
        series = ", ".join(f"{r.display} in {period_words(r.period)}{mark(r)}" for r in rows)
        moves = _moves(rows)
        worst = max((abs(m) for m in moves), default=0.0)
        within = "stayed within" if result.verdict == "Yes" else "moved more than"
        return (f"{word} {whose} {spec.name} {within} {spec.threshold:g} {_move_unit(rows)} a "
                f"year: {series} (largest move {worst:.1f} {_move_unit(rows)}).")
    if spec.test in ("improving", "worsening") and spec.each:
        return _each_lead(result, whose, word, mark)
    if spec.test in ("improving", "worsening"):
        prev, last = rows[-2], rows[-1]
        move = "rose" if last.value > prev.value else "fell" if last.value < prev.value else \
            "was unchanged"
        before = "; ".join(f"{r.display} in {period_words(r.period)}{mark(r)}" for r in rows[:-2])
        text = (f"{word} {whose} {spec.name} {move} from {prev.display} in "
                f"{period_words(prev.period)}{mark(prev)} to {last.display} in "
                f"{period_words(last.period)}{mark(last)}")
        return text + (f" ({before})." if before else ".")
    r1 = rows[1]
    rel = "less than" if r0.value < r1.value else "more than" if r0.value > r1.value else \
        "equal to"
    if spec.factor != 1 and r1.value:  # "more than twice": the ratio said
        rel = f"{r0.value / r1.value:.1f} times"
    if r0.period != r1.period and len(set(subjects)) <= 1 and spec.labels and \
            all(_PERIOD_LABEL.fullmatch(label) for label in spec.labels[:2]):
        rel = {"less than": "lower than", "more than": "higher than"}.get(rel, rel)
        return (f"{word} {whose} {spec.name} in {when} ({r0.display}){mark(r0)} "
                f"{was(spec.name)} {rel} "
                f"in {period_words(r1.period)} ({r1.display}){mark(r1)}.")
    if len(set(subjects)) > 1:  # one measure of two companies
        rel = {"less than": "lower than", "more than": "higher than"}.get(rel, rel)
        first, second = possessive(r0.label), possessive(r1.label)
        apart = f", by {gap(r0, r1)}" if spec.difference and gap(r0, r1) else ""
        return (f"{word} {first} {spec.name} ({r0.display}, {when}){mark(r0)} "
                f"{was(spec.name)} {rel} "
                f"{second} ({r1.display}, {period_words(r1.period)}){mark(r1)}{apart}.")
    return (f"{word} {whose} {r0.label} in {when} ({r0.display}){mark(r0)} {was(r0.label)} "
            f"{rel} its "
            f"{r1.label} ({r1.display}){mark(r1)}.")


def _each_lead(result: AnalysisResult, whose: str, word: str, mark: Mark) -> str:
    """Every year step of a series: "Yes. Acme's gross margin rose every year: ..." or
    the first step that went the other way."""
    rows, up = result.rows, result.spec.test == "improving"
    way = "rose" if up else "fell"
    series = ", ".join(f"{r.display} in {period_words(r.period)}{mark(r)}" for r in rows)
    if result.verdict == "Yes":
        return f"{word} {whose} {result.spec.name} {way} every year: {series}."
    for a, b in zip(rows, rows[1:], strict=False):
        if (b.value > a.value) != up or b.value == a.value:
            move = "rose" if b.value > a.value else "fell" if b.value < a.value else \
                "was unchanged"
            return (f"{word} {whose} {result.spec.name} {move} from {a.display} in "
                    f"{period_words(a.period)} to {b.display} in {period_words(b.period)}; "
                    f"the series: {series}.")
    return f"{word} {whose} {result.spec.name}: {series}."


def _span_lead(result: AnalysisResult, whose: str, word: str, mark: Mark) -> str:
    """A figure's move between two periods: in points for a percentage, else in percent."""
    first, last = result.rows[0], result.rows[-1]
    move = "rose" if last.value > first.value else "fell" if last.value < first.value else \
        "was unchanged"
    if result.spec.either:
        word = {"rose": "It rose.", "fell": "It fell."}.get(move, "It was unchanged.")
    moves = _moves([first, last])  # points for a percentage, else percent
    unit = " points" if _move_unit([first]) == "points" else "%"
    size = f"{moves[0]:+.1f}{unit}" if moves else ""
    text = (f"{word} {whose} {result.spec.name} {move} from {first.display} in "
            f"{period_words(first.period)}{mark(first)} to {last.display} in "
            f"{period_words(last.period)}{mark(last)}")
    return text + (f" ({size})." if size and move != "was unchanged" else ".")


def _several(result: AnalysisResult, subjects: list[str]) -> bool:
    """Whether the rows are of several companies: named apart, or read from different
    filers' filings (two filers of one name, each answered)."""
    filings = {tuple(sorted(f.request.doc_ids)) for f in result.figures if f.request.doc_ids}
    return len(set(subjects)) > 1 or (len(filings) > 1 and len(filings) == len(result.rows)
                                      and len(set(result.spec.labels)) == len(result.rows))


def multi(spec: AnalysisSpec, rows: list[PeerRow], subjects: list[str]) -> AnalysisResult:
    """Several figures stated in the order asked."""
    out = AnalysisResult(spec=spec, rows=rows, unit=shared_unit(rows),
                         notes=period_notes(rows) if len(set(subjects)) > 1 else [],
                         missing=[f"{r.label}: {r.missing}" for r in rows if r.value is None])
    out.verdict = "; ".join(f"{r.label} {r.display}" for r in rows if r.value is not None)
    out.lead = multi_lead(out, subjects, lambda _r: "")
    return out


def multi_lead(result: AnalysisResult, subjects: list[str], mark: Mark) -> str:
    rows = result.rows
    if len(set(subjects)) > 1 and result.spec.difference and len(rows) == 2 and \
            gap(rows[0], rows[1]):  # "the difference between A's and B's ...": the gap first
        hi, lo = sorted(rows, key=lambda r: -r.value)
        return (f"{possessive(hi.label)} {result.spec.name} was {gap(hi, lo)} higher than "
                f"{possessive(lo.label)}: {hi.display} in {period_words(hi.period)}{mark(hi)} "
                f"against {lo.display} in {period_words(lo.period)}{mark(lo)}.")
    if _several(result, subjects):  # one measure of several companies, or each its own
        parts = [f"{possessive(r.label)} {_measure(result, r)} in {period_words(r.period)} "
                 f"{was(_measure(result, r))} "
                 f"{r.display}{mark(r)}" for r in rows]
        apart = gap(rows[0], rows[1]) if result.spec.difference and len(rows) == 2 else ""
        return "; ".join(parts) + (f": a difference of {apart}." if apart else ".")
    who = subjects[0] if subjects else "The company"
    when = period_words(rows[0].period) if rows else ""
    parts = [f"its {r.label} {r.display}{mark(r)}" for r in rows[1:]]
    head = (f"{possessive(who)} {rows[0].label} in {when} {was(rows[0].label)} "
            f"{rows[0].display}{mark(rows[0])}")
    tail = (", " + ", ".join(parts[:-1]) + " and " if len(parts) > 1 else " and ") + parts[-1] \
        if parts else ""
    return head + tail + "."


def _measure(result: AnalysisResult, row: PeerRow) -> str:
    """The measure a row states: the spec's, or the row's own figure's when the companies
    were each asked their own ("Acme's revenue", "Birch's operating margin")."""
    metrics = {f.request.metric or f.request.name for f in result.figures}
    k = row.figure
    if len(metrics) > 1 and k is not None and 0 <= k < len(result.figures):
        return result.figures[k].request.name
    return result.spec.name
