"""Figure steps' records travel everywhere a run goes: checkpoints, events, drafts, the CLI.

Records are built by hand here (no figures layer call): a look-up's facts and a computed
result, as ``core.figures.compute`` returns them."""

from __future__ import annotations

import io

from core.agent.events import FactsFound, FactView, FigureComputed
from core.agent.plan_edit import normalise_plan, parse_plan
from core.agent.stages import parse_event
from core.agent.state import Answer, PlanStep, StepRecord
from core.app.checkpointing import state_types
from core.app.plan_draft import drafts_from_plan, to_plan
from core.cli.agent import print_plan
from core.cli.agent_figures import computation_table
from core.figures.model import FigureInput, FigureRequest, FigureResult, WorkRow
from core.foundation.types import Fact
from core.store.checkpoints import serializer, sqlite_checkpointer


def _fact(year: int, value: float, chunk: str = "d1-00042") -> Fact:
    return Fact(fact_id=f"d1-f{year:05d}", doc_id="d1", source="xbrl", label="Revenue",
                metric="revenue", concept="us-gaap:Revenues", statement="income",
                fiscal_year=year, months=12, end=f"{year}-01-29", value=value, scale=6,
                decimals=-6, chunk_id=chunk, page=50, row="Revenue | $26,974 | $26,914",
                column=f"Jan {year}", printed=f"${value / 1e6:,.0f}")


def _result() -> FigureResult:
    inputs = [FigureInput(ref=f"revenue[FY{y}]", label=f"Revenue, FY{y}", metric="revenue",
                          period=f"FY{y}", value=v, fact=_fact(y, v))
              for y, v in ((2022, 26_914e6), (2023, 26_974e6))]
    request = FigureRequest(name="revenue", metric="revenue", aggregate="pct_change",
                            formula="(revenue[FY2023] - revenue[FY2022]) / revenue[FY2022]",
                            formula_source="catalogue", periods=["FY2022", "FY2023"],
                            unit="percent", doc_ids=["d1"])
    rows = [WorkRow(input="Revenue", period=i.period, value=f"${i.value / 1e6:,.0f} million",
                    unit="USD millions", chunk_id="d1-00042", page=50, source="XBRL "
                    "us-gaap:Revenues") for i in inputs]
    return FigureResult(request=request, value=0.2, unit="percent", display="+0.2%",
                        inputs=inputs, rows=rows, work="(26,974 - 26,914) / 26,914 = +0.2%")


def test_checkpoints_keep_figure_records_under_the_allow_list(tmp_path):
    """The serializer's allow-list names core.figures.model: a FigureResult in the state
    comes back as a FigureResult (an unlisted type is refused)."""
    serde = serializer(state_types())
    record = StepRecord(step=0, sub_question="q", tool="compute", query="f", figure=_result())
    back = serde.loads_typed(serde.dumps_typed({"history": [record]}))
    assert isinstance(back["history"][0].figure, FigureResult)
    assert back["history"][0].figure.inputs[1].fact.value == 26_974e6
    assert sqlite_checkpointer(tmp_path / "c.sqlite", serde) is not None


def test_figure_events_round_trip_as_typed_events():
    result = _result()
    facts = FactsFound(node="figure_lookup", step=0, metric="revenue",
                       periods=["FY2022", "FY2023"], inputs=result.inputs,
                       facts=[FactView.from_fact(i.fact, i.ref, i.period) for i in result.inputs])
    computed = FigureComputed(node="compute", step=1, formula=result.request.formula,
                              result=result)
    for ev in (facts, computed):
        again = parse_event(ev.model_dump(mode="json"))
        assert type(again) is type(ev) and again == ev
    assert facts.facts[1].period == "FY2023" and facts.facts[1].page == 50
    line = facts.line()
    assert "revenue[FY2023]: $26,974 million (printed $26,974) — Revenue [xbrl " \
           "us-gaap:Revenues, p. 50, chunk d1-00042]" in line


def test_figure_fields_survive_review_drafts_and_validation_shape():
    plan = [PlanStep(sub_question="Look up revenue.", tool="figure_lookup", metric="revenue",
                     periods=["fy2023", "FY2022"], doc_ids=["d1"]),
            PlanStep(sub_question="Change?", tool="compute", depends_on=[0],
                     formula="revenue[FY2023]  -  revenue[FY2022]", unit="USD millions",
                     decimals=0, doc_ids=["d1"]),
            PlanStep(sub_question="Why?", tool="filing_search", metric="revenue")]
    drafts = drafts_from_plan(plan)
    assert not any(d.edited for d in drafts)
    back = to_plan(drafts)
    assert back[0].periods == ["FY2023", "FY2022"] and back[1].formula.count("  ") == 0
    assert back[1].depends_on == [0] and back[2].metric is None
    steps = normalise_plan(parse_plan([s.model_dump() for s in plan]))
    assert steps[0].periods == ["FY2022", "FY2023"] and steps[0].section is None
    assert steps[1].formula == "revenue[FY2023] - revenue[FY2022]"
    assert steps[2].metric is None  # a text step carries no figure fields
    from_ui = parse_plan([{"sub_question": "x", "tool": "figure_lookup", "metric": "revenue",
                           "periods": "FY2022, FY2023", "unit": "", "decimals": ""}])
    assert from_ui[0].periods == ["FY2022", "FY2023"] and from_ui[0].unit is None


def test_cli_prints_figure_steps_and_the_computation_table():
    out = io.StringIO()
    print_plan([PlanStep(sub_question="Look up revenue.", tool="figure_lookup",
                         metric="revenue", periods=["FY2022", "FY2023"]),
                PlanStep(sub_question="Change?", tool="compute", depends_on=[0],
                         formula="revenue[FY2023] - revenue[FY2022]")], out)
    text = out.getvalue()
    assert "[figure_lookup] Look up revenue. | metric: revenue | periods: FY2022, FY2023" in text
    assert "[compute] Change? | formula: revenue[FY2023] - revenue[FY2022] | uses steps: 1" \
        in text
    answer = Answer(text="x", figures=[_result()])
    from core.agent.state import Evidence

    evidence = [Evidence(id="d1-00042", kind="chunk", text="Revenue | $26,974")]
    table = "\n".join(computation_table(answer.figures, evidence))
    assert "revenue: +0.2%" in table
    assert "Revenue  FY2023  $26,974 million  USD millions  XBRL us-gaap:Revenues, PDF p. 50 [1]" \
        in table
    assert "work: (26,974 - 26,914) / 26,914 = +0.2%" in table


def test_several_filings_without_statements_are_named_once_each():
    from core.agent.roles.figure_answer import figure_paragraph
    from core.figures.model import FigureRequest, FigureResult

    result = FigureResult(request=FigureRequest(name="net income", formula="net_income[FY2022]"),
                          no_statements=["Foot Locker, Inc. 8-K", "Foot Locker, Inc. 8-K"])
    text, missing = figure_paragraph(result, "Foot Locker", lambda _: "")
    assert text == ("I could not read net income: Foot Locker, Inc. 8-K (2 filings) hold no "
                    "financial statements, so no figure is reported in them.")
    assert missing == ["net income"]
