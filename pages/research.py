"""Research: ask, review and edit the plan, watch the agent work, read the cited answer.

The run's thread id is mirrored in the URL (``?thread=...``): after a browser
refresh a paused run comes back from the SQLite checkpointer, a finished one
from its run record.
"""

from __future__ import annotations

import time

import streamlit as st

from components import jobs, keys, services
from components.citation_view import citation_opener
from components.entry_guard import ensure_entry_ran
from components.exports import render_export_buttons
from components.plan_editor import frame_to_plan, plan_to_frame, render_plan_editor
from components.run_view import RunView
from components.text import md_escape, preview
from core.agent.plan_edit import normalise_plan
from core.errors import AppError, PlanValidationError
from core.runs import load_run

ensure_entry_ran()

WALKTHROUGH = ("Based on {company}'s 10-K, identify their key risks related to competition. "
               "Then, find recent news from 2024 about AMD's AI chip strategy and explain how it "
               "addresses or exacerbates one of those risks.")

st.title("Research")
st.caption(
    "Ask a question one search cannot answer. The agent proposes a plan you can edit; then, for "
    "every step, it rewrites the query, picks a retrieval strategy, reranks, distils, reflects, "
    "and its policy decides to continue, revise or finish. The answer cites its evidence."
)

settings = services.session_settings()
corpus = services.corpus()
docs = corpus.documents()
svc = services.research_service(settings)
ss = st.session_state


def _reset(clear_url: bool = True) -> None:
    for k in (keys.RES_THREAD, keys.RES_PLAN_DF, keys.RES_ERROR, keys.RES_TIMINGS,
              keys.RES_APPROVED, keys.RES_PROPOSAL):
        ss.pop(k, None)
    ss[keys.RES_PHASE] = "idle"
    ss[keys.RES_EVENTS] = []
    if clear_url:
        st.query_params.pop("thread", None)


def _enter_review(thread_id: str, question: str, plan, events) -> None:
    ss[keys.RES_THREAD] = thread_id
    ss[keys.RES_QUESTION_SHOWN] = question
    ss[keys.RES_PLAN_DF] = plan_to_frame(plan)
    ss[keys.RES_PLAN_VERSION] += 1
    ss[keys.RES_EVENTS] = list(events)
    ss[keys.RES_PROPOSAL] = next((e for e in events if e.type == "plan_proposed"), None)
    ss[keys.RES_PHASE] = "review"
    st.query_params["thread"] = thread_id


def _restore(thread_id: str) -> None:
    """Bring back the run named in the URL (after a refresh or from a shared link)."""
    _reset(clear_url=False)
    try:
        plan = svc.pending_plan(thread_id)
    except AppError:
        plan = None
    try:
        record = load_run(settings, thread_id)
    except AppError:
        record = None
    if plan is not None:
        question = record.question if record else ""
        _enter_review(thread_id, question, plan, record.events if record else [])
    elif record is not None:
        ss[keys.RES_THREAD] = thread_id
        ss[keys.RES_QUESTION_SHOWN] = record.question
        ss[keys.RES_EVENTS] = list(record.events)
        job = jobs.get(thread_id)
        if job is not None and not job.done:
            ss[keys.RES_PHASE] = "running"  # still researching in this server: re-attach
        else:
            ss[keys.RES_PHASE] = "done"
            if record.status not in ("done", "failed") and job is None:
                ss[keys.RES_ERROR] = ("This run was interrupted while it ran (the server "
                                      "stopped); the events saved before that are shown.")
    else:
        ss[keys.RES_ERROR] = f"No run {thread_id} in this data folder; ask a new question."
        st.query_params.pop("thread", None)


url_thread = st.query_params.get("thread")
if url_thread and url_thread != ss.get(keys.RES_THREAD):
    _restore(url_thread)

phase = ss[keys.RES_PHASE]
if ss.get(keys.RES_ERROR):
    st.warning(md_escape(ss[keys.RES_ERROR]))

# --- ask -------------------------------------------------------------------------------
if phase == "idle":
    if not docs:
        st.info("The corpus is empty: load the sample filing or your own in the Library first. "
                "Web-only questions still work with the web snapshot.")
        st.page_link("pages/library.py", label="Go to the Library")
    paused = [r for r in svc.paused_runs() if r.id != ss.get(keys.RES_THREAD)][:3]
    if paused:
        with st.container(border=True):
            st.markdown("**Plans waiting for your review**")
            for r in paused:
                when = r.created[:16].replace("T", " ")
                st.page_link("pages/research.py", query_params={"thread": r.id},
                             label=f"{when} · {md_escape(preview(r.question, 90))}")
    company = next((d.company for d in docs if d.company != "unknown"), "the company")
    if st.button("Use the walk-through question", key="res_example",
                 help="Competition risks from the filing, then 2024 news about AMD."):
        ss[keys.RES_QUESTION] = WALKTHROUGH.format(company=company)
    by_id = {d.doc_id: d for d in docs}
    with st.form("res_ask_form"):
        question = st.text_area(
            "Question", key=keys.RES_QUESTION, height=110,
            placeholder="e.g. What are the key competition risks, and how does recent news "
                        "about a rival's strategy affect one of them?",
        )
        scope = st.multiselect(
            "Limit to documents (optional)", list(by_id), key=keys.RES_SCOPE,
            format_func=lambda i: f"{by_id[i].company} {by_id[i].form_type} {by_id[i].period}",
            help="Empty: search every filing in the corpus.",
        )
        asked = st.form_submit_button("Ask", type="primary")
    if asked:
        t0 = time.perf_counter()
        try:
            with st.spinner("Planning…"):
                thread_id, plan, events = svc.start(question, scope or None)
        except AppError as exc:
            st.error(md_escape(str(exc)))
        else:
            _enter_review(thread_id, question.strip(), plan, events)
            ss[keys.RES_TIMINGS] = {"plan_s": time.perf_counter() - t0}
            st.rerun()
    st.stop()

# --- a run is on screen ----------------------------------------------------------------
thread_id = ss[keys.RES_THREAD]
top, new_col = st.columns([5, 1], vertical_alignment="center")
top.markdown(f"**Question:** {md_escape(ss.get(keys.RES_QUESTION_SHOWN, ''))}")
if new_col.button("New question", key="res_new", width="stretch"):
    _reset()
    st.rerun()
st.caption(f"Run {thread_id} · backend: {md_escape(services.describe_llm(settings))}")
timings = ss.get(keys.RES_TIMINGS) or {}

if phase == "review":
    proposal = ss.get(keys.RES_PROPOSAL)
    src = "the offline engine" if not proposal or proposal.source == "offline" else "the LLM"
    took = f" in {timings['plan_s']:.2f} s" if "plan_s" in timings else ""
    st.subheader("Review the plan")
    st.caption(f"Proposed by {src}{took}. Edit any cell; add a step in the empty last row; delete "
               "steps by ticking their row and pressing the bin icon above the table; change # to "
               "reorder. Section choices are the corpus's real sections.")
    st.space("small")
    for note in getattr(proposal, "notes", []) or []:
        st.caption(f"ℹ️ {md_escape(note)}")
    sections = services.all_sections(corpus)
    edited = render_plan_editor(
        ss[keys.RES_PLAN_DF], sections=sections,
        key=f"{keys.RES_PLAN_EDITOR}_{thread_id}_{ss[keys.RES_PLAN_VERSION]}",
    )
    web_ok = getattr(services.web_search(settings), "name", "none") != "none"
    steps, problems = frame_to_plan(edited, corpus.store.sections(), web_available=web_ok,
                                    max_steps=settings.max_steps)
    if problems:
        st.error("The plan cannot run yet:\n" + "\n".join(f"- {md_escape(p)}" for p in problems))
    else:
        tools = sorted({s.tool.replace("_", " ") for s in steps})
        st.caption(f"✓ {len(steps)} step(s) ready to run ({', '.join(tools)}).")
    a, r, d, _ = st.columns([2, 1, 1, 3])
    approve = a.button("Approve and run", type="primary", disabled=bool(problems),
                       key="res_approve", width="stretch")
    if r.button("Reset plan", key="res_reset_plan", width="stretch"):
        ss[keys.RES_PLAN_VERSION] += 1
        st.rerun()
    if d.button("Discard", key="res_discard", width="stretch"):
        svc.discard(thread_id)
        _reset()
        st.rerun()
    if approve:
        proposed = normalise_plan(list(proposal.plan)) if proposal else None
        unchanged = proposed is not None and [s.model_dump() for s in steps] == [
            s.model_dump() for s in proposed]
        ss[keys.RES_APPROVED] = None if unchanged else steps  # None: approved as proposed
        ss[keys.RES_PHASE] = "running"
        st.rerun()
    st.stop()

offline = services.llm(settings) is None
graph = services.graph_structure(svc)
open_citation = citation_opener(corpus, thread_id, settings)

if phase == "running":
    job = jobs.get(thread_id)
    if job is None:
        try:
            stream = svc.resume(thread_id, ss.get(keys.RES_APPROVED))
        except PlanValidationError as exc:
            ss[keys.RES_PHASE] = "review"
            ss[keys.RES_ERROR] = "The plan was rejected: " + "; ".join(exc.problems)
            st.rerun()
        except AppError as exc:
            ss[keys.RES_ERROR] = str(exc)
            ss[keys.RES_PHASE] = "done"
            st.rerun()
        job = jobs.start(stream, thread_id)
    st.subheader("Research in progress")
    ticker = st.empty()
    view = RunView(key=f"run_{thread_id}", graph=graph, offline=offline, live=True,
                   open_citation=open_citation, t0=job.started)
    view.add_all(ss[keys.RES_EVENTS])
    jobs.follow(job, view, ticker)
    timings["answer_s"] = job.seconds
    ss[keys.RES_TIMINGS] = timings
    ss[keys.RES_PHASE] = "done"
    ss[keys.RES_ERROR] = job.error
    jobs.forget(thread_id)
    st.rerun()

# --- done: replay the saved record -------------------------------------------------------

try:
    record = load_run(settings, thread_id)
except AppError as exc:
    st.error(md_escape(str(exc)))
    st.stop()
if timings:
    parts = [f"{label} {timings[k]:.2f} s" for k, label in
             (("plan_s", "plan on screen in"), ("answer_s", "answered in")) if k in timings]
    st.caption(" · ".join(parts))
view = RunView(key=f"run_{thread_id}", graph=graph, offline=offline,
               open_citation=open_citation, wall_s=record.wall_s)
view.add_all(record.events)
if record.error:
    st.error(md_escape(record.error))

st.divider()
c1, c2, c3, _ = st.columns([1, 1, 1, 2])
render_export_buttons(c1, c2, record, settings, "res")
if c3.button("Compare with baseline", key="res_compare"):
    ss[keys.CMP_QUESTION] = record.question
    ss[keys.CMP_DEEP_RUN] = record.id
    st.switch_page("pages/compare.py")
