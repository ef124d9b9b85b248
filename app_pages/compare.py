"""Compare: the baseline (shallow RAG) and the deep agent on the same question, side by side.

The comparison runs as a background job (``core.app.compare_job``) named in the URL
(``?compare=<job>``), so a refresh re-attaches to its progress; the finished pair is
named in the URL too (``?baseline=<run>&deep=<run>``), so a refresh shows it again.
"""

from __future__ import annotations

import streamlit as st

from components import keys, services
from components.compare_view import render_diff, render_overall, render_side, render_verdicts
from components.jobs import follow_progress
from components.run_screen import record_answer
from components.text import md_escape, preview
from core.app import jobs
from core.app.compare_verdict import pair_problems
from core.app.runs import list_runs, load_run
from core.foundation.errors import AppError

NEW_RUN = "__new__"
Q_JOB, Q_BASE, Q_DEEP = "compare", "baseline", "deep"  # URL query parameters

st.title("Compare")
st.caption(
    "The walk-through's baseline (fixed-size chunks, vector top-3, one LLM call) beside the deep "
    "agent (plan, per-step retrieval, re-ranking when a re-ranker is active, reflection, "
    "policy), on the same question: "
    "answers, evidence, time, LLM calls and tokens."
)

app = services.current()  # the composition root of this run
settings, corpus = app.settings, app.corpus
ss = st.session_state
docs = corpus.documents()
if not docs:
    st.info("The corpus is empty: the baseline searches filings only. Load a filing first.")
    st.page_link("app_pages/library.py", label="Go to the Library")
    st.stop()

deep_runs = [r for r in list_runs(settings, status="done") if r.kind == "deep"]
by_id = {r.id: r for r in deep_runs}
preset = ss.get(keys.CMP_DEEP_RUN)
auto = preset in by_id  # arrived from Research's "Compare with baseline": run at once
if auto:
    ss[keys.CMP_QUESTION] = by_id[preset].question
    ss["cmp_deep_choice"] = preset
ss[keys.CMP_DEEP_RUN] = None



def _score(record) -> list:
    """Reference-free metrics of a run (core.evaluation), or [] when scoring fails."""
    from core.evaluation.judge import make_judge
    from core.evaluation.questions import EvalQuestion
    from core.evaluation.runner import score_record

    try:
        judge = make_judge(settings, corpus.embedder, llm=app.llm)
        found = score_record(EvalQuestion(question=record.question), record, [], judge)
    except Exception as exc:  # noqa: BLE001 - scores are extra; the comparison still shows
        st.warning(f"Could not score this answer: {md_escape(str(exc))}")
        return []
    return [found[k] for k in ("faithfulness", "citation_validity", "cited_sentences")
            if k in found]


def _run_label(run_id: str) -> str:
    if run_id == NEW_RUN:
        return "Run the deep agent now (plan approved as proposed)"
    r = by_id[run_id]
    return f"Saved run {r.created[:16].replace('T', ' ')} · {preview(r.question, 70)}"


with st.form("cmp_form"):
    question = st.text_area("Question", key=keys.CMP_QUESTION, height=90,
                            placeholder="The question both systems answer.")
    options = [NEW_RUN] + list(by_id)
    choice = st.selectbox(
        "Deep answer", options, key="cmp_deep_choice", format_func=lambda i: _run_label(i),
        help="Reuse a finished deep run (its question is used) or run the agent now.",
    )
    go = st.form_submit_button("Compare", type="primary")

def _start(deep_id: str | None, q: str) -> None:
    """Start the comparison as a background job; its id goes in the URL (a refresh
    re-attaches)."""
    from core.app import compare_job

    try:
        service = None if deep_id else app.research
        job = compare_job.start(q, settings=settings, store=corpus.store,
                                embedder=corpus.embedder, documents=docs,
                                llm=app.llm, service=service, deep_id=deep_id)
    except AppError as exc:
        st.error(md_escape(str(exc)))
        st.stop()
    for k in (Q_BASE, Q_DEEP):
        st.query_params.pop(k, None)
    st.query_params[Q_JOB] = job.id
    st.rerun()


def _follow(job_id: str) -> None:
    """Show a comparison job: progress while it runs, then its result (or what stopped it)."""
    job = jobs.get(job_id)
    if job is None:
        st.query_params.pop(Q_JOB, None)
        st.warning(f"There is no comparison {md_escape(preview(job_id, 60))} in this app: the "
                   "link may be wrong, or it was stopped by a server restart (the runs it "
                   "finished are on the Runs page). Press Compare to run it again.")
        return
    if job.running:
        with st.container(border=True):
            st.markdown(f"**Comparing:** {md_escape(job.label)}")
            bar = st.progress(0.0, text="Starting…")
            st.button("Cancel", key="cmp_cancel", on_click=jobs.cancel, args=(job.id,),
                      help="Stop at the next stage; the runs finished so far are kept.")
            lines = st.container()
            ticker = st.empty()
            follow_progress(job, bar, lines, ticker)
    st.query_params.pop(Q_JOB, None)
    if job.cancelled:
        st.info("Comparison cancelled; the runs finished before that are on the Runs page.")
        return
    if job.error:
        st.error(md_escape(job.error))
        return
    res = job.result
    ss[keys.CMP_RESULT] = {"baseline": res.baseline, "deep": res.deep, "setup_s": res.setup_s,
                           "setup_docs": res.setup_docs}
    st.query_params[Q_BASE], st.query_params[Q_DEEP] = res.baseline, res.deep
    st.rerun()


if go or auto:
    deep_id = None if choice == NEW_RUN else choice
    q = by_id[deep_id].question if deep_id else (question or "").strip()
    if not q:
        st.error("Type a question (or pick a saved deep run) first.")
        st.stop()
    _start(deep_id, q)

if st.query_params.get(Q_JOB):
    _follow(st.query_params[Q_JOB])
else:
    for running in jobs.active("compare"):
        st.page_link("app_pages/compare.py", query_params={Q_JOB: running.id},
                     label=f"Comparing now ({running.seconds:.0f} s) · "
                           f"{md_escape(preview(running.label, 80))}")

result = ss.get(keys.CMP_RESULT)
shown = (st.query_params.get(Q_BASE), st.query_params.get(Q_DEEP))
if all(shown) and (not result or (result["baseline"], result["deep"]) != shown):
    result = {"baseline": shown[0], "deep": shown[1]}  # a refresh or a link: the runs only
if not result:
    st.info("Pick a saved deep run or type a question, then press Compare. Finished runs from "
            "the Research page can be compared with one click there.")
    st.stop()

try:
    base = load_run(settings, result["baseline"])
    deep = load_run(settings, result["deep"])
except AppError as exc:
    st.error(md_escape(str(exc)))
    st.stop()

mismatch = pair_problems(base, deep)
if mismatch:  # a link naming any two runs: said, and no verdict drawn
    st.warning(md_escape(" ".join(mismatch)) + "\n\nNo verdict is given: compare a deep run "
               "with the baseline on its own question (pick the run above and press Compare).")
    st.stop()
st.markdown(f"**Question:** {md_escape(deep.question)}")
if result.get("setup_docs"):
    st.info(f"First-run setup: the baseline's own index of {result['setup_docs']} filing(s) was "
            f"built in {result['setup_s']:.1f} s. It is kept, and not counted in the baseline's "
            "answer time below.")
verdict_key = (base.id, deep.id)
if ss.get("cmp_verdicts", {}).get("ids") != verdict_key:
    from core.app.compare import answer_diff, headings_of, verdicts
    from core.app.compare_verdict import overall

    with st.spinner("Reading both answers…"):
        rows = verdicts(deep, base, corpus.embedder, docs)
        ss["cmp_verdicts"] = {
            "ids": verdict_key, "verdicts": rows, "overall": overall(deep, base, rows),
            "diff": answer_diff(deep.answer.text if deep.answer else "",
                                base.answer.text if base.answer else "", corpus.embedder,
                                headings_of(deep))}
render_verdicts(ss["cmp_verdicts"]["verdicts"])
render_diff(ss["cmp_verdicts"]["diff"])

scores = ss.get(keys.CMP_SCORES) or {}
if scores.get("ids") != (base.id, deep.id):
    with st.spinner("Scoring both answers…"):
        scores = {"ids": (base.id, deep.id), "base": _score(base), "deep": _score(deep)}
    ss[keys.CMP_SCORES] = scores
st.subheader("Side by side")
st.caption("Scores need no reference answer: faithfulness to the run's own evidence, citation "
           "validity and the share of cited statements (hover a score for how it was judged). "
           "The Evaluate page scores question sets against reference answers.")
left, right = st.columns(2, gap="large")
with left:
    render_side(base, title="Baseline RAG",
                subtitle="Fixed 1000-character chunks · vector top-3 · one LLM call",
                key="cmp_base_cite", scores=scores["base"],
                draw_answer=lambda r: record_answer(r, key="cmp_base_cite"),
                time_note="Retrieval and answer only: building its index is first-run setup.")
with right:
    steps = len({h.step for h in deep.history})
    render_side(deep, title="Deep agent",
                subtitle=f"{steps} researched step(s) · {len(deep.revisions)} revision(s) · "
                         f"stop: {deep.stop_reason.code if deep.stop_reason else '?'}",
                key="cmp_deep_cite", scores=scores["deep"],
                draw_answer=lambda r: record_answer(r, key="cmp_deep_cite"),
                time_note="Research and answer (plan review excluded).")
st.caption(f"Both runs are saved: baseline {base.id}, deep {deep.id} (see Runs).")
render_overall(ss["cmp_verdicts"]["overall"])
