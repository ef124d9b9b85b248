"""Runs: past runs listed; open one to replay it exactly as it streamed; export; delete."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from components import keys, services
from components.citation_view import citation_opener
from components.compare_view import render_side, run_metrics
from components.entry_guard import ensure_entry_ran
from components.exports import render_export_buttons
from components.run_view import RunView
from components.text import md_escape, preview
from core.errors import AppError
from core.runs import delete_run, list_runs, load_run

ensure_entry_ran()

st.title("Runs")
st.caption("Every research run is saved with its events, evidence and answer. Open one to replay "
           "it step by step as it streamed; export it as Markdown or JSON.")

settings = services.session_settings()
ss = st.session_state
runs = list_runs(settings)

if not runs:
    with st.container(border=True):
        st.subheader("No runs yet")
        st.write("Ask a question on the Research page: the run appears here once it is planned.")
        st.page_link("pages/research.py", label="Go to Research")
    st.stop()


def _row(r) -> dict:
    return {
        "question": preview(r.question, 90),
        "date": r.created.replace("T", " ")[:19],
        "kind": r.kind,
        "status": r.status,
        "backend": r.backend,
        "steps": run_metrics(r)["steps"],
        "seconds": round(r.wall_s, 1),
        "LLM calls": r.total_usage.calls,
        "tokens": r.total_usage.total,
        "id": r.id,
    }


st.dataframe(pd.DataFrame([_row(r) for r in runs]), hide_index=True, width="stretch")

by_id = {r.id: r for r in runs}
if ss.get(keys.RUNS_OPEN) not in by_id:
    ss[keys.RUNS_OPEN] = runs[0].id
run_id = st.selectbox(
    "Open a run", list(by_id), key=keys.RUNS_OPEN,
    format_func=lambda i: f"{by_id[i].created[:16].replace('T', ' ')} · {by_id[i].kind} · "
                          f"{preview(by_id[i].question, 80)}",
)
try:
    record = load_run(settings, run_id)
except AppError as exc:
    st.error(md_escape(str(exc)))
    st.stop()

u = record.total_usage
st.subheader(md_escape(preview(record.question, 140)))
st.caption(f"{record.kind} run · {record.status} · {md_escape(record.backend)} · "
           f"{record.wall_s:.1f} s · {u.calls} LLM calls · {u.total:,} tokens · id {record.id}")

c1, c2, c3, c4 = st.columns([1, 1, 1, 2])
render_export_buttons(c1, c2, record, settings, "runs")
if c3.button("Delete run", key="runs_delete"):
    ss[keys.RUNS_CONFIRM_DELETE] = record.id
if record.status == "paused" and c4.button("Continue reviewing this plan", key="runs_resume"):
    st.switch_page("pages/research.py", query_params={"thread": record.id})

if ss.get(keys.RUNS_CONFIRM_DELETE) == record.id:
    st.warning("Delete this run record? Its export is the only copy afterwards.")
    yes, no, _ = st.columns([1, 1, 4])
    if yes.button("Yes, delete", type="primary", key="runs_delete_yes"):
        delete_run(settings, record.id)
        ss[keys.RUNS_CONFIRM_DELETE] = None
        ss.pop(keys.RUNS_OPEN, None)
        ss[keys.APP_FLASH].append(("success", "Run deleted."))
        st.rerun()
    if no.button("Cancel", key="runs_delete_no"):
        ss[keys.RUNS_CONFIRM_DELETE] = None
        st.rerun()

st.divider()
opener = citation_opener(services.corpus(), record.id, settings)
if record.kind == "baseline":
    render_side(record, title="Baseline RAG",
                subtitle="Fixed 1000-character chunks · vector top-3 · one LLM call",
                key=f"runs_cite_{record.id}", open_citation=opener)
elif not record.events:
    st.info("This run has no recorded events.")
else:
    view = RunView(key=f"replay_{record.id}", offline=record.backend == "offline engine",
                   wall_s=record.wall_s, open_citation=opener)
    view.add_all(record.events)
if record.error:
    st.error(md_escape(record.error))
