"""Research: ask, review and edit the plan step by step, watch the agent work, read the answer.

The run on screen is the one named in the URL (``?thread=...``), so a refresh or a
shared link brings it back; what the run *is* now (its ``Phase``: under review with the
saved draft, researching, finished, cancelled, discarded) and every change of it (start,
draft save and reset, approve, cancel, continue, discard) go through
``core.app.run_session``; the page draws the phase.
"""

from __future__ import annotations

import time

import streamlit as st

from components import keys, services
from components.conversation_view import follow_up_box, render_thread
from components.exports import render_export_buttons
from components.plan_form import PlanForm
from components.reading_form import render_reading
from components.run_screen import (
    agent_caption,
    finished_answer,
    plan_origin,
    render_finished,
    render_live,
    run_caption,
)
from components.text import md_escape, preview
from core.app import conversation, jobs, research_prefs, run_session
from core.app.cited import document_name
from core.app.plan_draft import plan_problems, supports_dependencies
from core.app.run_session import Phase
from core.foundation.errors import AppError, PlanValidationError

WALKTHROUGH = ("Based on {company}'s 10-K, identify their key risks related to competition. "
               "Then, find recent news from 2024 about AMD's AI chip strategy and explain how it "
               "addresses or exacerbates one of those risks.")

app = services.current()  # the composition root of this run
st.title("Research")
st.caption(agent_caption(app.reranker.info.kind))
settings, corpus = app.settings, app.corpus
docs = corpus.documents()
svc = app.research
ss = st.session_state
names = {d.doc_id: document_name(d) for d in docs}


def _open(thread_id: str | None) -> None:
    ss.pop(keys.RES_ASKING, None)
    ss[keys.RES_THREAD] = thread_id
    if thread_id:
        st.query_params["thread"] = thread_id
    else:
        st.query_params.pop("thread", None)


def _timings(thread_id: str) -> dict:
    return ss[keys.RES_TIMINGS].setdefault(thread_id, {})


def _always_review() -> bool:
    """The saved "Always review the plan" (the checkbox's state is dropped by Streamlit
    whenever the ask form is not on screen: the data folder keeps it)."""
    return research_prefs.always_review(settings)


thread = st.query_params.get("thread") or None
if thread != ss.get(keys.RES_THREAD):
    ss[keys.RES_THREAD] = thread
if ss.get(keys.RES_ERROR):
    st.warning(md_escape(ss.pop(keys.RES_ERROR)))

# --- ask -------------------------------------------------------------------------------
# "New question" draws the form over the open run's link instead of changing the link: a
# new link there was one more history entry, so Back from the next run needed two presses
# to reach this one (the form between them).
if not thread or ss.get(keys.RES_ASKING) == thread:
    ingesting = jobs.active("ingest")
    if ingesting:
        st.info("Filings are being ingested: " + md_escape(ingesting[0].progress.line())
                + ". They can be searched as soon as each one is done.")
    elif not docs:
        st.info("The corpus is empty: load the sample filing or your own in the Library first. "
                "Web-only questions still work with the web snapshot.")
        st.page_link("app_pages/library.py", label="Go to the Library")
    running = jobs.active("research")
    paused = svc.paused_runs()[:3]
    if running or paused:
        with st.container(border=True):
            for job in running:  # buttons: a page link to this page left the address stale
                st.button(f"Researching now ({job.seconds:.0f} s) · run {job.id}",
                          type="tertiary", key=f"res_open_{job.id}", on_click=_open,
                          args=(job.id,))
            if paused:
                st.markdown("**Plans waiting for your review**")
            for r in paused:
                when = r.created[:16].replace("T", " ")
                st.button(f"{when} · {md_escape(preview(r.question, 90))}", type="tertiary",
                          key=f"res_open_{r.id}", on_click=_open, args=(r.id,))
    company = next((d.company for d in docs if d.company != "unknown"), "the company")
    if st.button("Use the walk-through question", key="res_example",
                 help="Competition risks from the filing, then 2024 news about AMD."):
        ss[keys.RES_QUESTION] = WALKTHROUGH.format(company=company)
    with st.form("res_ask_form"):
        question = st.text_area(
            "Question", key=keys.RES_QUESTION, height=110,
            placeholder="e.g. What are the key competition risks, and how does recent news "
                        "about a rival's strategy affect one of them?",
        )
        scope = st.multiselect(
            "Limit to filings (optional)", list(names), key=keys.RES_SCOPE,
            format_func=lambda i: names.get(i, i),
            help="Empty: the agent picks filings from the companies and years you name.",
        )
        if keys.RES_ALWAYS_REVIEW not in ss:
            ss[keys.RES_ALWAYS_REVIEW] = _always_review()
        always = st.checkbox(
            "Always review the plan (also on the fast path)", key=keys.RES_ALWAYS_REVIEW,
            help="A simple factual ask takes the fast path: one step, no review. Kept for "
                 "your next questions (saved in the data folder).")
        asked = st.form_submit_button("Ask", type="primary")
    if asked:
        if always != _always_review():
            research_prefs.save_always_review(settings, always)
        t0 = time.perf_counter()
        try:
            with st.spinner("Planning…"):
                new_thread = run_session.start(svc, question, scope, always_review=always)
        except AppError as exc:
            st.error(md_escape(str(exc)))
        else:
            _timings(new_thread)["plan_s"] = time.perf_counter() - t0
            _open(new_thread)
            st.rerun()
    st.stop()

# --- a run is on screen ----------------------------------------------------------------
session = run_session.open_run(svc, settings, thread)
render_thread(conversation.earlier(settings, session.record),
              conversation.carried_line(session.record), on_open=_open)
top, new_col = st.columns([5, 1], vertical_alignment="center")
top.markdown(f"**Question:** {md_escape(session.question)}")
if new_col.button("New question", key="res_new", width="stretch"):
    ss[keys.RES_ASKING] = thread
    st.rerun()
timings = _timings(thread)
st.caption(md_escape(run_caption(session.thread_id, session.record, timings,
                                 app.describe_llm())))
offline = app.llm is None
graph = services.graph_structure(svc)


def _review() -> None:
    proposal = session.proposal
    draft = ss.get(keys.RES_DRAFT)
    if not draft or draft["thread"] != thread:  # the widgets edit this copy in place
        draft = {"thread": thread,
                 "restored": session.draft_saved_at if session.restored else "",
                 "steps": session.editable_steps()}
        ss[keys.RES_DRAFT] = draft
        ss[keys.RES_PLAN_VERSION] += 1
    steps = draft["steps"]
    src = plan_origin(proposal, session.record)
    took = f" in {timings['plan_s']:.2f} s" if "plan_s" in timings else ""
    st.subheader("Review the plan")
    st.caption(f"Proposed by {src}{took}. Edit any step; your edits are saved with the run as you "
               "make them (a refresh keeps them). Approve to start the research.")
    if draft["restored"]:
        st.info(f"Your edits of this plan (saved {draft['restored'].replace('T', ' ')[:19]} "
                "UTC) were restored. Reset the plan to go back to the proposal.")
    reading = ss.setdefault(keys.RES_READING, {}).get(thread) or \
        getattr(proposal, "reading", None)

    def apply_reading(edited) -> str | None:
        try:
            draft["steps"] = run_session.corrected_plan(svc, steps, edited)
        except AppError as exc:
            return str(exc)
        ss[keys.RES_READING][thread] = edited
        run_session.save_draft(settings, thread, draft["steps"])
        ss[keys.RES_PLAN_VERSION] += 1
        st.rerun()
        return None

    render_reading(reading, docs, key=f"reading_{thread}", apply=apply_reading)
    for note in getattr(proposal, "notes", []) or []:
        st.caption(f"ℹ️ {md_escape(note)}")
    web_ok = getattr(app.web, "name", "none") != "none"
    sections = corpus.store.sections()
    problems = plan_problems(steps, sections, web_available=web_ok, max_steps=settings.max_steps)
    form = PlanForm(steps, key=f"plan_{thread}_{ss[keys.RES_PLAN_VERSION]}", documents=docs,
                    sections=sections, dependencies=supports_dependencies(), store=corpus.store,
                    save=lambda d: run_session.save_draft(settings, thread, d))
    form.render(problems)
    for p in problems.get(None, []):
        st.error(md_escape(p))
    if not problems:
        tools = sorted({s.tool.replace("_", " ") for s in steps})
        st.caption(f"✓ {len(steps)} step(s) ready to run ({', '.join(tools)}).")
    a, r, d, _ = st.columns([2, 1, 1, 3])
    approve = a.button("Approve and run", type="primary", disabled=bool(problems),
                       key="res_approve", width="stretch")
    if r.button("Reset plan", key="res_reset_plan", width="stretch",
                help="Back to the plan as proposed (your edits are dropped)."):
        run_session.reset_draft(settings, thread)
        ss.pop(keys.RES_DRAFT, None)
        ss[keys.RES_READING].pop(thread, None)
        st.rerun()
    if d.button("Discard", key="res_discard", width="stretch",
                help="Forget this plan; the run is kept as discarded in Runs."):
        run_session.discard(svc, settings, thread)
        ss.pop(keys.RES_DRAFT, None)
        ss[keys.APP_FLASH].append(("info", "Plan discarded (kept as 'discarded' in Runs)."))
        _open(None)
        st.rerun()
    if approve:
        try:
            run_session.approve_edits(svc, settings, session, steps,
                                      reading=ss[keys.RES_READING].get(thread))
        except PlanValidationError as exc:
            st.error("The plan was rejected: " + md_escape("; ".join(exc.problems)))
            return
        except AppError as exc:
            st.error(md_escape(str(exc)))
            return
        ss.pop(keys.RES_DRAFT, None)
        st.rerun()


def _cancel_button() -> None:
    st.button("Cancel the run", key="res_cancel", on_click=run_session.cancel, args=(thread,),
              help="Stop after the current stage; what was researched so far is kept in Runs.")


def _finished_actions(record) -> None:
    row = st.container(horizontal=True, key="res_actions")  # each button as wide as its words
    render_export_buttons(row, row, record, settings, "res", names, html_col=row)
    if row.button("Compare with baseline", key="res_compare"):
        ss[keys.CMP_QUESTION] = record.question
        ss[keys.CMP_DEEP_RUN] = record.id
        st.switch_page("app_pages/compare.py")
    with row.popover("Share this run"):
        st.caption("Anyone using this app's data folder can open the run with this link:")
        st.code(f"{services.app_url()}/?thread={record.id}", language=None)


def _answer_at_end() -> None:
    """Where the live run's progress line was, as soon as the run ends: its saved answer and
    buttons (the page is then drawn again around them, the trace collapsed)."""
    ended = run_session.open_run(svc, settings, thread)
    if ended.phase is Phase.DONE and ended.record is not None:
        finished_answer(ended.record, key=f"run_{thread}",
                        actions=lambda: _finished_actions(ended.record))


def _follow_up(record) -> None:
    """The follow-up box under a finished answer: its run follows this one."""
    text = follow_up_box()
    if text is None:
        return
    t0 = time.perf_counter()
    try:
        with st.spinner("Planning the follow-up…"):
            new_thread, _ = conversation.ask_follow_up(
                svc, text, record, record.doc_scope, always_review=_always_review())
    except AppError as exc:
        st.error(md_escape(str(exc)))
        return
    _timings(new_thread)["plan_s"] = time.perf_counter() - t0
    _open(new_thread)
    st.rerun()


def _phase() -> None:
    if session.phase is Phase.REVIEW:
        _review()
    elif session.phase is Phase.RUNNING:
        plan_steps = len(session.record.plan) if session.record else 0
        render_live(session.job, session.events, key=f"run_{thread}", graph=graph,
                    offline=offline, plan_steps=plan_steps, actions=_cancel_button,
                    scroll_nonce=thread, at_end=_answer_at_end)
        timings["answer_s"] = session.job.seconds
        if session.job.error:
            ss[keys.RES_ERROR] = f"The run stopped unexpectedly: {session.job.error}"
        st.rerun()
    elif session.phase in (Phase.DONE, Phase.CANCELLED, Phase.INTERRUPTED):
        if session.phase is not Phase.DONE:
            st.warning(md_escape(session.message))
        if session.resumable and st.button(
                "Continue the run", type="primary", key="res_continue",
                help="Go on from the last checkpoint saved before the interruption."):
            try:
                run_session.continue_run(svc, settings, thread)
            except AppError as exc:
                st.error(md_escape(str(exc)))
            else:
                st.rerun()
        record = session.record
        render_finished(record, key=f"run_{thread}", graph=graph, offline=offline,
                        actions=lambda: _finished_actions(record))
        if record.error and session.phase is Phase.DONE:
            st.error(md_escape(record.error))
        if session.phase is Phase.DONE:
            _follow_up(record)
    else:  # discarded, missing
        st.info(md_escape(session.message))


# The review in a slot of its own, every other phase in the next one: when Approve starts the
# run, the review's slot is emptied at once instead of its widgets staying on screen, greyed,
# until the script run ends (a live run's script run ends with the run). One slot for both
# would not do: a container drawn where one was inherits the old one's children.
review_slot, phase_slot = st.empty(), st.empty()
with (review_slot if session.phase is Phase.REVIEW else phase_slot).container():
    _phase()
