"""Figures with an LLM: the planner's figure steps (prompt, schema, checks), the look-up and
compute tools the synthesiser calls (the real ChatOpenAI against the scripted fake server),
and a wrong figure stated by the LLM flagged by the self-check."""

from __future__ import annotations

import json
import re

from core.agent.deps import AgentDeps, CorpusInfo, fact_source
from core.agent.roles.planner import PLANNER_FIGURES, make_plan
from core.app.research import ResearchService
from core.llm.factory import make_chat_model
from testkit.fakes.chat_model import FakeChatModel
from testkit.fakes.fixtures import llm_settings, openai_server  # noqa: F401 (fixture)
from testkit.fakes.openai_server import Behaviour
from tests.test_agent_figures import REVENUE_Q, nvda  # noqa: F401 (fixture)


def _deps(nvda, llm=None) -> AgentDeps:  # noqa: F811
    settings, corpus = nvda
    return AgentDeps(settings=settings, retriever=corpus.retriever, llm=llm,
                     corpus=CorpusInfo.from_store(corpus.store),
                     facts=fact_source(corpus.store))


def _step(doc_id: str, **fields) -> dict:
    base = {"sub_question": REVENUE_Q, "justification": "", "tool": "figure_lookup",
            "keywords": [], "section": None, "doc_ids": [doc_id], "depends_on": [],
            "metric": "revenue", "periods": ["FY2022", "FY2023"], "formula": None,
            "unit": "USD millions", "decimals": 0}
    return {**base, **fields}


def test_the_planner_is_told_about_figure_steps_and_its_figure_steps_are_checked(nvda):  # noqa: F811
    doc_id = nvda[1].documents()[0].doc_id
    llm = FakeChatModel()
    llm.enqueue({"steps": [_step(doc_id, metric="revnue"),
                           _step(doc_id, tool="filing_search", metric=None, periods=[],
                                 sub_question="What drove NVIDIA's revenue in fiscal 2023?")]})
    steps, source, notes, _ = make_plan(REVENUE_Q, _deps(nvda, llm), [])
    system = llm.history[0][0].content
    assert PLANNER_FIGURES.splitlines()[0] in system and "ppe_net: net PP&E" in system
    assert source == "llm"
    assert any("unknown metric 'revnue'" in n and "(step dropped)" in n for n in notes)
    # the LLM's plan lost its look-up: the offline rule's figure steps come first
    assert [(s.tool, s.metric) for s in steps] == [("figure_lookup", "revenue"),
                                                   ("filing_search", None)]
    assert any("added 1 figure step(s) from the offline rule" in n for n in notes)


def test_the_llm_calls_the_figure_tools_and_a_wrong_figure_is_flagged(
        nvda, openai_server, tmp_path):  # noqa: F811
    settings = llm_settings(openai_server, tmp_path)
    corpus = nvda[1]
    doc_id = corpus.documents()[0].doc_id
    answer = ("NVIDIA's revenue was $26,974 million in fiscal 2023, about flat from $26,914 "
              "million in fiscal 2022 (+0.2%) [1]. Its fiscal 2023 revenue of $27,120 million "
              "was a record [1]. Net income was $4,368 million in fiscal 2023, a net margin "
              "of 16.2% [1][2].")
    openai_server.enqueue(
        Behaviour.json({"steps": [_step(doc_id)]}),
        Behaviour.tool_call({"metric": "net_income", "period": "FY2023"}, name="figure_lookup"),
        Behaviour.tool_call({"formula": "net_income[FY2023] / revenue[FY2023]",
                             "unit": "percent", "decimals": 1}, name="compute"),
        Behaviour.text("DONE"),
        Behaviour.json({"answer": answer, "not_found": []}),
        Behaviour.json({"verdicts": [{"index": k, "supported": True, "reason": "ok"}
                                     for k in (1, 2, 3)]}),
    )
    svc = ResearchService.from_corpus(settings, corpus, llm=make_chat_model(settings))
    record = svc.ask(REVENUE_Q)
    requests = openai_server.chat_requests
    assert len(requests) == 6 and openai_server.pending == 0
    # the tools were offered, called, run, and their results sent back
    assert [t["function"]["name"] for t in requests[1]["tools"]] == ["figure_lookup",
                                                                    "compute"]
    lookup_reply = json.loads(requests[2]["messages"][-1]["content"])
    assert requests[2]["messages"][-1]["role"] == "tool"
    assert re.fullmatch(r"NVIDIA's FY2023 net income was \$4,368(\.00)? million \[2\]\.",
                        lookup_reply["figure"])
    compute_reply = json.loads(requests[3]["messages"][-1]["content"])
    assert compute_reply["value"] == "16.2%"
    # the synthesiser got the figures as authoritative findings, tool results included
    synth = requests[4]["messages"][-1]["content"]
    assert "Computed figures (authoritative" in synth and "net income was $4,368" in synth
    assert {r: u.calls for r, u in record.usage.items()} == \
        {"planner": 1, "figure_tools": 3, "synthesizer": 1, "selfcheck": 1}
    # the look-up step itself made no LLM call; the tool calls are typed events too
    kinds = [(e.type, e.node) for e in record.events if e.type in ("facts_found",
                                                                   "figure_computed")]
    assert kinds == [("facts_found", "figure_lookup"), ("facts_found", "synthesize"),
                     ("figure_computed", "synthesize")]
    # the wrong figure is flagged (the LLM judge called it supported) and removed
    checks = {c.sentence: c for c in record.answer.checks}
    wrong = next(c for s, c in checks.items() if "27,120" in s)
    assert (wrong.verdict, wrong.judge, wrong.kept) == ("unsupported", "offline", False)
    assert "27,120 agree with no reported or computed revenue for FY2023" in wrong.reason
    assert "27,120" not in record.answer.text
    assert record.answer.text.startswith("NVIDIA's revenue was $26,974 million in fiscal 2023")
    assert "$4,368 million" in record.answer.text and record.answer.source == "llm"
    assert [f.value for f in record.answer.figures] == [26_974, 4_368, 16.2]
    assert "sk-test-SECRET" not in record.model_dump_json()


def test_a_failed_tool_call_degrades_and_the_answer_opens_with_the_figure(
        nvda, openai_server, tmp_path):  # noqa: F811
    """The tools could not be offered (HTTP 500): said in a warning, the answer is written
    from the plan's figures; an LLM answer that does not open with the figure gets the
    figure sentence first."""
    settings = llm_settings(openai_server, tmp_path)
    corpus = nvda[1]
    openai_server.enqueue(
        Behaviour.json({"steps": [_step(corpus.documents()[0].doc_id)]}),
        Behaviour.error(500, "tool calls broke"),
        Behaviour.json({"answer": "Revenue was about flat from fiscal 2022 to fiscal 2023, "
                                  "as the income statement shows [1].", "not_found": []}),
        Behaviour.json({"verdicts": [{"index": k, "supported": True, "reason": "ok"}
                                     for k in (1, 2)]}),
    )
    svc = ResearchService.from_corpus(settings, corpus, llm=make_chat_model(settings))
    record = svc.ask(REVENUE_Q)
    assert any(w.startswith("figure_tools: the look-up and compute tools could not be "
                            "offered") for w in record.warnings)
    assert record.answer.source == "llm" and openai_server.pending == 0
    lead, rest = record.answer.text.split("\n\n", 1)
    first, read_as = lead.split("\n")  # the figure first, then how the question was read
    assert first.startswith("NVIDIA's revenue was $26,974 million in FY2023") and \
        first.endswith("[1].")
    assert read_as.startswith("Read as: a figure · total revenue · NVIDIA CORP (FY2023)")
    assert rest.startswith("Revenue was about flat")
