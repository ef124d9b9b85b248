"""Numeric correctness: is the figure the answer states the reference's figure? (by rule)

Two metrics, both by rule (no LLM, no embedder), 1.0 or 0.0 per answer:

- ``numeric_correctness``: the answer's FIRST stated figure is the reference's figure;
- ``numeric_anywhere``: the reference's figure is stated anywhere in the answer.

The figures of both texts are read by ``core.evaluation.stated_figures`` (citation
markers, years, fiscal labels, dates, page and note references and list numbering
skipped). The reference's figure is the first it states. Two figures agree when their
magnitudes differ by at most 1% of the reference or half a unit of the reference's
last printed decimal ("0.66" -> 0.005, "$1234.00" -> 0.005), whichever is larger, with:

- scale: when both sides know their scale (a word such as "million", "$1.6B", a line's
  "in millions" caption; for the reference also the unit the question asks, "in USD
  billions"), the amounts are compared in base units ("$8,700 million" = "$8.70" asked
  in billions); when a side does not say, a factor of a thousand (or a million, a
  billion) is allowed between amounts ("1,234" = "$1,234 million" = "$1.234 billion");
  a plain reference number (a ratio, days) is compared as printed, never with an amount
  in a currency;
- sign: ignored (capex printed negative on the cash-flow statement, asked positive;
  the detail ``sign_agrees`` tells);
- percentages: a percentage agrees with a percentage, or with the fraction it means
  ("55.1%" = "0.551"); never with an amount.

Not applicable (None) when the reference states no figure or there is no reference.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.evaluation.judge import EvalSample
from core.evaluation.offline import clean_answer
from core.evaluation.results import MetricScore
from core.evaluation.stated_figures import StatedFigure, asked_scale, stated_figures

KEY = "numeric_correctness"
ANYWHERE_KEY = "numeric_anywhere"
NAME = ("numeric correctness (rule: the answer's first figure is the reference's, within 1% "
        "or its rounding; scale and sign tolerated)")
ANYWHERE_NAME = ("numeric anywhere (rule: the reference's figure is stated somewhere in the "
                 "answer, same tolerance)")
RELATIVE = 0.01
"""Relative tolerance: 1% of the reference."""
FACTORS = (-9, -6, -3, 0, 3, 6, 9)
"""Powers of ten allowed between two amounts when one side does not state its scale."""
SHOWN = 12


def _tolerance(ref: StatedFigure, magnitude: float) -> float:
    return max(RELATIVE * magnitude, 0.5 * 10 ** -ref.decimals)


def _close(a: float, r: float, tol: float) -> bool:
    return abs(a - r) <= tol * (1 + 1e-9)


def _amount(f: StatedFigure) -> bool:
    return f.currency or f.scale is not None


def same_figure(fig: StatedFigure, ref: StatedFigure, asked: int | None = None) -> bool:
    """Whether ``fig`` (from an answer) states ``ref`` (a reference figure); ``asked`` is the
    scale the question asks its answer in (see the module docstring)."""
    a, r = abs(fig.value), abs(ref.value)
    tol = _tolerance(ref, r)
    if fig.percent or ref.percent:
        if fig.percent and ref.percent:
            return _close(a, r, tol)
        if _amount(ref if fig.percent else fig):
            return False
        return _close(a / 100, r, tol) if fig.percent else _close(a * 100, r, tol)
    ref_scale = ref.scale if ref.scale is not None else asked
    if fig.scale is not None and ref_scale is not None:
        unit = 10.0 ** ref_scale
        return _close(a * 10.0 ** fig.scale, r * unit, tol * unit)
    if not (_amount(ref) or ref_scale is not None):
        return not fig.currency and _close(a, r, tol)  # a plain number: ratio, days, count
    return any(_close(a * 10.0 ** k, r, tol) for k in FACTORS)


@dataclass
class NumericVerdict:
    """What the rule found: the reference figure, the answer's figures, the verdicts."""

    reference: StatedFigure | None
    figures: list[StatedFigure] = field(default_factory=list)
    asked: int | None = None
    first: bool | None = None
    anywhere: bool | None = None
    matched: StatedFigure | None = None
    note: str | None = None

    def details(self) -> dict:
        ref, first = self.reference, self.figures[0] if self.figures else None
        return {
            "reference": ref.text if ref else None,
            "reference_value": ref.value if ref else None,
            "asked_scale": self.asked,
            "first_figure": first.text if first else None,
            "matched": self.matched.text if self.matched else None,
            "sign_agrees": (self.matched.value * ref.value >= 0)
            if self.matched and ref else None,
            "figures": [f.text for f in self.figures[:SHOWN]],
        }


def judge_figures(answer: str, reference: str | None, question: str = "") -> NumericVerdict:
    """The answer's figures against the reference's (see the module docstring)."""
    refs = stated_figures(reference or "")
    if not (reference or "").strip():
        return NumericVerdict(None, note="no reference answer")
    if not refs:
        return NumericVerdict(None, note="not applicable: the reference states no figure")
    ref, asked = refs[0], asked_scale(question)
    figures = stated_figures(clean_answer(answer))
    if not figures:
        return NumericVerdict(ref, figures, asked, False, False,
                              note="the answer states no figure")
    matched = next((f for f in figures if same_figure(f, ref, asked)), None)
    return NumericVerdict(ref, figures, asked, same_figure(figures[0], ref, asked),
                          matched is not None, matched)


def numeric_scores(sample: EvalSample) -> list[MetricScore]:
    """``numeric_correctness`` and ``numeric_anywhere`` of one answer."""
    v = judge_figures(sample.answer, sample.ground_truth, sample.question)
    details = v.details()

    def score(key: str, name: str, ok: bool | None) -> MetricScore:
        return MetricScore(key=key, name=name, judge="rule",
                           value=None if ok is None else float(ok), details=details,
                           note=v.note)

    return [score(KEY, NAME, v.first), score(ANYWHERE_KEY, ANYWHERE_NAME, v.anywhere)]
