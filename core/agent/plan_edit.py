"""Plan review: pure functions to check and edit a plan (the UI and CLI use these).

``validate_plan`` returns every problem with a message an analyst can act on;
``parse_plan`` turns what a UI or a JSON file hands back into ``PlanStep``s and
raises ``PlanValidationError`` listing the faults. Edits never mutate their input.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from core.agent.deps import match_section
from core.agent.state import ANALYZE, FIGURE_TOOLS, PlanStep
from core.foundation.errors import PlanValidationError

TOOLS = ("filing_search", "web_search", "figure_lookup", "compute", ANALYZE)
MAX_PLAN_STEPS = 20
MAX_DEPENDS = MAX_PLAN_STEPS  # a step can depend on each other step once at most
MAX_DECIMALS = 8
PERIOD = re.compile(r"FY\d{4}(?:-(?:Q[1-4]|H1|9M))?")
"""A fiscal period as figure steps name it: 'FY2023', 'FY2024-Q1', 'FY2024-H1' (six months
to date), 'FY2024-9M'."""


def _split(value: Any) -> Any:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, list | tuple):
        return value  # not a list: the schema says what it expects
    return [str(v).strip() for v in value if str(v).strip()]


def _step_problems(n: int, raw: Any) -> tuple[PlanStep | None, list[str]]:
    if isinstance(raw, PlanStep):
        return raw, []
    if not isinstance(raw, Mapping):
        return None, [f"step {n}: expected an object with sub_question, tool, ... "
                      f"(got {type(raw).__name__})"]
    data = dict(raw)
    for key in ("keywords", "doc_ids", "periods"):
        if key in data:
            data[key] = _split(data[key])
    for key in ("section", "metric", "formula", "unit"):
        if key in data and not str(data[key] or "").strip():
            data[key] = None
    if "decimals" in data and data["decimals"] in ("", None):
        data["decimals"] = None
    if "tool" in data and data["tool"] in (None, ""):
        del data["tool"]  # not given: the schema's default (filing_search)
    if "tool" in data and data["tool"] not in TOOLS:
        return None, [f"step {n}: unknown tool {data.get('tool')!r}; use one of "
                      f"{', '.join(TOOLS)}"]
    try:
        return PlanStep.model_validate(data), []
    except ValidationError as exc:
        return None, [f"step {n}: {'.'.join(map(str, e['loc']))}: {e['msg']}"
                      for e in exc.errors()]


def parse_plan(value: Any) -> list[PlanStep]:
    """Steps from PlanSteps, dicts, ``{"steps": [...]}`` or JSON text; raises on bad shapes."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise PlanValidationError([f"the plan is not valid JSON: {exc}"]) from None
    if isinstance(value, Mapping) and "steps" in value:
        value = value["steps"]
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        raise PlanValidationError(["the plan must be a list of steps"])
    steps: list[PlanStep] = []
    problems: list[str] = []
    for n, raw in enumerate(value, start=1):
        step, errs = _step_problems(n, raw)
        problems.extend(errs)
        if step is not None:
            steps.append(step)
    if problems:
        raise PlanValidationError(problems)
    return steps


def normalise_plan(plan: list[PlanStep]) -> list[PlanStep]:
    """Trim text fields; web steps carry no section or document filter; figure fields only
    on the figure step that uses them (a look-up's metric and periods, a compute step's
    formula), periods upper-cased and in order."""
    out = []
    for step in plan:
        upd: dict[str, Any] = {"sub_question": step.sub_question.strip(),
                               "keywords": [k.strip() for k in step.keywords if k.strip()]}
        if step.tool == "web_search":
            upd.update(section=None, doc_ids=[])
        if step.tool != ANALYZE:
            upd["analysis"] = None
        if step.tool == ANALYZE:
            upd.update(section=None, metric=None, periods=[], formula=None, member=None)
        elif step.tool not in FIGURE_TOOLS:
            upd.update(metric=None, periods=[], formula=None, unit=None, decimals=None,
                       member=None)
        else:
            upd["section"] = None
            if step.tool == "figure_lookup":
                periods = {p.strip().upper(): None for p in step.periods if p.strip()}
                upd.update(formula=None, metric=(step.metric or "").strip() or None,
                           periods=sorted(periods))
            else:
                upd.update(metric=None, periods=[], formula=" ".join((step.formula or "").split()))
        out.append(step.model_copy(update=upd))
    return out


def figure_problems(n: int, step: PlanStep) -> list[str]:
    """What is wrong with a figure step's fields, each message naming the step and the fix."""
    from core.agent.roles.figure_catalog import known_metrics, unit_names

    problems: list[str] = []
    metrics = known_metrics()
    if step.tool == "figure_lookup":
        if not (step.metric or "").strip():
            problems.append(f"step {n}: a look-up needs a metric; choose one from the list, or "
                            "type the question in the sub-question (\"What was Acme's revenue "
                            "in FY2024?\") and its metric and periods are read from it")
        elif step.metric.strip() not in metrics:
            near = _near(step.metric, metrics)
            problems.append(f"step {n}: unknown metric {step.metric!r}; use a catalogue key "
                            f"such as {', '.join(near)} ("
                            + ", ".join(str(metrics[k]) for k in near if k in metrics) + ")")
        bad = [p for p in step.periods if not PERIOD.fullmatch(p.strip().upper())]
        if not step.periods:
            problems.append(f"step {n}: a look-up needs at least one period, e.g. FY2023 or "
                            "FY2024-Q1")
        elif bad:
            problems.append(f"step {n}: period(s) {', '.join(map(repr, bad))} not understood; "
                            "write fiscal periods as FY2023 or FY2024-Q1")
    if step.tool == "compute":
        problems += formula_problems(n, step.formula or "", metrics)
    if step.unit and step.unit not in unit_names():
        problems.append(f"step {n}: unknown unit {step.unit!r}; use one of "
                        f"{', '.join(unit_names())} (or leave it empty)")
    if step.decimals is not None and not 0 <= step.decimals <= MAX_DECIMALS:
        problems.append(f"step {n}: decimals must be between 0 and {MAX_DECIMALS} "
                        f"(got {step.decimals})")
    return problems


def analysis_problems(n: int, step: PlanStep, steps: Sequence[PlanStep]) -> list[str]:
    """What is wrong with an analyze step: it needs its settings and the figure steps whose
    results it combines (as many as the comparison needs)."""
    spec = step.analysis
    if spec is None:
        return [f"step {n}: an analyze step needs its analysis (kind: compare, rank, verdict, "
                "multi; the measure's name); or change its tool"]
    figures = [d for d in step.depends_on if 0 <= d < len(steps) and steps[d].is_figure]
    problems = []
    if len(figures) != len(step.depends_on) or not figures:
        problems.append(f"step {n}: an analyze step combines the figures of earlier figure "
                        "steps (figure_lookup or compute): set depends_on to them")
    need = 2 if spec.kind in ("compare", "rank") or spec.test in ("less", "more", "equal",
                                                                  "improving", "worsening") \
        else 1
    if figures and len(figures) < need:
        problems.append(f"step {n}: a {spec.kind}{f' ({spec.test})' if spec.test else ''} "
                        f"needs at least {need} figure steps in depends_on")
    if spec.kind == "verdict" and spec.test is None:
        problems.append(f"step {n}: a verdict needs its test (positive, negative, grew, "
                        "declined, less, more, above, below, improving, worsening)")
    if spec.test in ("above", "below", "stable") and spec.threshold is None:
        problems.append(f"step {n}: a verdict '{spec.test}' needs its threshold, in the "
                        "figure's unit (20 for 20%" + (", 2 for 'within 2 points'"
                                                       if spec.test == "stable" else "") + ")")
    if spec.threshold is not None and not math.isfinite(spec.threshold):
        problems.append(f"step {n}: the threshold {spec.threshold} is not a number; write it "
                        "in the figure's unit (20 for 20%)")
    if not math.isfinite(spec.factor) or spec.factor <= 0:
        problems.append(f"step {n}: the factor {spec.factor} must be a positive number (2 for "
                        "'more than twice'; 1 when no multiple is asked)")
    if spec.kind == "pick":
        problems += _pick_problems(n, spec, [steps[d] for d in figures])
    analyzed = [d + 1 for d in step.depends_on if 0 <= d < len(steps) and steps[d].tool == ANALYZE]
    if analyzed:
        problems.append(f"step {n}: an analyze step combines figure steps, not another "
                        f"analysis (step {', '.join(map(str, analyzed))}); depend on the "
                        "figure steps themselves")
    return problems


PICK_TOTALS = {"asset": "total_assets", "liability": "total_liabilities"}
"""A pick's side -> the balance-sheet total it reads the lines beside."""


def _pick_problems(n: int, spec: Any, figures: Sequence[PlanStep]) -> list[str]:
    """A pick names the largest (smallest) line of one side of a balance sheet, read beside
    that side's total: it depends on one look-up of the total (over an operating margin it
    named operating income "91% of total liabilities")."""
    side = "asset" if "asset" in (spec.name or "").lower() else "liability"
    total = PICK_TOTALS[side]
    if len(figures) == 1 and figures[0].tool == "figure_lookup" and figures[0].metric == total:
        return []
    looked = ", ".join(sorted({f.metric or f.tool for f in figures})) or "nothing"
    return [f"step {n}: a pick names the largest or smallest {side} line of a balance sheet, "
            f"read beside {total}: it depends on one figure_lookup of {total} (it depends on "
            f"{looked}); for a measure's largest company, use kind 'rank'"]


def formula_problems(n: int, formula: str, metrics: Mapping[str, Any]) -> list[str]:
    """A compute step's formula checked: it parses, and names known metrics and periods."""
    from core.agent.roles.figure_catalog import formula_refs

    if not formula.strip():
        return [f"step {n}: a compute step needs a formula, e.g. "
                "revenue[FY2023] / revenue[FY2022] - 1"]
    from core.figures.formula import FormulaError

    try:
        refs = formula_refs(formula)
    except FormulaError as exc:
        return [f"step {n}: the formula {formula!r} is not valid: {exc}"]
    out = [f"step {n}: the formula names unknown metric {m!r}; use a catalogue key such as "
           f"{', '.join(_near(m, metrics))}" for m in dict.fromkeys(m for m, _ in refs)
           if m not in metrics]
    out += [f"step {n}: the formula's period {p!r} is not a fiscal period; write FY2023 or "
            "FY2024-Q1" for p in dict.fromkeys(p for _, p in refs) if not PERIOD.fullmatch(p)]
    if not refs:
        out.append(f"step {n}: the formula {formula!r} uses no reported figure; name at least "
                   "one, e.g. revenue[FY2023]")
    return out


def _index(value: int) -> str:
    """A step index as written, a very long one by its size (never cut into another number)."""
    text = str(value)
    digits = len(text.lstrip("-"))
    return text if digits <= 15 else f"{text[:4]}... (a {digits}-digit number)"


def _near(name: str, metrics: Mapping[str, Any], k: int = 5) -> list[str]:
    """Catalogue keys closest to ``name`` (difflib), else the first few."""
    import difflib

    keys = sorted(metrics)
    return difflib.get_close_matches(name.strip(), keys, n=k, cutoff=0.5) or keys[:k]


def validate_plan(plan: Sequence[Any], corpus_sections: Mapping[str, Sequence[str]], *,
                  web_available: bool = True) -> list[str]:
    """Every problem of ``plan`` against the corpus (doc_id -> section titles); [] if fine."""
    try:
        steps = parse_plan(list(plan))
    except PlanValidationError as exc:
        return list(exc.problems)
    if not steps:
        return ["the plan has no steps: add at least one"]
    problems: list[str] = []
    if len(steps) > MAX_PLAN_STEPS:
        problems.append(f"the plan has {len(steps)} steps; at most {MAX_PLAN_STEPS} are allowed")
    known = set(corpus_sections)
    for n, step in enumerate(steps, start=1):
        repeated = sorted({d for d in step.depends_on if step.depends_on.count(d) > 1}) \
            if len(step.depends_on) <= MAX_DEPENDS else []
        if len(step.depends_on) > MAX_DEPENDS:
            problems.append(f"step {n}: depends_on lists {len(step.depends_on)} steps; a plan "
                            f"has at most {MAX_PLAN_STEPS}, each named once")
            continue
        if repeated:
            problems.append(f"step {n}: depends_on names step(s) {', '.join(map(_index, repeated))}"
                            " more than once; name each earlier step once")
        later = [d for d in step.depends_on if not 0 <= d < n - 1]
        if later:  # -1, itself, a later step (a cycle), 10**30: no step could ever start
            earlier = f"0 to {n - 2}" if n > 1 else "none: the first step depends on nothing"
            problems.append(f"step {n}: depends_on {', '.join(map(_index, later))} is "
                            f"not an earlier step (0-based indices of the steps above it: "
                            f"{earlier})")
        if not step.sub_question.strip():
            problems.append(f"step {n}: the sub-question is empty; write what this step "
                            "should find or delete the step")
        if step.tool == "web_search":
            if not web_available:
                problems.append(f"step {n}: web search is not available in this setup "
                                "(no Tavily key, no snapshot); use filing_search")
            continue
        if step.tool in FIGURE_TOOLS:
            problems += figure_problems(n, step)
        if step.tool == ANALYZE:
            problems += analysis_problems(n, step, steps)
            continue
        if not known:
            problems.append(f"step {n}: the corpus has no filings; ingest one or use web_search")
            continue
        unknown = [d for d in step.doc_ids if d not in known]
        if unknown:
            problems.append(f"step {n}: unknown document id(s) {', '.join(unknown)}; "
                            f"known: {', '.join(sorted(known))}")
        if step.section and step.tool == "filing_search":
            scope = [d for d in step.doc_ids if d in known] or list(known)
            titles = list(dict.fromkeys(t for d in scope for t in corpus_sections[d]))
            if match_section(step.section, titles) is None:
                shown = "; ".join(titles[:25]) + (" ..." if len(titles) > 25 else "")
                problems.append(f"step {n}: section {step.section!r} is not in the selected "
                                f"filings; choose one of: {shown or 'none'} (or leave it empty)")
    return problems


def check_plan(plan: Any, corpus_sections: Mapping[str, Sequence[str]], *,
               web_available: bool = True) -> list[PlanStep]:
    """Parsed, normalised steps (sections as exact corpus titles); raises
    ``PlanValidationError`` listing every problem."""
    steps = parse_plan(plan)
    problems = validate_plan(steps, corpus_sections, web_available=web_available)
    if problems:
        raise PlanValidationError(problems)
    out = []
    for step in normalise_plan(steps):
        if step.section:  # "Item 7" -> the corpus's exact title
            scope = step.doc_ids or list(corpus_sections)
            titles = [t for d in scope for t in corpus_sections.get(d, [])]
            step = step.model_copy(update={"section": match_section(step.section, titles)})
        out.append(step)
    return out

