"""The plan review table: PlanStep list <-> editable DataFrame, and its st.data_editor.

AppTest cannot edit data_editor cells, so the conversion and checks are plain
functions (``plan_to_frame``, ``frame_to_plan``) tested directly. Rows are
reordered by editing the ``order`` column; rows are added and deleted with the
editor's own controls.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd
import streamlit as st

from core.agent.plan_edit import normalise_plan, rows_to_plan, validate_plan
from core.agent.state import PlanStep
from core.errors import PlanValidationError

TOOLS = ["filing_search", "web_search"]
ANY_SECTION = "(any section)"
COLUMNS = ["order", "sub_question", "tool", "section", "keywords", "justification", "documents"]


def plan_to_frame(plan: Sequence[PlanStep]) -> pd.DataFrame:
    """The editable table of a plan (one row per step, ``order`` 1..n)."""
    rows = [
        {
            "order": i + 1,
            "sub_question": s.sub_question,
            "tool": s.tool,
            "section": s.section or ANY_SECTION,
            "keywords": ", ".join(s.keywords),
            "justification": s.justification,
            "documents": ", ".join(s.doc_ids),
        }
        for i, s in enumerate(plan)
    ]
    return pd.DataFrame(rows, columns=COLUMNS)


def _cell(value) -> str:
    if value is None or value is pd.NA or value is pd.NaT:
        return ""
    if isinstance(value, float) and math.isnan(value):
        return ""
    return str(value).strip()


def _order(value, fallback: int) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return float(fallback)
    return float(fallback) if math.isnan(number) else number


def frame_rows(frame: pd.DataFrame | None) -> list[dict[str, str]]:
    """The table's rows sorted by ``order`` (ties keep table order), as plan_edit rows."""
    records = frame.to_dict("records") if frame is not None else []
    indexed = sorted(
        enumerate(records), key=lambda ir: (_order(ir[1].get("order"), ir[0] + 1), ir[0])
    )
    rows = []
    for _, r in indexed:
        section = _cell(r.get("section"))
        rows.append({
            "sub_question": _cell(r.get("sub_question")),
            "tool": _cell(r.get("tool")) or "filing_search",
            "section": "" if section == ANY_SECTION else section,
            "keywords": _cell(r.get("keywords")),
            "doc_ids": _cell(r.get("documents")),
            "justification": _cell(r.get("justification")),
        })
    return rows


def frame_to_plan(
    frame: pd.DataFrame | None,
    corpus_sections: Mapping[str, Sequence[str]],
    *,
    web_available: bool = True,
    max_steps: int | None = None,
) -> tuple[list[PlanStep], list[str]]:
    """The edited table as PlanSteps (in ``order``) plus every problem, explained.

    Blank rows are ignored. Checks are core's (``core.agent.plan_edit``): empty
    sub-question, unknown tool, section or document, web search unavailable; plus
    the run's step limit. A plan with problems must not be approved.
    """
    try:
        steps = rows_to_plan(frame_rows(frame))
    except PlanValidationError as exc:
        return [], [_sentence(p) for p in exc.problems]
    problems = validate_plan(steps, corpus_sections, web_available=web_available)
    if max_steps and len(steps) > max_steps:
        problems.append(f"the plan has {len(steps)} steps but a run may research at most "
                        f"{max_steps} (Settings → Max steps): delete some rows")
    return normalise_plan(steps), [_sentence(p) for p in problems]


def _sentence(problem: str) -> str:
    return problem[:1].upper() + problem[1:] + ("" if problem.endswith(".") else ".")


def render_plan_editor(
    frame: pd.DataFrame, *, sections: Sequence[str], key: str, disabled: bool = False
) -> pd.DataFrame:
    """The editable plan table; returns the edited frame."""
    return st.data_editor(
        frame,
        key=key,
        num_rows="dynamic",
        hide_index=True,
        width="stretch",
        disabled=disabled,
        column_order=COLUMNS,
        column_config={
            "order": st.column_config.NumberColumn(
                "#", help="Step order: change the numbers to reorder steps.", min_value=0,
                step=1, width="small"),
            "sub_question": st.column_config.TextColumn(
                "Sub-question", help="The narrow question this step answers.", required=True,
                width="large"),
            "tool": st.column_config.SelectboxColumn(
                "Tool", options=TOOLS, required=True, default="filing_search",
                help="filing_search: the ingested filings; web_search: news after the filing."),
            "section": st.column_config.SelectboxColumn(
                "Section", options=[ANY_SECTION, *sections], default=ANY_SECTION,
                help="Filing section to search (the corpus's real sections).", width="medium"),
            "keywords": st.column_config.TextColumn(
                "Keywords", help="Comma-separated key terms for keyword search."),
            "justification": st.column_config.TextColumn(
                "Why", help="Why this step is needed.", width="medium"),
            "documents": st.column_config.TextColumn(
                "Docs", help="Document ids this step is limited to (empty: whole scope).",
                disabled=True, width="small"),
        },
    )
