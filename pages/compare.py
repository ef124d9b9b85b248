"""Compare: the baseline (shallow RAG) and the deep agent on the same question, side by side."""

from __future__ import annotations

import time

import streamlit as st

from components import keys, services
from components.compare_view import render_diff, render_side, render_verdicts
from components.entry_guard import ensure_entry_ran
from components.run_screen import record_answer
from components.text import md_escape, preview
from core.app.runs import list_runs, load_run, save_run
from core.foundation.errors import AppError

ensure_entry_ran()

NEW_RUN = "__new__"

st.title("Compare")
st.caption(
    "The walk-through's baseline (fixed-size chunks, vector top-3, one LLM call) beside the deep "
    "agent (plan, per-step retrieval with reranking, reflection, policy), on the same question: "
    "answers, evidence, time, LLM calls and tokens."
)

settings = services.session_settings()
corpus = services.corpus()
ss = st.session_state
docs = corpus.documents()
if not docs:
    st.info("The corpus is empty: the baseline searches filings only. Load a filing first.")
    st.page_link("pages/library.py", label="Go to the Library")
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
        judge = make_judge(settings, corpus.embedder, llm=services.llm(settings))
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

def _first_run_setup(box) -> tuple[float, int]:
    """Build the baseline's own index for filings that have none yet (one time, per filing),
    with progress; returns (seconds, filings built)."""
    from core.baseline.rag import index as baseline_index

    todo = baseline_index.missing(settings, corpus.embedder, docs)
    if not todo:
        return 0.0, 0
    t0 = time.perf_counter()
    box.write(f"First-run setup: the baseline needs its own fixed-size chunks of {len(todo)} "
              "filing(s), embedded once and kept (not counted in its answer time)…")
    bar = st.progress(0.0, text="Preparing…")
    for i, doc in enumerate(todo):
        def tick(name: str, done: int, total: int, i: int = i) -> None:
            elapsed = time.perf_counter() - t0
            share = (i + done / max(1, total)) / len(todo)
            left = f" · about {elapsed / share - elapsed:.0f} s left" if share > 0.05 else ""
            bar.progress(min(1.0, share), text=f"Filing {i + 1} of {len(todo)} · "
                         f"{md_escape(name)}: {done} of {total} chunks{left}")

        baseline_index.build_doc(corpus.store, corpus.embedder, doc, settings, tick)
    bar.empty()
    return time.perf_counter() - t0, len(todo)


if go or auto:
    deep_id = None if choice == NEW_RUN else choice
    q = by_id[deep_id].question if deep_id else (question or "").strip()
    if not q:
        st.error("Type a question (or pick a saved deep run) first.")
        st.stop()
    from core.baseline.rag import run_baseline

    try:
        with st.status("Comparing…", expanded=True) as box:
            setup_s, setup_docs = _first_run_setup(box)
            box.write("Baseline: fixed-size chunks, vector top-3, one answer call…")
            base = run_baseline(q, settings=settings, store=corpus.store,
                                embedder=corpus.embedder, llm=services.llm(settings))
            save_run(base, settings)
            if deep_id is None:
                box.write("Deep agent: planning and researching (plan approved as proposed)…")
                deep_id = services.research_service(settings).ask(q).id
            box.update(label="Compared", state="complete", expanded=False)
    except AppError as exc:
        st.error(md_escape(str(exc)))
        st.stop()
    ss[keys.CMP_RESULT] = {"baseline": base.id, "deep": deep_id, "setup_s": setup_s,
                           "setup_docs": setup_docs}
    st.rerun()

result = ss.get(keys.CMP_RESULT)
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

st.markdown(f"**Question:** {md_escape(deep.question)}")
if result.get("setup_docs"):
    st.info(f"First-run setup: the baseline's own index of {result['setup_docs']} filing(s) was "
            f"built in {result['setup_s']:.1f} s. It is kept, and not counted in the baseline's "
            "answer time below.")
verdict_key = (base.id, deep.id)
if ss.get("cmp_verdicts", {}).get("ids") != verdict_key:
    from core.app.compare import answer_diff, verdicts

    with st.spinner("Reading both answers…"):
        ss["cmp_verdicts"] = {
            "ids": verdict_key, "verdicts": verdicts(deep, base, corpus.embedder),
            "diff": answer_diff(deep.answer.text if deep.answer else "",
                                base.answer.text if base.answer else "", corpus.embedder)}
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
