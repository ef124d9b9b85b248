"""Baseline vs deep agent on FinanceBench-dev, offline, all filings in one corpus.

    HF_HUB_OFFLINE=1 DTR_DATA_DIR=/work/tmp-answer/fb PYTHONPATH=. \
        .venv/bin/python scripts/eval_financebench.py /work/shared/benchmarks/financebench-dev \
        --out before [--limit N] [--ingest]

Reuses ``core.evaluation.runner.run_eval`` (plan approved as proposed, offline judge,
results saved under ``data_dir/evals/<out>`` and resumable); a new ``--out`` name runs
everything again (the runner's fingerprint does not include the code). ``--ingest``
ingests the set's PDFs first (once; already ingested files are skipped).

Reported per system:
- cited gold: share of questions whose answer CITES (not merely retrieves) a chunk of the
  gold document whose page span (page..page_end, 1-based physical) holds a gold page
  (FinanceBench ``page_index`` is 0-based physical: gold page = page_index + 1, as
  ``core.bench.measure.sets`` maps it);
- figure right: share of the questions whose reference states a figure for which the
  answer's FIRST stated figure is it (``core.evaluation.numeric_correctness``: within 1%
  or the reference's rounding, scale and sign tolerated), and for the metric questions
  (question_type metrics-generated) the first-figure-right and figure-anywhere shares;
- answer correctness, OFFLINE approximation (``core.evaluation.answer_correctness``:
  numeric agreement + term F1 + embedding similarity);
- self-check: share of the answer's sentences its self-check marked supported (deep only,
  when the run records verdicts);
- LLM calls and seconds per question (from the run record).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path


def load_set(folder: Path, file_name: str = "questions.jsonl"):
    from core.evaluation.questions import EvalQuestion, GoldEvidence, QuestionSet

    questions = []
    for line in (folder / file_name).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        pages = sorted({int(e["page_index"]) + 1 for e in row.get("evidence") or []})
        gold = [GoldEvidence(document=f"{row['doc']}.pdf", page=p) for p in pages]
        kind = row.get("question_type") or ""
        questions.append(EvalQuestion(id=row["id"].replace("financebench_id_", "fb"),
                                      question=row["question"], ground_truth=row["answer"],
                                      gold=gold, tags=[kind] if kind else []))
    return QuestionSet(name=folder.name, source=str(folder), sha="fb", questions=questions)


def cited_gold(record, q, store, documents) -> bool:
    """Whether the answer cites a chunk of a gold document whose page span holds a gold page."""
    answer = record.answer
    if answer is None:
        return False
    by_name = {d.file_name.lower(): d.doc_id for d in documents}
    want = {(by_name.get(g.document.lower()), g.page) for g in q.gold}
    cited = {c.evidence_id for c in answer.citations}
    evidence = [e for e in answer.evidence if e.id in cited and e.kind == "chunk"]
    spans = {c.chunk_id: (c.page, c.page_end or c.page)
             for c in store.get_chunks([e.id for e in evidence]) if c.page}
    for e in evidence:
        lo, hi = spans.get(e.id, (e.page, e.page))
        if lo is None:
            continue
        if any(doc == e.doc_id and lo <= page <= (hi or lo) for doc, page in want):
            return True
    return False


METRIC_TYPE = "metrics-generated"


def figure_verdicts(result, q) -> tuple[bool | None, bool | None]:
    """(first figure right, figure anywhere) of one result: its stored numeric metrics, or
    the rule run now on its answer (results saved before the metric existed)."""
    first, anywhere = result.metrics.get("numeric_correctness"), result.metrics.get(
        "numeric_anywhere")
    if first is None or anywhere is None:
        from core.evaluation.numeric_correctness import judge_figures

        v = judge_figures(result.answer, q.ground_truth, q.question)
        return v.first, v.anywhere
    return (None if first.value is None else first.value >= 1.0,
            None if anywhere.value is None else anywhere.value >= 1.0)


def _share(flags: list[bool | None]) -> str:
    known = [f for f in flags if f is not None]
    return f"{sum(known)}/{len(known)}" if known else "-"


def _self_check(record) -> float | None:
    """Share of the answer's claims supported by their citations (the run's verdicts, else
    the offline rule), or None when this code has no self-check."""
    try:
        from core.evaluation.self_check import self_check_share
    except ImportError:
        return None
    if record is None or record.answer is None:
        return None
    return self_check_share(record.answer).value


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--out", required=True)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--ingest", action="store_true")
    ap.add_argument("--systems", default="baseline,deep")
    ap.add_argument("--questions", default="questions.jsonl",
                    help="the set's question file (e.g. figure_questions_fb.jsonl)")
    args = ap.parse_args(argv)

    from core.app.corpus import Corpus
    from core.app.runs import load_run
    from core.evaluation.judge import make_judge
    from core.evaluation.runner import run_eval
    from core.foundation.config import load_settings
    from core.retrieval.web import get_web_search

    settings = load_settings()
    corpus = Corpus(settings)
    if args.ingest:
        for pdf in sorted((args.folder / "pdfs").glob("*.pdf")):
            corpus.ingest_path(pdf)
    qset = load_set(args.folder, args.questions)
    if args.limit:
        qset = qset.model_copy(update={"questions": qset.questions[: args.limit]})
    judge = make_judge(settings, corpus.embedder, None, "offline")
    systems = [s for s in args.systems.split(",") if s]
    saved = run_eval(qset, settings=settings, corpus=corpus, judge=judge, systems=systems,
                     strategies=[], eval_id=args.out, llm=None, web=get_web_search(settings),
                     on_progress=lambda p: print(f"[{p.done}/{p.total}] {p.message}",
                                                 file=sys.stderr, flush=True))
    documents = corpus.store.documents()
    by_q = {q.id: q for q in qset.questions}
    rows = []
    for system in systems:
        results = [r for r in saved.results if r.system == system]
        hits, correct, calls, secs, support = 0, [], 0, [], []
        first_all, first_metric, any_metric = [], [], []
        for r in results:
            q = by_q[r.question_id]
            record = load_run(settings, r.run_id) if r.run_id else None
            if record is not None and cited_gold(record, q, corpus.store, documents):
                hits += 1
            first, anywhere = figure_verdicts(r, q)
            first_all.append(first)
            if METRIC_TYPE in q.tags:
                first_metric.append(bool(first))
                any_metric.append(bool(anywhere))
            ac = r.metrics.get("answer_correctness")
            if ac is not None and ac.value is not None:
                correct.append(ac.value)
            calls += r.cost.llm_calls
            secs.append(r.cost.wall_s)
            share = _self_check(record)
            if share is not None:
                support.append(share)
        n = len(results)
        rows.append((system, f"{hits}/{n}", _share(first_all), _share(first_metric),
                     _share(any_metric), statistics.mean(correct) if correct else float("nan"),
                     calls / max(n, 1), statistics.mean(secs) if secs else 0.0,
                     statistics.mean(support) if support else None))
    n_metric = sum(METRIC_TYPE in q.tags for q in qset.questions)
    print(f"\n{args.out}: {len(qset.questions)} questions ({n_metric} {METRIC_TYPE}), "
          "offline engine\n")
    print("| system | cited gold page | first figure right (references with a figure) | "
          "metric q: first figure right | metric q: figure anywhere | "
          "answer correctness (offline approx.) | self-check supported | LLM calls/q | s/q |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for system, hits, first, m_first, m_any, corr, calls, secs, sup in rows:
        sup_s = f"{sup:.2f}" if sup is not None else "-"
        print(f"| {system} | {hits} | {first} | {m_first} | {m_any} | {corr:.3f} | {sup_s} | "
              f"{calls:.1f} | {secs:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
