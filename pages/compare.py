"""Compare: the baseline (shallow RAG) and the deep agent on the same question, side by side."""

from __future__ import annotations

import streamlit as st

from components import keys, services
from components.citation_view import citation_opener
from components.compare_view import render_side
from components.entry_guard import ensure_entry_ran
from components.text import md_escape, preview
from core.errors import AppError
from core.runs import list_runs, load_run, save_run

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

if go or auto:
    deep_id = None if choice == NEW_RUN else choice
    q = by_id[deep_id].question if deep_id else (question or "").strip()
    if not q:
        st.error("Type a question (or pick a saved deep run) first.")
        st.stop()
    from core.baseline import run_baseline

    try:
        with st.status("Comparing…", expanded=True) as box:
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
    ss[keys.CMP_RESULT] = {"baseline": base.id, "deep": deep_id}
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
scores = ss.get(keys.CMP_SCORES) or {}
if scores.get("ids") != (base.id, deep.id):
    with st.spinner("Scoring both answers…"):
        scores = {"ids": (base.id, deep.id), "base": _score(base), "deep": _score(deep)}
    ss[keys.CMP_SCORES] = scores
st.caption("Scores need no reference answer: faithfulness to the run's own evidence, citation "
           "validity and the share of cited statements (hover a score for how it was judged). "
           "The Evaluate page scores question sets against reference answers.")
left, right = st.columns(2, gap="large")
with left:
    render_side(base, title="Baseline RAG",
                subtitle="Fixed 1000-character chunks · vector top-3 · one LLM call",
                key="cmp_base_cite", open_citation=citation_opener(corpus, base.id, settings),
                scores=scores["base"])
with right:
    steps = len({h.step for h in deep.history})
    render_side(deep, title="Deep agent",
                subtitle=f"{steps} researched step(s) · {len(deep.revisions)} revision(s) · "
                         f"stop: {deep.stop_reason.code if deep.stop_reason else '?'}",
                key="cmp_deep_cite", open_citation=citation_opener(corpus, deep.id, settings),
                scores=scores["deep"])
st.caption(f"Both runs are saved: baseline {base.id}, deep {deep.id} (see Runs).")
