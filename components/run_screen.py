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
    answered); this session's own measurements fill in while the record has none."""
    parts = [f"Run {thread_id}"]
    ran = getattr(record, "backend", "") if record is not None and getattr(
        record, "wall_s", 0) else ""
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


def trace_label(record: Any, live: bool = False) -> str:
    """'Research trace · 3 steps · 1 revision · 0 LLM calls · 9.3 s'."""
    if live:
        return "Research trace (live): plan, graph, each step's evidence"
    steps = len({h.step for h in record.history}) if record and record.history else 0
    revisions = len(record.revisions) if record else 0
    calls = record.total_usage.calls if record else 0
    secs = f" · {record.wall_s:.1f} s" if record and record.wall_s else ""
    return (f"Research trace · {steps} step(s) · {revisions} revision(s) · {calls} LLM "
            f"call(s){secs}: plan, graph, each step's query, evidence and decision")


def render_finished(record: Any, *, key: str, graph=None, offline: bool = True,
                    actions: Callable[[], None] | None = None, beside: bool = True) -> None:
    """A saved run: answer first, then ``actions`` (buttons), then the collapsed trace."""
    answer_area = st.container()
    actions_area = st.container()

    def on_answer(e) -> None:
        cited_answer(e.answer, e.citations, key=f"{key}_cite", record=record, beside=beside,
                     event=e, stop_reason=e.stop_reason, stop_message=e.stop_message,
                     source=e.source, invalid_markers=e.invalid_markers, not_found=e.not_found,
                     checks=getattr(e, "checks", []))

    with st.expander(trace_label(record), expanded=False, key=f"{key}_trace"):
        view = RunView(key=f"{key}_view", graph=graph, offline=offline, wall_s=record.wall_s,
                       answer_slot=answer_area, on_answer=on_answer)
        view.add_all(record.events)
    if not any(getattr(e, "type", "") == "answer_ready" for e in record.events):
        with answer_area, st.container(border=True):
            st.subheader("Answer")
            st.info("This run has no answer" + (f": {record.error}" if record.error else "."))
    if actions is not None:
        with actions_area:
            actions()


def render_live(job, earlier: Sequence[Any], *, key: str, graph=None, offline: bool = True,
                plan_steps: int = 0, actions: Callable[[], None] | None = None) -> None:
    """A run researching now: a progress line where the answer will be, ``actions`` (Cancel),
    then the trace, open, filled as events arrive. Returns when the job is done."""
    answer_area = st.container()
    actions_area = st.container()
    with answer_area, st.container(border=True):
        st.subheader("Answer")
        st.caption("The answer appears here when the research is done; follow the steps in "
                   "the trace below.")
        ticker = st.empty()
    if actions is not None:
        with actions_area:
            actions()
    with st.expander(trace_label(None, live=True), expanded=True, key=f"{key}_trace_live"):
        view = RunView(key=f"{key}_view", graph=graph, offline=offline, live=True,
                       t0=job.started, answer_slot=st.empty(), on_answer=lambda e: None)
        view.add_all(earlier)
        follow(job, view, ticker, plan_steps=plan_steps)


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
