"""Each plan step is a LangGraph subgraph: its stages are the nodes the events name.

The picture the Research page draws is the compiled graph's (``get_graph(xray=True)``), so
every stage a run reports must be a node of the step subgraph; a plan paused by the code
before the subgraph (one ``research_step`` node running hand-written stages) still resumes.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

from core.agent.graph import build_graph, picture
from core.agent.stages import STAGES
from core.agent.state import RoleUsage, StepRecord
from core.agent.step_routes import step_view
from core.foundation.config import Settings
from testkit.agent_fakes import QUESTION, make_service
from tests.test_agent_figures import _service, nvda  # noqa: F401 - the module's fixture

PAUSED = Path(__file__).parent / "fixtures" / "paused_before_step_graph"
OUTER = {"__start__", "route", "plan", "review", "dispatch", "research_step", "synthesize",
         "__end__"}


def test_the_outer_graph_keeps_the_node_names_a_paused_run_stops_at():
    assert set(build_graph(None).get_graph().nodes) == OUTER
    nodes, _ = picture()
    assert {f"research_step:{s.name}" for s in STAGES} <= set(nodes)


def test_every_stage_a_run_reports_is_a_node_of_the_step_subgraph(settings):
    record = make_service(settings).ask(QUESTION)
    nodes, edges = picture()
    step_nodes = {e.node for e in record.events if e.step is not None}
    assert {"start_step", "rewrite", "search_filings", "search_web", "rerank", "distill",
            "reflect", "policy"} <= step_nodes
    assert {f"research_step:{n}" for n in step_nodes} <= set(nodes)
    assert ("research_step:reflect", "research_step:policy", False) in edges
    # each stage timed once per step, under its own name; the outer nodes under theirs
    assert {"route", "plan", "review", "dispatch", "synthesize", "start_step", "rewrite",
            "rerank", "distill", "reflect", "policy"} <= set(record.timings_ms)
    steps = {e.step for e in record.events if e.type == "step_started"}
    assert [h.step for h in sorted(record.history, key=lambda h: h.step)] == sorted(steps)


def test_a_step_sees_the_runs_history_with_its_own_additions():
    before = StepRecord(step=0, sub_question="a", tool="filing_search", query="a")
    mine = StepRecord(step=1, sub_question="b", tool="filing_search", query="b")
    state = {"step_index": 1, "plan": [], "history": [mine],
             "usage": {"rewriter": RoleUsage(calls=1)},
             "prior": {"history": [before], "usage": {"rewriter": RoleUsage(calls=2)},
                       "limit_hit": None}}
    view = step_view(state)
    assert view["history"] == [before, mine] and view["usage"]["rewriter"].calls == 3
    assert "prior" not in view and view["limit_hit"] is None


def test_a_plan_paused_before_the_step_subgraph_resumes_with_the_same_answer(tmp_path):
    data = tmp_path / "store"
    shutil.copytree(PAUSED, data, ignore=shutil.ignore_patterns("expected.json"))
    expected = json.loads((PAUSED / "expected.json").read_text(encoding="utf-8"))
    svc = make_service(Settings(data_dir=data, cache_enabled=False, _env_file=None))
    assert [r.id for r in svc.paused_runs()] == [expected["thread"]]
    record = svc.resume(expected["thread"]).run()
    svc.close()
    assert record.status == "done"
    assert record.answer.text == expected["answer"]
    assert [c.evidence_id for c in record.answer.citations] == expected["citations"]
    assert dict(Counter(e.type for e in record.events)) == expected["types"]


def test_a_figure_steps_search_for_a_missing_input_runs_in_the_subgraph(nvda, tmp_path):  # noqa: F811
    svc, _ = _service(nvda, tmp_path)
    record = svc.ask("What was NVIDIA's capital expenditure in FY2019?")
    order = [e.node for e in record.events if e.step is not None]
    assert order.index("figure_lookup") < order.index("rewrite") < order.index("distill") \
        < order.index("figure_record")
    assert "reflect" not in order and record.total_usage.calls == 0
    nodes, _ = picture()
    assert {f"research_step:{n}" for n in order} <= set(nodes)
