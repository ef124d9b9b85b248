"""Figure steps on screen: their step cards (facts looked up, arithmetic) from the events,
live or replayed, and their fields in the plan editor (edited, checked)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from components.run_view import figure_fields, plan_frame
from core.agent import events as ev
from core.agent.state import PlanStep
from core.app.plan_draft import drafts_from_plan, plan_problems, to_plan
from tests.test_components_figures import INCOME, fact, revenue_change

QUESTION = "What was NVIDIA's total revenue in fiscal 2023 and how did it change from fiscal 2022?"


def figure_plan() -> list[PlanStep]:
    return [PlanStep(sub_question="NVIDIA revenue FY2022 and FY2023", tool="figure_lookup",
                     doc_ids=["nvda"], metric="revenue", periods=["FY2022", "FY2023"],
                     unit="USD millions"),
            PlanStep(sub_question="Change in revenue from FY2022 to FY2023", tool="compute",
                     formula="(revenue[FY2023] - revenue[FY2022]) / revenue[FY2022] * 100",
                     unit="percent", decimals=1, depends_on=[0])]


def figure_events() -> list[ev.EventBase]:
    plan = figure_plan()
    result = revenue_change()
    used = [ev.FactView.from_fact(i.fact, ref=i.ref, period=i.period) for i in result.inputs]
    alt = fact(2022, 26_900e6, source="table", concept=None, fact_id="nvda-f9", page=40,
               chunk_id="nvda-00300", row="Revenue | $26,900 | restated")
    facts = [*used, ev.FactView.from_fact(alt, ref="revenue[FY2022]", period="FY2022",
                                          used=False)]
    return [
        ev.PlanProposed(node="plan", plan=plan, source="offline"),
        ev.PlanApproved(node="review", plan=plan, edited=False),
        ev.StepStarted(node="start_step", step=0, sub_question=plan[0].sub_question,
                       tool="figure_lookup", doc_ids=["nvda"], companies=["NVIDIA CORP 10-K"]),
        ev.FactsFound(node="figure_lookup", step=0, metric="revenue",
                      periods=["FY2022", "FY2023"], facts=facts, inputs=result.inputs,
                      missing=["no FY2021 revenue in the filings loaded"],
                      notes=["<b>note</b> from the filing"]),
        ev.PolicyDecided(node="policy", step=0, decision="CONTINUE", reason="found"),
        ev.StepStarted(node="start_step", step=1, sub_question=plan[1].sub_question,
                       tool="compute", depends_on=[0]),
        ev.FigureComputed(node="compute", step=1, formula=plan[1].formula, result=result),
        ev.PolicyDecided(node="policy", step=1, decision="FINISH", reason="all steps done"),
        ev.AnswerReady(node="synthesize", answer="NVIDIA's revenue was $26,974 million in "
                       "fiscal 2023, about flat from $26,914 million in fiscal 2022 (+0.2%) [1].",
                       citations=[{"n": 1, "evidence_id": INCOME, "kind": "chunk",
                                   "label": "NVIDIA 10-K · p. 52"}],
                       stop_reason="completed", stop_message="all steps run", source="offline",
                       figures=[result.model_dump(mode="json")]),
    ]


def test_the_plan_table_shows_figure_fields():
    plan = figure_plan()
    assert figure_fields(plan[0]) == "revenue · FY2022, FY2023 · USD millions"
    assert figure_fields(plan[1]).endswith("· percent · 1 decimal(s)")
    frame = plan_frame(plan)
    assert frame["figure"].tolist()[0] == "revenue · FY2022, FY2023 · USD millions"
    text_only = plan_frame([PlanStep(sub_question="risks?")])
    assert "figure" not in text_only.columns


def _run_app():
    from components.run_view import RunView
    from tests.test_components_figures_steps import figure_events

    RunView(key="t").add_all(figure_events())


def test_figure_step_cards_show_facts_and_arithmetic():
    at = AppTest.from_function(_run_app, default_timeout=120).run()
    assert not at.exception, at.exception
    labels = [s.label for s in at.status]
    assert labels[0].startswith("Step 1 · figure look-up") and "CONTINUE" in labels[0]
    assert labels[1].startswith("Step 2 · computation") and "FINISH" in labels[1]
    markdown = [m.value for m in at.markdown]
    assert any(m.startswith("**Facts looked up** — revenue for FY2022, FY2023: 2 found, "
                            "1 missing") for m in markdown), markdown
    assert any(m == "**Computed:** \\+0\\.2%" for m in markdown)
    facts = next(d.value for d in at.dataframe if "line item" in d.value.columns)
    assert facts["input"].tolist() == ["revenue[FY2023]", "revenue[FY2022]", "revenue[FY2022]"]
    assert facts["value"].tolist() == ["$26,974 million", "$26,914 million", "$26,900 million"]
    assert facts["source"].tolist()[0] == "XBRL us-gaap:Revenues"
    assert facts[""].tolist() == ["used", "used", "alternative"]
    assert facts["page"].tolist() == ["PDF p. 52", "PDF p. 52", "PDF p. 40"]
    assert any("Missing: no FY2021 revenue" in w.value for w in at.warning)
    assert any("Formula: \\(revenue\\[FY2023\\]" in c.value for c in at.caption)
    assert any("\\<b\\>note\\</b\\>" in c.value for c in at.caption)
    # the answer drawn by the view carries its computation table
    assert "**Computation**" in markdown
    assert at.table[0].value["value"].tolist()[0] == "\\$26,974 million"


def _form_app():
    import streamlit as st

    from components.plan_form import PlanForm
    from core.app.plan_draft import drafts_from_plan, plan_problems
    from core.foundation.types import DocumentMeta
    from tests.test_components_figures_steps import figure_plan

    ss = st.session_state
    if "drafts" not in ss:
        ss["drafts"] = drafts_from_plan(figure_plan())
        ss["saves"] = 0
    docs = [DocumentMeta(doc_id="nvda", file_name="nvda-10k-fy2023.html", company="NVIDIA CORP",
                         form_type="10-K", period="FY2023")]
    sections = {"nvda": ["Item 8. Financial Statements"]}

    def save(drafts):
        ss["saves"] += 1

    problems = plan_problems(ss["drafts"], sections)
    PlanForm(ss["drafts"], key="pf", documents=docs, sections=sections, save=save,
             dependencies=True).render(problems)


def _widget(at, kind: str, label: str):
    return next(w for w in getattr(at, kind) if w.label == label)


def test_the_plan_editor_edits_figure_fields_and_shows_the_checks():
    at = AppTest.from_function(_form_app, default_timeout=120).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]  # the proposed plan is valid
    metric = _widget(at, "selectbox", "Metric")
    assert metric.value == "revenue"
    assert "Capital expenditure (capex)" in metric.options or any(
        o.endswith("(capex)") for o in metric.options), metric.options
    assert _widget(at, "text_input", "Periods").value == "FY2022, FY2023"
    assert _widget(at, "text_input", "Formula").value.startswith("(revenue[FY2023]")
    assert [w.value for w in at.selectbox if w.label == "Unit"] == ["USD millions", "percent"]
    assert [w.value for w in at.selectbox if w.label == "Decimals"] == [None, 1]

    _widget(at, "selectbox", "Metric").set_value("capex").run()
    _widget(at, "text_input", "Periods").set_value("fy2017, FY2018").run()
    drafts = at.session_state["drafts"]
    assert (drafts[0].metric, drafts[0].periods) == ("capex", ["FY2017", "FY2018"])
    assert drafts[0].edited and at.session_state["saves"] == 2
    step = to_plan(drafts)[0]
    assert (step.tool, step.metric, step.periods) == ("figure_lookup", "capex",
                                                      ["FY2017", "FY2018"])

    _widget(at, "text_input", "Formula").set_value("revenue[FY2023] / ").run()
    _widget(at, "text_input", "Periods").set_value("last year").run()
    errors = [e.value for e in at.error]
    assert any("not understood" in e and "FY2023" in e for e in errors), errors
    assert any("formula" in e.lower() for e in errors), errors
    _widget(at, "selectbox", "Decimals").set_value(2).run()
    _widget(at, "selectbox", "Unit").set_value("(usual)").run()
    assert (at.session_state["drafts"][0].unit, at.session_state["drafts"][0].decimals) == (
        None, 2)


def test_drafts_keep_the_figure_fields_through_review():
    plan = figure_plan()
    drafts = drafts_from_plan(plan)
    assert not any(d.edited for d in drafts)
    assert [s.model_dump() for s in to_plan(drafts)][0]["metric"] == "revenue"
    assert plan_problems(drafts, {"nvda": ["Item 8"]}) == {}
