"""Pure renderers and helpers of components/ (no services, no models)."""

from __future__ import annotations

import pandas as pd
import pytest

from components.evidence import hits_frame, rerank_figure
from components.graph_view import CURRENT, DEFAULT_EDGES, DEFAULT_NODES, VISITED, graph_dot
from components.plan_editor import ANY_SECTION, frame_to_plan, plan_to_frame
from components.policy_badge import DECISION_STYLE, decision_style
from components.text import md_escape, safe_answer
from components.usage_meter import usage_from_events
from core.agent import events as ev
from core.agent.state import PlanStep, RoleUsage
from core.types import StageScore

SECTIONS = {"doc1": ["Item 1. Business", "Item 1A. Risk Factors", "Item 7. MD&A"]}


def _plan() -> list[PlanStep]:
    return [
        PlanStep(sub_question="What competition risks does the 10-K list?",
                 section="Item 1A. Risk Factors", keywords=["competition", "rivals"]),
        PlanStep(sub_question="AMD AI chip strategy news 2024", tool="web_search",
                 keywords=["AMD", "MI300"]),
        PlanStep(sub_question="How does revenue depend on data center?",
                 section="Item 7. MD&A"),
    ]


# --- text safety -----------------------------------------------------------------


def test_md_escape_neutralises_links_images_and_html():
    raw = "![x](http://evil.test/a.png) [click](http://evil.test) <script>alert(1)</script> # H"
    out = md_escape(raw)
    assert "](" not in out.replace("\\]\\(", "")  # every bracket/paren is escaped
    assert "\\!\\[x\\]\\(http\\:" in out
    assert "\\<script\\>" in out
    assert out.replace("\\", "") == raw  # nothing lost, only escaped


def test_safe_answer_keeps_citations_and_bold_but_drops_links_images_html():
    raw = ("**Risk**: rivals [1][2]. See ![pic](http://evil.test/x.png) and "
           "[this](http://evil.test) <img src=x onerror=alert(1)>\n[ref]: http://evil.test")
    out = safe_answer(raw)
    assert "[1][2]" in out and "**Risk**" in out
    assert "evil.test" not in out
    assert "<img" not in out and "onerror" not in out
    assert "this" in out and "pic" in out  # link/image text kept as plain words


# --- plan editor -----------------------------------------------------------------


def test_plan_frame_round_trip_keeps_every_field():
    plan = _plan()
    frame = plan_to_frame(plan)
    assert list(frame["order"]) == [1, 2, 3]
    assert frame.loc[1, "section"] == ANY_SECTION
    steps, problems = frame_to_plan(frame, SECTIONS)
    assert problems == []
    assert [s.sub_question for s in steps] == [s.sub_question for s in plan]
    assert steps[0].section == "Item 1A. Risk Factors"
    assert steps[0].keywords == ["competition", "rivals"]
    assert steps[1].tool == "web_search" and steps[1].section is None


def test_reorder_delete_and_add_rows():
    frame = plan_to_frame(_plan())
    frame = frame.drop(index=1).reset_index(drop=True)  # delete the web step
    frame.loc[0, "order"] = 9  # move the first step last
    added = {"order": 5, "sub_question": "What does Item 1 say about customers?",
             "tool": "filing_search", "section": "Item 1. Business", "keywords": "customers",
             "justification": "", "documents": ""}
    blank = {c: None for c in frame.columns}  # the editor's empty new row
    frame = pd.concat([frame, pd.DataFrame([added, blank])], ignore_index=True)
    steps, problems = frame_to_plan(frame, SECTIONS)
    assert problems == []
    assert [s.sub_question[:10] for s in steps] == ["How does r", "What does ", "What compe"]
    assert steps[1].section == "Item 1. Business"


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        ({"sub_question": "   "}, "sub-question is empty"),
        ({"tool": "email"}, "unknown tool"),
        ({"section": "Item 99. Nothing"}, "not in the selected filings"),
        ({"documents": "nope123"}, "unknown document"),
    ],
)
def test_invalid_edits_are_explained(edit, expected):
    frame = plan_to_frame(_plan())
    for col, value in edit.items():
        frame.loc[0, col] = value
    steps, problems = frame_to_plan(frame, SECTIONS)
    assert problems, "an invalid edit must be reported"
    assert any(expected in p for p in problems), problems
    assert all(p[0].isupper() and p.endswith(".") for p in problems)


def test_web_step_without_web_provider_and_step_limit_are_reported():
    frame = plan_to_frame(_plan())
    _, problems = frame_to_plan(frame, SECTIONS, web_available=False, max_steps=2)
    assert any("web search is not available" in p for p in problems)
    assert any("at most 2" in p for p in problems)


def test_empty_plan_is_rejected():
    _, problems = frame_to_plan(plan_to_frame([]), SECTIONS)
    assert any("no steps" in p for p in problems)


# --- graph, badges, usage, evidence -------------------------------------------------


def test_graph_dot_highlights_current_and_visited_nodes():
    dot = graph_dot(DEFAULT_NODES, DEFAULT_EDGES, current="rerank", visited=["plan"])
    assert f'"rerank" [fillcolor="{CURRENT}", penwidth=2.5]' in dot
    assert f'"plan" [fillcolor="{VISITED}"]' in dot
    assert '"policy" -> "revise" [style=dashed]' in dot
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")
    assert '"x" [' in graph_dot(['x"'], [], current=None)  # quotes cannot break the DOT


def test_decision_colours_are_distinct_and_stable():
    colours = {decision_style(d)[0] for d in DECISION_STYLE}
    assert len(colours) == 3
    assert decision_style("revise") == DECISION_STYLE["REVISE"]
    assert decision_style("???")[0] == "gray"


def test_usage_sums_calls_and_takes_each_node_runs_longest_time():
    events = [
        ev.PlanProposed(node="plan", elapsed_ms=300, plan=[], source="llm",
                        usage=RoleUsage(calls=1, prompt_tokens=100, completion_tokens=20)),
        ev.StepStarted(node="start_step", step=0, sub_question="q", tool="filing_search"),
        ev.QueryRewritten(node="rewrite", step=0, elapsed_ms=50, original="q", query="q2",
                          source="llm", usage=RoleUsage(calls=1, prompt_tokens=10,
                                                        completion_tokens=5)),
        ev.HitsRetrieved(node="search_filings", step=0, elapsed_ms=100, tool="filing_search",
                         query="q2", strategy="hybrid", hits=[]),
        ev.HitsReranked(node="search_filings", step=0, elapsed_ms=400, rerank_query="q2",
                        hits=[]),
        ev.StepStarted(node="start_step", step=0, sub_question="q", tool="filing_search",
                       attempt=1),
        ev.HitsRetrieved(node="search_filings", step=0, elapsed_ms=200, tool="filing_search",
                         query="q3", strategy="keyword", hits=[]),
    ]
    totals = usage_from_events(events)
    assert (totals.calls, totals.prompt_tokens, totals.completion_tokens) == (2, 110, 25)
    assert totals.seconds_by_node["search_filings"] == pytest.approx(0.6)  # 0.4 + 0.2
    assert totals.seconds_by_node["plan"] == pytest.approx(0.3)
    assert totals.calls_by_node == {"plan": 1, "rewrite": 1}


def _hit(rank: int, score: float, **stages: float) -> ev.HitView:
    return ev.HitView(
        id=f"doc1-{rank:05d}", kind="chunk", label=f"ACME 10-K — Item 1A (chunk {rank})",
        rank=rank, score=score, section="Item 1A. Risk Factors", page=rank, text="x" * 500,
        stages={k: StageScore(rank=rank, score=v) for k, v in stages.items()},
    )


def test_hits_frame_shows_each_stage_and_drops_unused_stages():
    hits = [_hit(1, 0.9, keyword=7.1, fused=0.03, reranked=0.9),
            _hit(2, 0.5, keyword=3.0, fused=0.02, reranked=0.5)]
    frame = hits_frame(hits)
    assert list(frame["keyword"]) == [7.1, 3.0]
    assert list(frame["reranked #"]) == [1, 2]
    assert "vector" not in frame.columns  # keyword-only retrieval: no vector stage
    assert frame["text"].str.len().max() <= 200


def test_rerank_figure_orders_bars_by_rank():
    fig = rerank_figure([_hit(2, 0.5, reranked=0.5), _hit(1, 0.9, reranked=0.9)])
    bar = fig.data[0]
    assert list(bar.x) == [0.9, 0.5]
    assert bar.y[0] == "[1] Item 1A. Risk Factors p.1 #1"


def test_rerank_figure_escapes_markup_in_untrusted_labels():
    web = ev.HitView(id="https://x.test", kind="web", label='<a href="http://evil.test">t</a>',
                     rank=1, score=1.0, text="<b>x</b>", stages={})
    bar = rerank_figure([web]).data[0]
    assert "<a" not in bar.y[0] and "&lt;a href" in bar.y[0]
    assert "<b>" not in bar.hovertext[0]


# --- background runs -----------------------------------------------------------------


class _Collect:
    def __init__(self):
        self.seen: list = []

    def add(self, event):
        self.seen.append(event)


class _Ticker:
    def __init__(self):
        self.ticks = 0

    def caption(self, _text):
        self.ticks += 1

    def empty(self):
        pass


def test_job_runs_in_the_background_and_a_follower_gets_every_event_in_order():
    import threading
    import time

    from components import jobs

    gate = threading.Event()

    def slow_stream():
        yield "a"
        gate.wait(5)  # the run goes on while nobody is watching
        for item in ("b", "c"):
            time.sleep(0.05)
            yield item

    job = jobs.start(slow_stream(), "t-bg")
    assert jobs.get("t-bg") is job and not job.done
    time.sleep(0.2)
    assert job.events == ["a"] and not job.done  # a page that left saw only "a"
    gate.set()
    view, ticker = _Collect(), _Ticker()
    jobs.follow(job, view, ticker, poll_s=0.01, tick_s=0.0)  # a page that re-attached
    assert view.seen == ["a", "b", "c"] and job.done and job.error is None
    assert ticker.ticks >= 1
    jobs.forget("t-bg")
    assert jobs.get("t-bg") is None


def test_job_records_a_crash_instead_of_hanging():
    from components import jobs

    def broken():
        yield "a"
        raise RuntimeError("boom")

    job = jobs.start(broken(), "t-crash")
    view = _Collect()
    jobs.follow(job, view, _Ticker(), poll_s=0.01)
    assert view.seen == ["a"] and job.done
    assert "RuntimeError: boom" in job.error
