"""Plan review: pure functions to check and edit a plan (the UI and CLI use these).

``validate_plan`` returns every problem with a message an analyst can act on;
``parse_plan`` turns what a UI or a JSON file hands back into ``PlanStep``s and
raises ``PlanValidationError`` listing the faults. Edits never mutate their input.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from core.agent.deps import match_section
from core.agent.state import PlanStep
from core.errors import PlanValidationError

TOOLS = ("filing_search", "web_search")
MAX_PLAN_STEPS = 20


def _split(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v).strip() for v in value if str(v).strip()]


def _step_problems(n: int, raw: Any) -> tuple[PlanStep | None, list[str]]:
    if isinstance(raw, PlanStep):
        return raw, []
    if not isinstance(raw, Mapping):
        return None, [f"step {n}: expected an object with sub_question, tool, ... "
                      f"(got {type(raw).__name__})"]
    data = dict(raw)
    for key in ("keywords", "doc_ids"):
        if key in data:
            data[key] = _split(data[key])
    if "section" in data and not (data["section"] or "").strip():
        data["section"] = None
    if data.get("tool") not in TOOLS:
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
    """Trim text fields; web steps carry no section or document filter."""
    out = []
    for step in plan:
        upd: dict[str, Any] = {"sub_question": step.sub_question.strip(),
                               "keywords": [k.strip() for k in step.keywords if k.strip()]}
        if step.tool == "web_search":
            upd.update(section=None, doc_ids=[])
        out.append(step.model_copy(update=upd))
    return out


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
        if not step.sub_question.strip():
            problems.append(f"step {n}: the sub-question is empty; write what this step "
                            "should find or delete the step")
        if step.tool == "web_search":
            if not web_available:
                problems.append(f"step {n}: web search is not available in this setup "
                                "(no Tavily key, no snapshot); use filing_search")
            continue
        if not known:
            problems.append(f"step {n}: the corpus has no filings; ingest one or use web_search")
            continue
        unknown = [d for d in step.doc_ids if d not in known]
        if unknown:
            problems.append(f"step {n}: unknown document id(s) {', '.join(unknown)}; "
                            f"known: {', '.join(sorted(known))}")
        if step.section:
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

