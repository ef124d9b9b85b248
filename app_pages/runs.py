"""Runs: find a past run (search, filters, tags), open it answer first, share, export, delete;
cancel research that is running now."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from components import keys, services
from components.compare_view import render_side
from components.exports import render_export_buttons
from components.run_screen import record_answer, render_finished
from components.text import md_escape, preview
from core.app import jobs, run_session
from core.app.cited import document_name
from core.app.run_index import STATUSES, delete_note, search, set_tags, summaries
from core.app.runs import delete_run, load_run, unreadable_runs
from core.foundation.errors import AppError

STATUS_BADGE = {"done": "green", "running": "blue", "review": "violet", "failed": "red",
                "cancelled": "orange", "discarded": "gray", "interrupted": "orange"}

st.title("Runs")
st.caption("Every research and baseline run is kept with its events, evidence and answer. Find "
           "one by its question, answer, company or tag; open it to read the answer and replay "
           "the research; share its link, export or delete it.")

app = services.current()  # the composition root of this run
settings, corpus = app.settings, app.corpus
svc = app.research
ss = st.session_state

# --- research running now ------------------------------------------------------------------
for job in jobs.active("research"):
    with st.container(border=True):
        c1, c2, c3 = st.columns([4, 1, 1], vertical_alignment="center")
        c1.markdown(f"**Researching now** · run {job.id} · {job.seconds:.0f} s · "
                    f"{sum(e.type == 'step_started' for e in job.events)} step(s) started"
                    + (" · cancelling…" if job.cancel_requested else ""))
        c2.page_link("app_pages/research.py", query_params={"thread": job.id}, label="Watch")
        c3.button("Cancel", key=f"runs_cancel_{job.id}", on_click=run_session.cancel,
                  args=(job.id,), disabled=job.cancel_requested)

names = {d.doc_id: d.company for d in corpus.documents() if d.company != "unknown"}
rows = summaries(settings, doc_names=names, running=[j.id for j in jobs.active("research")],
                 waiting=[r.id for r in svc.paused_runs()])
unreadable = unreadable_runs(settings)
if unreadable:
    st.warning(f"{len(unreadable)} run record(s) cannot be read (truncated or corrupt) and are "
               f"not listed: {md_escape(', '.join(unreadable[:5]))}. `python -m core doctor "
               "--repair` moves them to runs/quarantine/.")
if not rows:
    with st.container(border=True):
        st.subheader("No runs yet")
        st.write("Ask a question on the Research page: the run appears here once it is planned.")
        st.page_link("app_pages/research.py", label="Go to Research")
    st.stop()

# --- search and filters ----------------------------------------------------------------------
query = st.text_input("Search runs", key=keys.RUNS_SEARCH,
                      placeholder="words from the question or the answer, a company, a tag…")
f1, f2, f3, f4, f5 = st.columns(5)
companies = f1.multiselect("Company", sorted({c for r in rows for c in r.companies}),
                           key=keys.RUNS_COMPANIES)
statuses = f2.multiselect("Status", [s for s in STATUSES if any(r.status == s for r in rows)],
                          key=keys.RUNS_STATUSES)
backends = f3.multiselect("Backend", sorted({r.backend for r in rows}), key=keys.RUNS_BACKENDS)
tags = f4.multiselect("Tag", sorted({t for r in rows for t in r.tags}), key=keys.RUNS_TAGS)
dates = f5.date_input("Dates", value=[], key=keys.RUNS_DATES, format="YYYY-MM-DD",
                      help="Runs started from the first to the last day picked (UTC); empty: "
                           "any day.")
picked = list(dates) if isinstance(dates, tuple | list) else [dates]
since, until = (picked + [None, None])[:2]
until = until or since
found = search(rows, text=query, companies=companies, statuses=statuses, backends=backends,
               tags=tags, since=since, until=until)
st.caption(f"{len(found)} of {len(rows)} run(s)")
if not found:
    st.info("No run matches: change the search or clear a filter.")
    st.stop()
st.dataframe(pd.DataFrame([{
    "date": r.created.replace("T", " ")[:16], "status": r.status, "kind": r.kind,
    "question": preview(r.question, 90), "answer": preview(r.answer_preview, 140),
    "companies": ", ".join(r.companies), "tags": ", ".join(r.tags), "backend": r.backend,
    "seconds": round(r.seconds, 1), "id": r.id} for r in found]),
    hide_index=True, width="stretch",
    column_config={"answer": st.column_config.TextColumn(width="large"),
                   "question": st.column_config.TextColumn(width="medium")})

# --- one run -------------------------------------------------------------------------------
by_id = {r.id: r for r in found}
wanted = st.query_params.get("run")
# The address is followed whenever it names another run than the one this page last wrote
# there (a shared link, or Back to an earlier run); else the run picked below is kept.
if wanted and wanted != ss.get("runs_url_written"):
    if wanted in by_id:
        ss[keys.RUNS_OPEN] = wanted
    elif not any(r.id == wanted for r in rows):  # not merely filtered out: no such run
        st.warning(f"There is no run {md_escape(preview(wanted, 60))} in this data folder (the "
                   "link may be wrong or the run deleted); the latest run is shown instead.")
gone = ss.get(keys.RUNS_OPEN)
if gone and gone not in by_id and not any(r.id == gone for r in rows):
    st.warning(f"The run you had open ({md_escape(preview(gone, 60))}) was deleted elsewhere "
               "(another window or process); another run is shown now: check which one before "
               "exporting or deleting.")
    ss[keys.RUNS_CONFIRM_DELETE] = None
if ss.get(keys.RUNS_OPEN) not in by_id:
    ss[keys.RUNS_OPEN] = found[0].id
run_id = st.selectbox(
    "Open a run", list(by_id), key=keys.RUNS_OPEN,
    format_func=lambda i: f"{by_id[i].created[:16].replace('T', ' ')} · {by_id[i].kind} · "
                          f"{by_id[i].status} · {preview(by_id[i].question, 80)}")
if wanted != run_id:  # one history entry per run opened, none per rerun
    st.query_params["run"] = run_id
ss["runs_url_written"] = run_id
row = by_id[run_id]
try:
    record = load_run(settings, run_id)
except AppError as exc:
    st.error(md_escape(str(exc)))
    st.stop()

st.divider()
head, badge = st.columns([6, 1], vertical_alignment="center")
head.subheader(md_escape(preview(record.question, 160)))
badge.badge(row.status, color=STATUS_BADGE.get(row.status, "gray"))
u = record.total_usage
st.caption(f"{record.kind} run · {md_escape(record.backend)} · {record.wall_s:.1f} s · "
           f"{u.calls} LLM calls ({u.cache_hits} cached) · {u.total:,} tokens · "
           f"{md_escape(', '.join(row.companies) or 'no filing cited')} · id {record.id}")
if row.error and row.status in ("cancelled", "failed", "discarded"):
    st.warning(md_escape(row.error))

c1, c2, ch, c3, c4, c5 = st.columns([1, 1, 1, 1, 1, 2])
render_export_buttons(c1, c2, record, settings, "runs",
                      {d.doc_id: document_name(d) for d in corpus.documents()}, html_col=ch)
if c3.button("Delete run", key="runs_delete"):
    ss[keys.RUNS_CONFIRM_DELETE] = record.id
if row.status == "review":
    c4.page_link("app_pages/research.py", query_params={"thread": record.id},
                 label="Review the plan")
elif row.status == "running":
    c4.button("Cancel the run", key="runs_cancel_open", on_click=run_session.cancel,
              args=(record.id,))
elif row.status == "interrupted" and svc.can_continue(record.id):
    if c4.button("Continue the run", key="runs_continue", type="primary",
                 help="Go on from the last checkpoint saved before the interruption."):
        try:
            run_session.continue_run(svc, settings, record.id)
        except AppError as exc:
            st.error(md_escape(str(exc)))
        else:
            st.switch_page("app_pages/research.py", query_params={"thread": record.id})
elif record.kind == "deep":
    c4.page_link("app_pages/research.py", query_params={"thread": record.id},
                 label="Open in Research")
with c5.popover("Share this run"):
    st.caption("Anyone using this app's data folder can open the run with this link:")
    st.code(f"{services.app_url()}/runs?run={record.id}", language=None)


def _save_tags() -> None:
    set_tags(settings, run_id, ss.get(f"runs_tags_{run_id}") or [])


st.multiselect("Tags", sorted({t for r in rows for t in r.tags} | set(row.tags)),
               default=row.tags, key=f"runs_tags_{run_id}", accept_new_options=True,
               on_change=_save_tags, placeholder="Add a tag (type and press Enter)",
               help="Tags are saved with the run and can be searched and filtered.")

if ss.get(keys.RUNS_CONFIRM_DELETE) == record.id:
    st.warning("Delete this run record? Its export is the only copy afterwards.")
    yes, no, _ = st.columns([1, 1, 4])
    if yes.button("Yes, delete", type="primary", key="runs_delete_yes"):
        delete_run(settings, record.id)
        delete_note(settings, record.id)
        ss[keys.RUNS_CONFIRM_DELETE] = None
        ss.pop(keys.RUNS_OPEN, None)
        st.query_params.pop("run", None)
        ss[keys.APP_FLASH].append(("success", "Run deleted."))
        st.rerun()
    if no.button("Cancel", key="runs_delete_no"):
        ss[keys.RUNS_CONFIRM_DELETE] = None
        st.rerun()

if record.kind == "baseline":
    render_side(record, title="Baseline RAG",
                subtitle="Fixed 1000-character chunks · vector top-3 · one LLM call",
                key=f"runs_cite_{record.id}",
                draw_answer=lambda r: record_answer(r, key=f"runs_cite_{r.id}", beside=True))
elif not record.events:
    st.info("This run has no recorded events.")
else:
    render_finished(record, key=f"replay_{record.id}", offline=record.backend == "offline engine")
