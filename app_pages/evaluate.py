"""Evaluate: run a question set through baseline and deep agent, score, chart, compare.

An evaluation runs as a background job (``core.evaluation.job``) named in the URL
(``?eval=<id>``): a refresh re-attaches to its progress, then shows its results.
"""

from __future__ import annotations

import streamlit as st

from components import eval_charts as ec
from components import services
from components.answer import render_answer
from components.jobs import follow_progress
from components.policy_view import render_policy
from components.run_screen import record_answer
from components.text import md_escape, preview
from core.agent.policy import learned as learned_policy
from core.app import jobs
from core.evaluation.policy_training import fit_and_save
from core.evaluation.questions import (
    QuestionSet,
    QuestionSetError,
    load_question_set,
    parse_question_set,
    shipped_sets,
)
from core.evaluation.results import SYSTEMS
from core.evaluation.retrieval_eval import offered_strategies, strategy_label
from core.evaluation.storage import list_evals, load_eval
from core.foundation.config import PROJECT_ROOT
from core.foundation.errors import AppError

UPLOAD = "__upload__"
YOURS, SAMPLE = "yours", "sample"
CORPUS_WORDS = {YOURS: "Your corpus", SAMPLE: "Sample corpus (kept apart from yours)"}
Q_EVAL = "eval"  # URL query parameter: the evaluation running or just run
SETS_DIR = PROJECT_ROOT / "data" / "questions"

st.title("Evaluate")
st.caption(
    "Score the baseline and the deep agent on a question set: answer metrics after RAGAS "
    "(faithfulness, answer correctness, context precision and recall — judged by the configured "
    "LLM, or by clearly named offline approximations), numeric correctness (is the first figure "
    "the answer states the reference's, and is it stated anywhere; by rule, with scale, sign "
    "and rounding tolerance), the analysis kinds (verdict right: the winner, the ranking or "
    "'Yes'/'No' first; figures right: the share of reference figures stated), gold-evidence "
    "retrieval per strategy "
    "(recall@k, MRR@10, nDCG@10), citation validity and cost."
)

ss = st.session_state
ss.setdefault(ec.EVAL_UPLOAD_NONCE, 0)
_linked = st.query_params.get(Q_EVAL)
if _linked and ec.EVAL_CORPUS not in ss:  # a link to an evaluation of the sample corpus
    _sample_ids = {m.id for m in list_evals(services.sample_settings(services.session_settings()))}
    _own_ids = {m.id for m in list_evals(services.session_settings())}
    ss[ec.EVAL_CORPUS] = SAMPLE if _linked in _sample_ids - _own_ids else YOURS
ss.setdefault(ec.EVAL_CORPUS, YOURS)
where = st.radio("Corpus", [YOURS, SAMPLE], key=ec.EVAL_CORPUS, horizontal=True,
                 format_func=CORPUS_WORDS.get,
                 help="The sample corpus holds the project's fictional sample filing in a "
                      "folder of its own: loading or evaluating it never adds to your corpus, "
                      "and its runs and evaluations are kept there too.")
app = services.sample() if where == SAMPLE else services.current()  # the composition root
settings, corpus = app.settings, app.corpus
if where == SAMPLE:
    st.caption(f"Sample corpus: {md_escape(str(settings.data_dir))} · "
               f"{len(corpus.documents())} filing(s). Your own corpus is not touched.")


def _load_set(choice: str) -> QuestionSet | None:
    """The chosen set, or None (errors shown) when it cannot be read."""
    try:
        if choice != UPLOAD:
            return load_question_set(SETS_DIR / choice)
        up = st.file_uploader("Question set (JSONL)", type=["jsonl"],
                              key=f"eval_upload_{ss[ec.EVAL_UPLOAD_NONCE]}",
                              help="One JSON object per line: question, ground_truth, gold, tags.")
        if up is None:
            st.info("Upload a .jsonl question set, or pick a shipped one.")
            return None
        text = up.getvalue().decode("utf-8", errors="replace")
        return parse_question_set(text, name=up.name.rsplit(".", 1)[0], source=up.name)
    except QuestionSetError as exc:
        st.error(f"{md_escape(exc.source)} is not a valid question set:\n\n"
                 + "\n".join(f"- {md_escape(p)}" for p in exc.problems))
        return None


def _missing_documents(qset: QuestionSet) -> list[str]:
    from core.evaluation.gold import resolve, snapshot_urls

    docs, web = corpus.documents(), snapshot_urls(settings.snapshot_dir)
    return sorted({g.document for q in qset.questions for g in q.gold
                   if resolve(g, docs, web).kind == "missing"})


def _to_sample_corpus() -> None:
    ss[ec.EVAL_CORPUS] = SAMPLE
    ss[ec.EVAL_LOAD_SAMPLE] = True


def _offer_samples(missing: list[str]) -> None:
    """The set's gold filings are missing: the shipped sample ones go into the sample corpus
    (never into the analyst's), after a click that says so."""
    st.warning("Gold documents not in the corpus: " + md_escape(", ".join(missing))
               + ". Their questions cannot be answered or scored until they are ingested.")
    samples = [p for p in services.sample_files() if p.name in missing]
    if not samples:
        return
    label = ("Load the sample filing into the sample corpus" if where == SAMPLE else
             "Switch to the sample corpus and load the sample filing there")
    st.button(label, key="eval_ingest_samples", on_click=_to_sample_corpus,
              help=f"{', '.join(p.name for p in samples)} (fictional, written for this project) "
                   "goes into a separate sample corpus; your corpus stays as it is.")
    if ss.pop(ec.EVAL_LOAD_SAMPLE, False) and where == SAMPLE:
        with st.spinner("Loading the sample filing into the sample corpus…"):
            for p in samples:
                corpus.ingest_path(p)
        st.rerun()


def _run(qset: QuestionSet, systems: list[str], strategies: list[str], name: str) -> None:
    """Start the evaluation as a background job named in the URL (a refresh re-attaches)."""
    from core.evaluation import job as eval_job
    from core.evaluation.judge import make_judge

    llm = app.llm
    judge = make_judge(settings, corpus.embedder, llm, "auto" if llm is not None else "offline")
    service = app.research if "deep" in systems else None
    try:
        eval_id, _ = eval_job.start(qset, settings=settings, corpus=corpus, judge=judge,
                                    systems=systems, strategies=strategies,
                                    eval_id=name or None, service=service, llm=llm,
                                    web=app.web)
    except ValueError:  # that evaluation is running already: follow it
        eval_id = name
    st.query_params[Q_EVAL] = eval_id
    st.rerun()


def _follow(eval_id: str) -> None:
    """Show evaluation ``eval_id``'s job: progress while it runs, then what ended it."""
    from core.evaluation import job as eval_job

    job = jobs.get(eval_job.job_id(eval_id))
    followed = (eval_id, job.started if job else None)
    if job is not None and job.running:
        with st.status(f"Evaluating {md_escape(eval_id)}…", expanded=True) as box:
            bar = st.progress(0.0, text="Starting…")
            st.button("Cancel", key="eval_cancel", on_click=jobs.cancel, args=(job.id,),
                      help="Stop before the next question; run it again under the same name "
                           "to continue.")
            lines = st.container()
            ticker = st.empty()
            follow_progress(job, bar, lines, ticker)
            box.update(label=f"Evaluation {md_escape(eval_id)} "
                             f"{'finished' if job.result else 'stopped'}",
                       state="complete" if job.result else "error", expanded=False)
    if job is not None and job.error:
        st.error(md_escape(job.error))
        st.query_params.pop(Q_EVAL, None)
        return
    if job is not None and job.cancelled:
        st.info(f"Evaluation {md_escape(eval_id)} cancelled: run it again under the same "
                "name to continue.")
    if ss.get(ec.EVAL_FOLLOWED) != followed:  # put it on screen once (then the analyst picks)
        ss[ec.EVAL_FOLLOWED] = followed
        ss[ec.EVAL_SHOWN] = eval_id
        if job is not None and job.result is not None:
            st.rerun()


# --- 1. set, systems, strategies, run -----------------------------------------------
shipped = [p.name for p in shipped_sets(SETS_DIR)]
choice = st.selectbox("Question set", [*shipped, UPLOAD], key=ec.EVAL_SET,
                      format_func=lambda c: "Upload a set…" if c == UPLOAD else c)
qset = _load_set(choice)
if qset is not None:
    with st.expander(f"{len(qset.questions)} questions in {md_escape(qset.name)}"):
        st.dataframe([{"id": q.id, "question": preview(q.question, 110), "tags": ", ".join(q.tags),
                       "gold items": len(q.gold), "reference": bool(q.ground_truth)}
                      for q in qset.questions], hide_index=True, width="stretch")
    missing = _missing_documents(qset)
    if missing:
        _offer_samples(missing)
    llm_name = app.describe_llm()
    with st.form("eval_form"):
        c1, c2 = st.columns(2)
        systems = c1.multiselect("Systems", list(SYSTEMS), default=list(SYSTEMS),
                                 key=ec.EVAL_SYSTEMS)
        rerank_info = app.reranker.info
        offered = offered_strategies(rerank_info)
        if any(s not in offered for s in ss.get(ec.EVAL_STRATEGIES) or []):
            ss[ec.EVAL_STRATEGIES] = [s for s in ss[ec.EVAL_STRATEGIES] if s in offered]
        strategies = c2.multiselect(
            "Retrieval strategies", offered, default=offered, key=ec.EVAL_STRATEGIES,
            format_func=lambda s: strategy_label(s, rerank_info),
            help=ec.reranker_note(rerank_info))
        c3, c4 = st.columns(2)
        limit = c3.number_input("Only the first N questions (0: all)", min_value=0, value=0,
                                step=1, key=ec.EVAL_LIMIT)
        name = c4.text_input("Evaluation name (an existing one is resumed)", key=ec.EVAL_NAME,
                             placeholder="new: <set>-<time>")
        st.caption(f"Systems and judge: {md_escape(llm_name)}. Deep runs approve the proposed "
                   "plan automatically; every run is saved on the Runs page. "
                   f"{md_escape(ec.reranker_note(rerank_info))}")
        go = st.form_submit_button("Run evaluation", type="primary")
    if go:
        if limit:
            qset = qset.model_copy(update={"questions": qset.questions[: int(limit)]})
        try:
            _run(qset, systems, strategies, name.strip())
        except AppError as exc:
            st.error(md_escape(str(exc)))

if st.query_params.get(Q_EVAL):
    _follow(st.query_params[Q_EVAL])
for running in jobs.active("evaluate"):
    if running.id != f"eval-{st.query_params.get(Q_EVAL)}":
        st.page_link("app_pages/evaluate.py",
                     query_params={Q_EVAL: running.id.removeprefix("eval-")},
                     label=f"Evaluating now ({running.seconds:.0f} s) · {md_escape(running.label)}")

# --- policy: rule vs learned ---------------------------------------------------------
st.subheader("Policy: rule vs learned")
if st.button("Fit the learned policy from stored runs", key="eval_policy_fit",
             help="Logistic regression over each step's coverage, scores, position and "
                  "revisions left; used only when it beats the rule on held-out runs."):
    try:
        fit_and_save(settings)
    except ValueError as exc:
        st.info(md_escape(str(exc)))
render_policy(learned_policy.load(settings))

# --- 2. results ---------------------------------------------------------------------
evals = list_evals(settings)
if _linked and _linked not in {e.id for e in evals} and jobs.get(f"eval-{_linked}") is None:
    st.query_params.pop(Q_EVAL, None)  # said once; the URL no longer names it
    st.warning(f"There is no evaluation {md_escape(preview(_linked, 60))} in this corpus (the "
               "link may be wrong or the evaluation deleted)"
               + ("; the latest one is shown instead." if evals else "."))
if not evals:
    st.info("No evaluation yet: pick a set and press Run evaluation.")
    st.stop()
by_id = {m.id: m for m in evals}
if ss.get(ec.EVAL_SHOWN) not in by_id:
    ss[ec.EVAL_SHOWN] = evals[0].id
st.divider()
shown_id = st.selectbox(
    "Evaluation", list(by_id), key=ec.EVAL_SHOWN,
    format_func=lambda i: f"{i} · {by_id[i].set_name} · {by_id[i].n_questions} q · "
                          f"{by_id[i].status} · judge {by_id[i].judge}")
try:
    saved = load_eval(settings, shown_id)
except AppError as exc:
    st.error(md_escape(str(exc)))
    st.stop()
m, summary = saved.manifest, saved.summary
st.caption(f"Systems on {md_escape(m.backend)} · judge {md_escape(m.judge)} · embedder "
           f"{md_escape(m.embedder)} · reranker {md_escape(m.reranker or '-')} · "
           f"created {m.created.replace('T', ' ')[:16]}")
for w in m.warnings:
    st.warning(md_escape(w))
if summary is None:
    st.warning("This evaluation did not finish: run it again under the same name to continue.")
    st.stop()

st.subheader("Baseline vs deep agent")
ec.render_table(ec.system_table(summary))
ec.render_metric_bars(summary, key="eval_bars")
with st.expander("How each metric was computed"):
    for key, names in summary.metric_names.items():
        st.markdown(f"- **{md_escape(ec.metric_label(key))}**: {md_escape('; '.join(names))}")

st.subheader("Retrieval against gold evidence")
if ec.rerank_was_none(m):
    st.caption("No re-ranker was active in this evaluation (reranker: "
               f"{md_escape(m.reranker)}): any hybrid+rerank row ranks exactly like hybrid.")
ec.render_recall_curves(summary, key="eval_recall")

st.subheader("Per question")
frame = ec.questions_frame(saved.results)
if not frame.empty:
    ec.render_table(frame)
    quality = st.selectbox("Quality axis", ["answer_correctness", "numeric_correctness",
                                            "verdict_correct", "figures_correct",
                                            "faithfulness", "context_recall",
                                            "gold_evidence_recall"],
                           key=ec.EVAL_QUALITY, format_func=ec.metric_label)
    ec.render_cost_quality(frame, quality, key="eval_scatter")

    st.markdown("**Drill down to a run**")
    qids = list(dict.fromkeys(r.question_id for r in saved.results))
    texts = {r.question_id: r.question for r in saved.results}
    d1, d2 = st.columns([3, 1])
    qid = d1.selectbox("Question", qids, key=ec.EVAL_DRILL,
                       format_func=lambda i: f"{i} · {preview(texts[i], 80)}")
    system = d2.radio("System", [s for s in m.systems if any(
        r.question_id == qid and r.system == s for r in saved.results)], key=ec.EVAL_DRILL_SYSTEM,
                      horizontal=True)
    result = next((r for r in saved.results if r.question_id == qid and r.system == system), None)
    if result is not None:
        ec.render_metric_details(result)
        if result.error:
            st.error(md_escape(result.error))
        from core.app.runs import load_run

        try:
            record = load_run(settings, result.run_id or "")
        except AppError:
            record = None
            st.caption("The run record is gone; showing the answer stored with the evaluation.")
            render_answer(result.answer, [], key=f"eval_answer_{qid}_{system}")
        if record is not None and record.answer is not None:
            record_answer(record, key=f"eval_cite_{qid}_{system}", beside=True, root=app)

# --- 3. compare with an earlier evaluation -------------------------------------------
others = [i for i in by_id if i != shown_id]
st.subheader("Compare with an earlier evaluation")
if not others:
    st.caption("Run another evaluation to compare with this one.")
else:
    from core.evaluation.report import deltas

    prev_id = st.selectbox("Earlier evaluation", others, key=ec.EVAL_PREVIOUS,
                           format_func=lambda i: f"{i} · {by_id[i].set_name} · "
                                                 f"judge {by_id[i].judge}")
    try:
        prev = load_eval(settings, prev_id)
    except AppError as exc:
        st.error(md_escape(str(exc)))
        st.stop()
    if prev.summary is None:
        st.caption("That evaluation did not finish.")
    else:
        if prev.manifest.set_sha != m.set_sha:
            st.caption("The two evaluations ran different question sets: compare with care.")
        ec.render_deltas(ec.delta_frame(deltas(summary, prev.summary)))
