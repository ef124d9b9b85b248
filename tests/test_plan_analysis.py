"""Plan review keeps and edits an analysis plan: the analyze step's settings (its
``AnalysisSpec``) and a look-up's segment survive the drafts, approving unchanged is
approving the proposal, and the editor changes what wins or what a yes / no tests.

The plan is the one the offline planner proposes for "Which had the higher operating
margin in its latest fiscal year, NVIDIA or AMD?" on the two iXBRL 10-Ks (two compute
steps, one analyze step that depends on them), written out."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from components.run_view import figure_fields
from core.agent.plan_edit import normalise_plan
from core.agent.state import PlanStep
from core.analysis.model import AnalysisSpec
from core.app.plan_draft import drafts_from_plan, plan_problems, to_plan

NVDA, AMD = "6f56e2bf21f6c016", "247b08e661e15f3c"


def comparison_plan() -> list[PlanStep]:
    def margin(company: str, doc: str, period: str) -> PlanStep:
        return PlanStep(sub_question=f"What was {company}'s operating margin in {period}?",
                        tool="compute", doc_ids=[doc], keywords=["operating margin"],
                        formula=f"operating_income[{period}] / revenue[{period}]",
                        unit="percent", decimals=1, justification="An input of the analysis.")

    return [margin("NVIDIA", NVDA, "FY2023"), margin("AMD", AMD, "FY2025"),
            PlanStep(sub_question="Which had the higher operating margin, NVIDIA or AMD?",
                     tool="analyze", doc_ids=[NVDA, AMD], keywords=["operating margin"],
                     depends_on=[0, 1], justification="compare: from the figure steps above.",
                     analysis=AnalysisSpec(kind="compare", name="operating margin",
                                           labels=["NVIDIA", "AMD"])),
            PlanStep(sub_question="What was NVIDIA's Data Center revenue in FY2023?",
                     tool="figure_lookup", doc_ids=[NVDA], metric="revenue",
                     periods=["FY2023"], member="Data Center")]


def test_the_drafts_keep_the_analysis_and_the_segment():
    plan = comparison_plan()
    drafts = drafts_from_plan(plan)
    assert not any(d.edited for d in drafts)
    again = to_plan(drafts)
    assert again[2].analysis == plan[2].analysis and again[2].depends_on == [0, 1]
    assert again[3].member == "Data Center"
    # approving the drafts unchanged approves the proposal (the run records no edit)
    assert [s.model_dump() for s in normalise_plan(again)] == \
        [s.model_dump() for s in normalise_plan(plan)]
    assert figure_fields(plan[2]) == "compare · operating margin · higher"
    assert figure_fields(plan[3]) == "revenue · FY2023 · Data Center"


def _form_app():
    import streamlit as st

    from components.plan_form import PlanForm
    from core.app.plan_draft import drafts_from_plan, plan_problems
    from core.foundation.types import DocumentMeta
    from tests.test_plan_analysis import AMD, NVDA, comparison_plan

    ss = st.session_state
    if "drafts" not in ss:
        ss["drafts"] = drafts_from_plan(comparison_plan())
    docs = [DocumentMeta(doc_id=NVDA, file_name="nvda-10k-fy2023.html", company="NVIDIA CORP",
                         form_type="10-K", period="FY2023"),
            DocumentMeta(doc_id=AMD, file_name="amd-10k-fy2025.htm",
                         company="ADVANCED MICRO DEVICES, INC.", form_type="10-K",
                         period="FY2025")]
    sections = {NVDA: ["Item 8"], AMD: ["Item 8"]}
    PlanForm(ss["drafts"], key="pf", documents=docs, sections=sections,
             save=lambda drafts: None, dependencies=True).render(
        plan_problems(ss["drafts"], sections))


def _widget(at, kind: str, label: str):
    return next(w for w in getattr(at, kind) if w.label == label)


def test_the_editor_shows_and_edits_the_analyze_step():
    at = AppTest.from_function(_form_app, default_timeout=120).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]  # the proposal is a valid plan
    tools = [w.value for w in at.selectbox if w.label == "Tool"]
    assert tools == ["compute", "compute", "analyze", "figure_lookup"]
    assert _widget(at, "selectbox", "Analysis").value == "compare"
    assert _widget(at, "text_input", "Measure").value == "operating margin"
    assert _widget(at, "text_input", "Segment").value == "Data Center"
    _widget(at, "selectbox", "Winner").set_value("lower").run()
    step = at.session_state["drafts"][2]
    assert step.analysis.direction == "lower" and step.edited
    assert step.analysis.labels == ["NVIDIA", "AMD"]  # the rest of the settings kept

    _widget(at, "selectbox", "Analysis").set_value("verdict").run()
    _widget(at, "selectbox", "Tests").set_value("above").run()
    _widget(at, "number_input", "Threshold").set_value(12.5).run()
    assert not at.exception, at.exception
    spec = to_plan(at.session_state["drafts"])[2].analysis
    assert (spec.kind, spec.test, spec.threshold) == ("verdict", "above", 12.5)
    _widget(at, "text_input", "Segment").set_value("  ").run()
    assert to_plan(at.session_state["drafts"])[3].member is None  # back to the total
    assert plan_problems(at.session_state["drafts"], {NVDA: ["Item 8"], AMD: ["Item 8"]}) \
        == {}
