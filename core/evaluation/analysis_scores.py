"""Analysis metrics: is the verdict right, are the figures right? (by rule, no LLM)

For questions that compare, rank or ask yes / no, read as an analyst reads the answer: its
lines without the engine's banner and note, citation markers, and lines that restate the
question (80% of their words are the question's, and they hold most of its words: a short
verdict line in the question's own words is kept).

- ``verdict_correct`` (1.0 / 0.0): a **yes/no** reference ("yes", "no") is the first "yes"
  or "no" of the first line; a **name** (compare: which is higher; pick: the largest) is
  named in the first line, before any other subject the question is about (the reference
  figures' subjects, the run's peer rows); an **order** (rank: names, first first) is named
  in the first three lines, in that order. Names match without case or punctuation
  ("Coca-Cola" = "Coca Cola"). Not applicable without a reference verdict.
- ``figures_correct`` (0..1): the share of the reference figures (per company, measure or
  segment) the answer states anywhere, each within 1% or its rounding (half a unit of its
  last decimal, at least 0.05), a factor of a thousand allowed between amounts whose scale
  one side does not say ("10,631" = "$10.6 billion"), sign ignored. Not applicable without
  reference figures.

The details say what was read, and the run's own structured verdict (``Answer.analyses``)
beside it when there is one. References come from a question's ``verdict`` and ``figures``
fields, else from its tags and reference answer (``gold_verdict``, ``gold_figures``): a
``compare`` / ``pick`` / ``rank`` / ``yesno`` tag makes the reference answer the verdict
(a JSON list for a ranking), a reference answer that is a JSON list of numbers gives the
figures (``pair``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from core.evaluation.judge import EvalSample
from core.evaluation.offline import clean_answer
from core.evaluation.results import MetricScore
from core.evaluation.stated_figures import stated_figures

VERDICT_KEY, FIGURES_KEY = "verdict_correct", "figures_correct"
VERDICT_NAME = ("verdict right (rule: yes/no first, the winner named first, the ranking in "
                "order, in the answer's opening lines)")
FIGURES_NAME = ("figures right (rule: share of the reference figures stated, within 1% or "
                "their rounding)")
VERDICT_TAGS = ("compare", "pick", "rank", "yesno")
RANK_LINES = 3
_WORD = re.compile(r"[a-z0-9]+")


def _load(text: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


def gold_verdict(q: Any) -> str | list[str] | None:
    """A question's reference verdict (see the module docstring), or None."""
    if getattr(q, "verdict", None):
        return q.verdict
    tags, truth = set(getattr(q, "tags", []) or []), (q.ground_truth or "").strip()
    if not truth or not tags & set(VERDICT_TAGS):
        return None
    if "rank" in tags:
        names = _load(truth)
        return [str(n) for n in names] if isinstance(names, list) else None
    if "yesno" in tags:
        word = truth.split()[0].strip(".,!").lower()
        return word if word in ("yes", "no") else None
    return truth


def gold_figures(q: Any) -> dict[str, float]:
    """A question's reference figures by subject (see the module docstring)."""
    if getattr(q, "figures", None):
        return dict(q.figures)
    values = _load((q.ground_truth or "").strip())
    if isinstance(values, list) and values and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return {f"figure {i}": float(v) for i, v in enumerate(values, start=1)}
    return {}


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("&", " and "))


def body_lines(answer: str, question: str) -> list[str]:
    """The answer's lines as a reader takes them (banner, note, markers, echoes dropped)."""
    asked = set(_words(question))
    out = []
    for line in clean_answer(answer).splitlines():
        words = _words(line)
        echo = asked and sum(w in asked for w in words) >= 0.8 * len(words) \
            and len(asked & set(words)) >= 0.6 * len(asked)
        if not words or echo:
            continue
        out.append(line.strip())
    return out


def position(text: str, name: str) -> int:
    """Where ``name`` is first named in ``text`` (words compared, case and punctuation
    ignored), or -1."""
    hay, needle = " ".join(_words(text)), " ".join(_words(name))
    if not needle:
        return -1
    m = re.search(r"(?<![a-z0-9])" + re.escape(needle) + r"(?![a-z0-9])", hay)
    return m.start() if m else -1


def _subjects(sample: EvalSample) -> list[str]:
    names = list(sample.gold_figures)
    for a in sample.analyses:
        names += [r.label for r in a.rows] + list(a.spec.labels)
    return [n for n in dict.fromkeys(names) if n and not n.startswith("figure ")]


def _structured(sample: EvalSample) -> str | None:
    return next((a.verdict for a in sample.analyses if a.verdict), None)


def judge_verdict(sample: EvalSample) -> tuple[bool | None, dict[str, Any]]:
    """``(right, details)`` of the answer's verdict against ``sample.verdict``."""
    gold = sample.verdict
    lines = body_lines(sample.answer, sample.question)
    details: dict[str, Any] = {"reference": gold, "first_line": lines[0] if lines else None,
                               "run_verdict": _structured(sample)}
    if gold is None:
        return None, details
    if not lines:
        return False, {**details, "read": "the answer states nothing"}
    if isinstance(gold, list):
        text = " ".join(lines[:RANK_LINES])
        where = [position(text, n) for n in gold]
        details["read"] = {n: p for n, p in zip(gold, where, strict=True)}
        return all(p >= 0 for p in where) and where == sorted(where), details
    if gold.lower() in ("yes", "no"):
        m = re.search(r"\b(yes|no)\b", lines[0], re.IGNORECASE)
        details["read"] = m.group(1) if m else None
        return bool(m) and m.group(1).lower() == gold.lower(), details
    at = position(lines[0], gold)
    others = {n: position(lines[0], n) for n in _subjects(sample)
              if position(n, gold) < 0 and position(gold, n) < 0}
    details["read"] = {gold: at, **others}
    return at >= 0 and all(p < 0 or at < p for p in others.values()), details


def _decimals(value: float) -> int:
    text = repr(float(value))
    return 0 if text.endswith(".0") else len(text.split(".")[1])


def states(figures: list, gold: float) -> str | None:
    """The first of the answer's figures that states ``gold`` (see the module docstring)."""
    tol = max(abs(gold) * 0.01, 0.5 * 10 ** -_decimals(gold), 0.05)
    for f in figures:
        scales = (1.0,) if f.percent else (1.0, 1e3, 1e-3, 1e6, 1e-6)
        if any(abs(abs(f.value) * s - abs(gold)) <= tol for s in scales):
            return f.text
    return None


def judge_figures(sample: EvalSample) -> tuple[float | None, dict[str, Any]]:
    """``(share stated, details)`` of ``sample.gold_figures`` in the answer."""
    if not sample.gold_figures:
        return None, {}
    figures = stated_figures(clean_answer(sample.answer))
    found = {label: states(figures, value) for label, value in sample.gold_figures.items()}
    rows = {r.label: r.display for a in sample.analyses for r in a.rows}
    details = {"reference": sample.gold_figures, "stated": found,
               **({"run_rows": rows} if rows else {})}
    return sum(v is not None for v in found.values()) / len(found), details


def analysis_scores(sample: EvalSample) -> list[MetricScore]:
    """``verdict_correct`` and ``figures_correct`` of one answer."""
    right, vd = judge_verdict(sample)
    share, fd = judge_figures(sample)
    return [MetricScore(key=VERDICT_KEY, name=VERDICT_NAME, judge="rule",
                        value=None if right is None else float(right), details=vd,
                        note=None if right is not None else "no reference verdict"),
            MetricScore(key=FIGURES_KEY, name=FIGURES_NAME, judge="rule", value=share,
                        details=fd,
                        note=None if share is not None else "no reference figures")]
