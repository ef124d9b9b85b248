"""Pure renderers and helpers of components/ (no services, no models)."""

from __future__ import annotations

import pytest

from components.evidence import hits_frame, relative_scores, rerank_figure
from components.graph_view import CURRENT, VISITED, drawn_node, graph_dot
from components.policy_badge import DECISION_STYLE, decision_style
from components.text import md_escape, readable_refs, safe_answer
from components.usage_meter import usage_from_events
from core.agent import events as ev
from core.agent.graph import picture
from core.agent.state import RoleUsage
from core.foundation.types import StageScore
from tests.waiting import GATE_S, until

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


# --- graph, badges, usage, evidence -------------------------------------------------


def test_graph_dot_lights_the_stage_an_event_names_inside_the_step():
    nodes, edges = picture()  # the compiled graph, its step subgraph drawn inside
    dot = graph_dot(nodes, edges, current="rerank", visited=["plan"])
    assert f'"research_step:rerank" [fillcolor="{CURRENT}", penwidth=2.5, label="rerank"]' \
        in dot
    assert f'"plan" [fillcolor="{VISITED}"]' in dot
    assert '"research_step:policy" -> "research_step:revise" [style=dashed]' in dot
    assert "subgraph cluster_0" in dot and "research_step (one plan step)" in dot
    assert drawn_node("synthesize", nodes) == "synthesize"
    assert drawn_node("graph", nodes) is None  # a run-level warning lights nothing
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


def test_hits_frame_shows_rank_and_score_per_stage_and_no_none_cells():
    hits = [_hit(1, 0.9, keyword=7.1, fused=0.03, reranked=0.9),
            _hit(2, 0.5, keyword=3.0, reranked=0.5)]
    frame = hits_frame(hits)
    assert list(frame["keyword"]) == ["#1 · 7.1", "#2 · 3"]
    assert list(frame["fused"]) == ["#1 · 0.03", "–"]  # not fused: a dash, never "None"
    assert "vector" not in frame.columns  # keyword-only retrieval: no vector stage
    assert not frame.isna().any().any()
    assert frame["text"].str.len().max() <= 200


def test_reranker_bars_are_relative_to_the_best_so_close_scores_look_different():
    assert relative_scores([0.049, 0.048, 0.046]) == [100.0, 70.0, 10.0]
    assert relative_scores([0.5, 0.5]) == [100.0, 100.0]
    fig = rerank_figure([_hit(2, 0.0465, reranked=0.0465), _hit(1, 0.049, reranked=0.049)])
    bar = fig.data[0]
    assert list(bar.x) == [100.0, 10.0]  # ordered by rank, best first
    assert bar.y[0] == "[1] Item 1A. Risk Factors PDF p. 1 #1"
    assert "raw score 0.049" in bar.hovertext[0]  # the raw score is on hover


def test_distilled_context_shows_labels_not_chunk_ids_or_long_urls():
    context = ("Rivals compete [f4e784037ad11897-00011]; AMD bought ZT "
               "[https://ir.amd.com/news-events/press-releases/detail/1212/amd-zt-systems] "
               "and see f4e784037ad11897-00042.")
    out = readable_refs(context, {"f4e784037ad11897-00011": "Item 1A p.4 #11"})
    assert "[Item 1A p.4 #11]" in out and "[ir.amd.com]" in out
    assert "f4e784037ad11897" not in out and "press-releases" not in out


def test_rerank_figure_escapes_markup_in_untrusted_labels():
    web = ev.HitView(id="https://x.test", kind="web", label='<a href="http://evil.test">t</a>',
                     rank=1, score=1.0, text="<b>x</b>", stages={})
    bar = rerank_figure([web]).data[0]
    assert "<a" not in bar.y[0] and "&lt;a href" in bar.y[0]
    assert "<b>" not in bar.hovertext[0]


# --- background jobs -----------------------------------------------------------------


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

    from components.jobs import follow
    from core.app import jobs

    gate = threading.Event()

    def work(job):
        job.events.append("a")
        gate.wait(GATE_S)  # the run goes on while nobody is watching
        for item in ("b", "c"):
            time.sleep(0.05)
            job.events.append(item)
        return "record"

    job = jobs.start("t-bg", "research", work)
    assert jobs.get("t-bg") is job and not job.done and jobs.active("research") == [job]
    assert until(lambda: job.events)  # the thread got going
    assert job.events == ["a"] and not job.done  # a page that left saw only "a"
    gate.set()
    view, ticker = _Collect(), _Ticker()
    follow(job, view, ticker, poll_s=0.01, tick_s=0.0)  # a page that re-attached
    assert view.seen == ["a", "b", "c"] and job.done and job.error is None
    assert job.result == "record" and ticker.ticks >= 1
    jobs.forget("t-bg")
    assert jobs.get("t-bg") is None


def test_job_records_a_crash_instead_of_hanging():
    from components.jobs import follow
    from core.app import jobs

    def broken(job):
        job.events.append("a")
        raise RuntimeError("boom")

    job = jobs.start("t-crash", "research", broken)
    view = _Collect()
    follow(job, view, _Ticker(), poll_s=0.01)
    assert view.seen == ["a"] and job.done
    assert "RuntimeError: boom" in job.error


def test_progress_line_says_which_step_is_running():
    from components.jobs import progress_line

    events = [ev.StepStarted(node="start_step", step=0, sub_question="q", tool="filing_search"),
              ev.StepStarted(node="start_step", step=1, sub_question="q", tool="web_search",
                             attempt=1),
              ev.HitsRetrieved(node="search_web", step=1, tool="web_search", query="q",
                               strategy="web", hits=[])]
    assert progress_line(events, 12.4, 3) == "Researching step 2 of 3, retry 1 (search_web) · 12 s"
