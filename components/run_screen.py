"""A run on screen, answer first: the cited answer (passages open beside it), the actions,
then the research trace collapsed below (graph, cost, plan, step cards).

Research (live and finished) and Runs (replay) draw runs through these functions, with
the same layout in every phase, so a rerun replaces what is on screen in place instead
of leaving stale blocks behind. Citations are resolved with ``services.passages`` and
PDF pages rendered with ``services.page_image``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from components import keys, services
from components.analysis_view import all_sources, as_analyses, evidence_pages
from components.answer import opened_row, render_answer
from components.citation_panel import render_citation_panel
from components.figures_view import FigureSource, as_results, evidence_numbers, figure_sources
from components.jobs import follow
from components.run_view import RunView
from components.scroll import scroll_to
from core.app.cited import CitedPassage


def open_in_library(p: CitedPassage, corpus: str = "") -> None:
    """Switch to the Library at the passage's chunk (``?chunk=<id>``: the link can be shared;
    the chunk is shown open, its cited sentence marked, scrolled into view); ``corpus`` names
    a corpus other than the analyst's (``?corpus=sample``)."""
    if p.chunk is None:
        return
    st.session_state[keys.LIB_BROWSE_DOC] = p.chunk.doc_id
    st.session_state[keys.LIB_BROWSE_SECTION] = p.chunk.section
    st.session_state[keys.LIB_FOCUS_CHUNK] = p.chunk.chunk_id
    st.session_state[keys.LIB_FOCUS_SPAN] = list(p.highlight) if p.highlight else None
    st.session_state[keys.LIB_LINK_SEEN] = p.chunk.chunk_id
    query = {"chunk": p.chunk.chunk_id, **({"corpus": corpus} if corpus else {})}
    st.switch_page("app_pages/library.py", query_params=query)


def answer_figures(record: Any, event: Any = None) -> tuple[list[Any], list[Any]]:
    """The figures an answer states (``AnswerReady.figures`` when the event carries them,
    else ``Answer.figures`` of the record) and the answer's numbered evidence."""
    answer = getattr(record, "answer", None)
    figures = getattr(event, "figures", None) or getattr(answer, "figures", None) or []
    evidence = list(getattr(answer, "evidence", None) or [])
    return as_results(figures), evidence


def answer_analyses(record: Any, event: Any = None) -> list[Any]:
    """The analyses an answer states (the event's ``analyses`` when it carries them, else
    ``Answer.analyses`` of the record)."""
    answer = getattr(record, "answer", None)
    return as_analyses(getattr(event, "analyses", None) or getattr(answer, "analyses", None)
                       or [])


def with_figure_sources(citations: Sequence[dict[str, Any]], figures: Sequence[Any],
                        evidence: Sequence[Any], analyses: Sequence[Any] = ()
                        ) -> list[dict[str, Any]]:
    """``citations`` plus the evidence the computation and peer tables cite and the text
    does not (each figure input's and peer row's source can be opened like a marker)."""
    out = [dict(c) for c in citations]
    have = {c.get("n") for c in out}
    numbers = evidence_numbers([e.id for e in evidence])
    sources: list[FigureSource] = [*all_sources(analyses, numbers),
                                   *figure_sources(figures, numbers)]
    for src in sources:
        if src.n in have or src.n > len(evidence):
            continue
        e = evidence[src.n - 1]
        out.append({"n": src.n, "evidence_id": e.id, "kind": e.kind, "label": e.label,
                    "url": e.url})
        have.add(src.n)
    return sorted(out, key=lambda c: int(c.get("n") or 0))


def cited_answer(answer: str, citations: Sequence[dict[str, Any]], *, key: str, record: Any,
                 beside: bool = True, event: Any = None, root: services.Services | None = None,
                 **kwargs: Any) -> None:
    """The answer with hoverable [n] markers; a picked one opens its passage in place. The
    analyses (verdict, peer table, chart) and figures it states are drawn under it; their
    sources open the same way. Citations are
    read in the corpus of ``root`` (the analyst's when None)."""
    figures, evidence = answer_figures(record, event)
    analyses = answer_analyses(record, event)
    if figures or analyses:
        citations = with_figure_sources(citations, figures, evidence, analyses)
    passages = services.passages(record, answer=answer, citations=citations, root=root)
    link = root.link if root is not None else ""
    pick_key = f"{key}_pick"

    def close() -> None:
        st.session_state[pick_key] = None

    def panel(p: CitedPassage) -> None:
        render_citation_panel(p, key=f"{key}_p{p.n}", page_image=services.page_image,
                              open_section=lambda: open_in_library(p, link), on_close=close,
                              row=opened_row(key, p.n))

    render_answer(answer, citations, key=key, passages=passages, panel=panel, beside=beside,
                  figures=figures, evidence_ids=[e.id for e in evidence], analyses=analyses,
                  evidence_pages=evidence_pages(evidence), **kwargs)


def run_caption(thread_id: str, record: Any, timings: dict[str, float], backend: str) -> str:
    """'Run … · backend: … · plan on screen in 1.2 s · run time 9.3 s (planning 1.1 s)'.

    The run time and backend are the run record's (they survive a reload and name what
    answered: an LLM that failed every request is no backend of the run, the offline engine
    is, with the failure said); this session's own measurements fill in while the record
    has none."""
    parts = [f"Run {thread_id}"]
    ran = _ran_by(record) if record is not None and getattr(record, "wall_s", 0) else ""
    parts.append(f"backend: {ran or backend}")
    if "plan_s" in timings:
        parts.append(f"plan on screen in {timings['plan_s']:.2f} s")
    wall = getattr(record, "wall_s", 0.0) if record is not None else 0.0
    if wall:
        planning = getattr(record, "planning_s", 0.0) or 0.0
        parts.append(f"run time {wall:.2f} s" + (f" (planning {planning:.2f} s)" if planning
                                                  else ""))
    elif "answer_s" in timings:
        parts.append(f"answered in {timings['answer_s']:.2f} s")
    return " · ".join(parts)


def _ran_by(record: Any) -> str:
    """The record's backend as it ran so far (``answered_by``: a paused run's record still
    names the configured model)."""
    from core.app.runs import answered_by

    backend = getattr(record, "backend", "") or ""
    account = getattr(record, "llm", None)
    if account is None:
        return backend
    usage = getattr(record, "total_usage", None)
    return answered_by(backend, account, getattr(usage, "cache_hits", 0) or 0)


def plan_origin(proposal: Any, record: Any) -> str:
    """Who proposed the plan under review, in words: 'the LLM', 'the offline engine', or
    'the offline engine (the LLM failed: HTTP 500)' when an LLM was configured and its
    planning reply failed or could not be used."""
    if proposal is not None and getattr(proposal, "source", "offline") == "llm":
        return "the LLM"
    backend = getattr(record, "backend", "") or ""
    account = getattr(record, "llm", None)
    if not backend.startswith("llm:") or account is None:
        return "the offline engine"
    why = (f"the LLM failed: {account.reason}" if account.reason else
           f"the LLM's reply could not be used: {account.unusable_reason}"
           if account.unusable_reason else "the LLM's plan could not be used")
    return f"the offline engine ({why})"


RERANK_CLAIM = {
    "cross-encoder": "reranks the results with a cross-encoder",
    "llm": "has the LLM re-grade the top results",
    "fallback": "re-orders the results with a local stand-in for a re-ranker",
    "none": "keeps the search order (no re-ranking is active)",
}


def agent_caption(rerank_kind: str) -> str:
    """The Research page's one-paragraph description, true of the active re-ranker."""
    rerank = RERANK_CLAIM.get(rerank_kind, "re-orders the results with a local method")
    return ("Ask a question one search cannot answer. The agent proposes a plan you can edit; "
            "then, for every step, it rewrites the query, picks a retrieval strategy, "
            f"{rerank}, distils, reflects, and its policy decides to continue, revise or "
            "finish. The answer cites its evidence.")


def trace_label(record: Any, live: bool = False) -> str:
    """'Research trace · 3 steps · 1 revision · 0 LLM calls · 9.3 s'."""
    if live:
        return "Research trace (live): plan, graph, each step's evidence"
    steps = len({h.step for h in record.history}) if record and record.history else 0
    revisions = len(record.revisions) if record else 0
    from components.usage_meter import run_totals

    calls = run_totals(record).calls if record else 0  # the count the trace's body shows
    secs = f" · {record.wall_s:.1f} s" if record and record.wall_s else ""
    return (f"Research trace · {steps} step(s) · {revisions} revision(s) · {calls} LLM "
            f"call(s){secs}: plan, graph, each step's query, evidence and decision")


def finished_answer(record: Any, *, key: str, beside: bool = True,
                    actions: Callable[[], None] | None = None) -> None:
    """A saved run's answer with its citations, then ``actions`` (buttons)."""
    answer = next((e for e in reversed(record.events)
                   if getattr(e, "type", "") == "answer_ready"), None)
    if answer is not None:
        cited_answer(answer.answer, answer.citations, key=f"{key}_cite", record=record,
                     beside=beside, event=answer, stop_reason=answer.stop_reason,
                     stop_message=answer.stop_message, source=answer.source,
                     invalid_markers=answer.invalid_markers, not_found=answer.not_found,
                     checks=getattr(answer, "checks", []))
    else:
        with st.container(border=True):
            st.subheader("Answer")
            st.info("This run has no answer" + (f": {record.error}" if record.error else "."))
    if actions is not None:
        actions()


def render_finished(record: Any, *, key: str, graph=None, offline: bool = True,
                    actions: Callable[[], None] | None = None, beside: bool = True) -> None:
    """A saved run: answer first, then ``actions`` (buttons), then the collapsed trace."""
    finished_answer(record, key=key, beside=beside, actions=actions)
    with st.expander(trace_label(record), expanded=False, key=f"{key}_trace"):
        view = RunView(key=f"{key}_view", graph=graph, offline=offline, wall_s=record.wall_s,
                       answer_slot=st.empty(), on_answer=lambda e: None, graph_on_demand=True)
        view.add_all(record.events)


LIVE_TOP = "res_live_top"
"""The key of the live run's first block (progress line and Cancel): scrolled into view."""


def render_live(job, earlier: Sequence[Any], *, key: str, graph=None, offline: bool = True,
                plan_steps: int = 0, actions: Callable[[], None] | None = None,
                scroll_nonce: str = "", at_end: Callable[[], None] | None = None) -> None:
    """A run researching now: a progress line where the answer will be and ``actions``
    (Cancel) on top, scrolled into view once per ``scroll_nonce`` (the page may have been
    scrolled down to the plan's Approve button), then the trace, open, filled as events
    arrive. Returns when the job is done, after ``at_end`` drew in the top block's place
    (the finished answer: drawn by the script run that saw the end, it reaches the screen
    before the page is drawn again around it; a browser on two busy cores took 1-2 s to
    lay out a whole page of step cards before the answer's buttons showed)."""
    with st.container(key=LIVE_TOP):
        top = st.empty()
        with top.container():
            with st.container(border=True):
                st.subheader("Answer")
                st.caption("The answer appears here when the research is done; follow the "
                           "steps in the trace below.")
                ticker = st.empty()
            if actions is not None:
                actions()
    if scroll_nonce:
        scroll_to(LIVE_TOP, scroll_nonce, key=f"{key}_scroll")
    with st.expander(trace_label(None, live=True), expanded=True, key=f"{key}_trace_live"):
        view = RunView(key=f"{key}_view", graph=graph, offline=offline, live=True,
                       t0=job.started, answer_slot=st.empty(), on_answer=lambda e: None)
        seen = list(earlier)  # a page re-attached mid-run: its record holds some job events
        view.add_all(seen)
        follow(job, _Unseen(view, seen), ticker, plan_steps=plan_steps)
    if at_end is not None:
        with top.container():
            at_end()


class _Unseen:
    """``view`` fed only the job's events that the record's saved events do not hold."""

    def __init__(self, view: RunView, seen: Sequence[Any]):
        self.view, self.seen = view, list(seen)

    def add(self, event: Any) -> None:
        if event not in self.seen:
            self.view.add(event)

    def refresh(self) -> None:
        self.view.refresh()


def record_answer(record: Any, *, key: str, beside: bool = False,
                  root: services.Services | None = None) -> None:
    """The saved answer of ``record`` with its citations (the Compare and baseline views),
    read in the corpus of ``root`` (the analyst's when None)."""
    answer = record.answer
    if answer is None:
        st.info("This run has no answer.")
        return
    cited_answer(answer.text, [c.model_dump() for c in answer.citations], key=key, record=record,
                 beside=beside, root=root,
                 stop_reason=record.stop_reason.code if record.stop_reason else "",
                 source=answer.source, invalid_markers=answer.invalid_markers,
                 not_found=answer.not_found, checks=[c.model_dump() for c in answer.checks])
