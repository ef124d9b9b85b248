"""An analyze step's settings in the plan editor: the kind of answer (compare, rank, yes /
no, ...), the measure, which figure wins or what a yes / no tests, and its threshold: the
``AnalysisSpec`` the step carries (``core.analysis.model``), edited in place."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, get_args

from core.analysis.declared import KINDS
from core.analysis.model import AnalysisSpec, Test
from core.app.plan_draft import StepDraft

KIND_LABELS = {k: d.label for k, d in KINDS.items()}
TESTS = [None, *get_args(Test)]


def analysis_with(spec: AnalysisSpec | None, field: str, value) -> AnalysisSpec:
    """``spec`` (a new comparison when None) with one setting changed by the analyst."""
    base = spec or AnalysisSpec(kind="compare", name="")
    if field == "name":
        value = " ".join((value or "").split())
    return base.model_validate({**base.model_dump(), field: value})


def render_analysis_fields(d: StepDraft, left: Any, right: Any, *,
                           init: Callable[[str, str, Any], str],
                           on_change: Callable[[str, str], None]) -> None:
    """An analyze step's settings: what kind of answer, the measure, its direction or
    what a yes / no tests (and the threshold)."""
    uid, cb = d.uid, on_change
    spec = d.analysis or AnalysisSpec(kind="compare", name="")
    k_col, n_col = left.columns([3, 2])
    k_col.selectbox("Analysis", list(KIND_LABELS), key=init(uid, "an_kind", spec.kind),
                    format_func=KIND_LABELS.get, on_change=cb, args=(uid, "an_kind"),
                    help="How the figures of the steps it depends on combine.")
    n_col.text_input("Measure", key=init(uid, "an_name", spec.name), on_change=cb,
                     args=(uid, "an_name"), placeholder="operating margin",
                     help="The measure as the answer names it.")
    if spec.kind in ("verdict", "criterion"):
        t_col, v_col = right.columns([3, 2])
        t_col.selectbox("Tests", TESTS, key=init(uid, "an_test", spec.test),
                        format_func=lambda t: "(choose)" if t is None else t,
                        on_change=cb, args=(uid, "an_test"),
                        help="What decides the yes / no: the sign, a change, a relation "
                             "between two figures or a threshold.")
        v_col.number_input("Threshold", key=init(uid, "an_threshold", spec.threshold),
            on_change=cb, args=(uid, "an_threshold"),
            help="For 'above' / 'below', in the figure's unit (20 for 20%).")
    else:
        right.selectbox("Winner", ["higher", "lower"], key=init(
            uid, "an_direction", spec.direction), on_change=cb, args=(uid, "an_direction"),
            format_func=lambda v: f"the {v} figure first",
            help="Which figure wins the comparison (and leads the ranking).")
