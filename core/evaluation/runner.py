"""Run a question set through the systems and the retrieval strategies, score, save, resume.

    saved = run_eval(qset, settings=settings, corpus=corpus, judge=judge,
                     systems=["baseline", "deep"])  # strategies: those the reranker can score

For every question: the retrieval configurations are scored against its filing
gold evidence (ranked lists cached across evaluations), then each system runs
(the deep agent with its plan approved as proposed) and its answer is scored:
faithfulness, answer correctness, context precision and recall (by the judge),
numeric correctness (the first figure stated, and the reference figure anywhere), the
analysis kinds' verdict and figures (compare, rank, yes / no: ``analysis_scores``), gold
evidence recall, citation validity and cited sentences (by rule), cost
(from the run record). Each result is written as soon as it is computed; a
rerun with the same evaluation id reuses every result whose inputs are
unchanged (its fingerprint), so a killed evaluation continues where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from core.evaluation import storage
from core.evaluation.analysis_scores import analysis_scores, gold_figures, gold_verdict
from core.evaluation.answer_correctness import answer_correctness
from core.evaluation.citation_validity import citation_validity, cited_sentences
from core.evaluation.context_precision import context_precision
from core.evaluation.context_recall import context_recall
from core.evaluation.cost import run_cost
from core.evaluation.evidence_recall import gold_evidence_recall
from core.evaluation.faithfulness import faithfulness
from core.evaluation.gold import GoldTarget, Piece, resolve_question, snapshot_urls
from core.evaluation.judge import EvalSample, Judge
from core.evaluation.numeric_correctness import numeric_scores
from core.evaluation.questions import EvalQuestion, QuestionSet
from core.evaluation.report import summarise
from core.evaluation.results import (
    STRATEGIES,
    SYSTEMS,
    EvalManifest,
    MetricScore,
    QuestionResult,
)
from core.evaluation.retrieval_eval import (
    cache_key,
    corpus_fingerprint,
    coverable,
    follow_reranker,
    ideal_gains,
    offered_strategies,
    ranked_list,
    score_ranking,
)
from core.evaluation.self_check import self_check_share
from core.foundation.config import Settings
from core.foundation.errors import AppError

log = logging.getLogger(__name__)
FINGERPRINT_SETTINGS = ("llm_base_url", "llm_model", "top_k", "top_n", "rrf_k", "chunk_size",
                        "chunk_overlap", "max_steps", "max_revisions", "max_tokens",
                        "web_provider", "embedding_model", "reranker_model")


@dataclass
class EvalProgress:
    """Progress of a running evaluation: ``done`` of ``total`` units, what just finished."""

    done: int
    total: int
    message: str
    reused: bool = False


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _check(systems: list[str], strategies: list[str]) -> None:
    bad = [s for s in systems if s not in SYSTEMS]
    if bad:
        raise AppError(f"Unknown system(s) {', '.join(bad)}: choose from {', '.join(SYSTEMS)}.")
    bad = [s for s in strategies if s not in STRATEGIES]
    if bad:
        raise AppError(f"Unknown strateg(ies) {', '.join(bad)}: choose from "
                       f"{', '.join(STRATEGIES)}.")
    if not systems and not strategies:
        raise AppError("Nothing to evaluate: choose at least one system or retrieval strategy.")


def fingerprint(q: EvalQuestion, system: str, corpus_ids: list[str], judge: Judge,
                backend: str, settings: Settings) -> str:
    """Hash of everything a question result depends on."""
    asked = q.model_dump()
    for extra in ("verdict", "figures"):  # fields added later: old results keep their hash
        if not asked.get(extra):
            asked.pop(extra, None)
    parts = {"q": asked, "system": system, "corpus": corpus_ids, "judge": judge.label,
             "judge_embedder": getattr(judge.embedder, "name", None), "backend": backend,
             "settings": {k: str(getattr(settings, k)) for k in FINGERPRINT_SETTINGS}}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:24]


def score_record(q: EvalQuestion, record: Any, targets: list[GoldTarget],
                 judge: Judge) -> dict[str, MetricScore]:
    """Every answer metric of one run record."""
    answer = record.answer
    evidence = list(record.evidence or (answer.evidence if answer else []))
    pieces = [Piece.from_evidence(e) for e in evidence]
    text = answer.text if answer else ""
    analyses = list(getattr(answer, "analyses", None) or []) if answer else []
    figures = list(getattr(answer, "figures", None) or []) if answer else []
    figures += [f for a in analyses for f in a.figures]
    sample = EvalSample(question=q.question, answer=text, contexts=pieces,
                        ground_truth=q.ground_truth, gold=targets,
                        invalid_markers=list(answer.invalid_markers) if answer else [],
                        figures=figures, analyses=analyses, verdict=gold_verdict(q),
                        gold_figures=gold_figures(q))
    scores = [faithfulness(sample, judge), answer_correctness(sample, judge),
              *numeric_scores(sample), *analysis_scores(sample), context_precision(sample, judge),
              context_recall(sample, judge), gold_evidence_recall(pieces, targets),
              citation_validity(text, evidence, sample.invalid_markers), cited_sentences(text),
              self_check_share(answer)]
    return {s.key: s for s in scores}


class Runner:
    """One evaluation's state: dependencies, folder, resolved gold, progress."""

    def __init__(self, qset: QuestionSet, *, settings: Settings, corpus: Any, judge: Judge,
                 systems: list[str], strategies: list[str], eval_id: str | None,
                 service: Any, llm: Any, web: Any,
                 on_progress: Callable[[EvalProgress], None] | None):
        _check(systems, strategies)
        strategies, dropped = follow_reranker(
            strategies, getattr(getattr(corpus, "reranker", None), "info", None))
        if dropped and not systems and not strategies:
            raise AppError(f"Nothing to evaluate: {dropped[0]}.")
        self.qset, self.settings, self.corpus, self.judge = qset, settings, corpus, judge
        self.systems, self.strategies = systems, strategies
        self.eval_id = eval_id or storage.new_eval_id(qset.name)
        self.folder = storage.eval_dir(settings, self.eval_id)
        self._service, self.llm, self.web = service, llm, web
        self.on_progress = on_progress
        self.documents = corpus.store.documents()
        if not self.documents:
            raise AppError("The corpus is empty: ingest the set's filings first "
                           "(python -m core ingest FILE, or --ingest FILE).")
        self.corpus_ids = corpus_fingerprint(corpus.store)
        self.web_urls = snapshot_urls(settings.snapshot_dir)
        self.targets = {q.id: resolve_question(q, self.documents, self.web_urls)
                        for q in qset.questions}
        self._chunks: dict = {}  # doc id -> its chunks as Pieces, read once
        self.warnings = [*dropped, *self._gold_warnings()]
        self.done = 0
        self.total = len(qset.questions) * (len(systems) + (1 if strategies else 0))

    @property
    def backend(self) -> str:
        if self.llm is None:
            return "offline engine"
        return f"llm:{getattr(self.llm, 'model_name', None) or type(self.llm).__name__}"

    def service(self) -> Any:
        if self._service is None:
            from core.app.research import ResearchService

            self._service = ResearchService.from_corpus(self.settings, self.corpus, llm=self.llm,
                                                        web=self.web)
        return self._service

    def _gold_warnings(self) -> list[str]:
        out: list[str] = []
        named = {t.item.document for ts in self.targets.values() for t in ts}
        missing = sorted({t.item.document for ts in self.targets.values() for t in ts
                          if t.kind == "missing"})
        if named and len(missing) == len(named):
            raise AppError("None of the set's gold documents is in the corpus or the web "
                           f"snapshot ({', '.join(missing)}): ingest the filings first "
                           "(python -m core ingest FILE, or --ingest FILE).")
        if missing:
            out.append(f"gold documents not in the corpus or the web snapshot: "
                       f"{', '.join(missing)} (their items are skipped)")
        for qid, ts in self.targets.items():
            _, lost = coverable(self.corpus.store, ts, self._chunks)
            for t in lost:
                out.append(f"{qid}: gold item {t.item.model_dump(exclude_none=True)} matches no "
                           "chunk of its filing (fix its text, page or section)")
        return out

    def _tick(self, message: str, reused: bool = False) -> None:
        self.done += 1
        if self.on_progress is not None:
            self.on_progress(EvalProgress(self.done, self.total, message, reused))

    def write_manifest(self, status: str) -> EvalManifest:
        old = storage.read_model(self.folder / "manifest.json", EvalManifest)
        manifest = EvalManifest(
            id=self.eval_id, set_name=self.qset.name, set_source=self.qset.source,
            set_sha=self.qset.sha, created=old.created if old else _now(), updated=_now(),
            systems=self.systems, strategies=self.strategies, judge=self.judge.label,
            backend=self.backend, embedder=getattr(self.corpus.embedder, "name", "?"),
            reranker=self.corpus.reranker.info.name if self.strategies else "",
            corpus=self.corpus_ids, n_questions=len(self.qset.questions), status=status,
            warnings=self.warnings)
        storage.write_model(self.folder / "manifest.json", manifest)
        return manifest

    def retrieval(self, q: EvalQuestion) -> None:
        ok, _ = coverable(self.corpus.store, self.targets[q.id], self._chunks)
        if not ok:
            self._tick(f"{q.id}: no filing gold evidence, retrieval not scored")
            return
        ideal = ideal_gains(self.corpus.store, ok, self._chunks)
        cache_dir = storage.evals_dir(self.settings) / storage.CACHE / "retrieval"
        reranker = self.corpus.reranker.info.name
        all_cached = True
        for name in self.strategies:
            key = cache_key(q.question, name, self.corpus_ids, self.settings,
                            getattr(self.corpus.embedder, "name", "?"), reranker)
            ranking, cached = ranked_list(self.corpus.retriever, q.question, name, key, cache_dir)
            all_cached = all_cached and cached
            result = score_ranking(q.id, name, ranking, cached, ok, ideal)
            storage.write_model(storage.retrieval_path(self.folder, name, q.id), result)
        cached = ", cached rankings" if all_cached else ""
        self._tick(f"{q.id}: retrieval scored ({len(self.strategies)} strategies{cached})",
                   all_cached)

    def run_system(self, q: EvalQuestion, system: str) -> None:
        fp = fingerprint(q, system, self.corpus_ids, self.judge, self.backend, self.settings)
        path = storage.result_path(self.folder, system, q.id)
        old = storage.read_model(path, QuestionResult)
        if old is not None and old.fingerprint == fp and old.status == "done":
            self._tick(f"{q.id}: {system} reused", reused=True)
            return
        result = QuestionResult(question_id=q.id, system=system, fingerprint=fp,
                                question=q.question)
        try:
            record = self._run(q, system)
        except Exception as exc:  # noqa: BLE001 - one failed run must not end the evaluation
            from core.llm.failures import redact

            result.status, result.error = "failed", redact(f"{type(exc).__name__}: {exc}",
                                                           self.settings)
            log.warning("eval %s %s %s failed: %s", self.eval_id, q.id, system, result.error)
        else:
            t0 = time.perf_counter()
            result.run_id, result.cost = record.id, run_cost(record)
            result.answer = record.answer.text if record.answer else ""
            result.n_evidence = len(record.evidence)
            if record.status != "done":
                result.status, result.error = "failed", record.error or record.status
            result.metrics = score_record(q, record, self.targets[q.id], self.judge)
            result.eval_s = round(time.perf_counter() - t0, 3)
        result.finished = _now()
        storage.write_model(path, result)
        self._tick(f"{q.id}: {system} {'done' if result.status == 'done' else 'failed'}")

    def _run(self, q: EvalQuestion, system: str) -> Any:
        if system == "baseline":
            from core.app.runs import save_run
            from core.baseline.rag import run_baseline

            record = run_baseline(q.question, settings=self.settings, store=self.corpus.store,
                                  embedder=self.corpus.embedder, llm=self.llm)
            save_run(record, self.settings)
            return record
        return self.service().ask(q.question, approve=True)

    def run(self) -> storage.SavedEval:
        self.write_manifest("running")
        (self.folder / "questions.jsonl").write_text(
            "".join(q.model_dump_json(exclude_defaults=True) + "\n" for q in self.qset.questions),
            encoding="utf-8")
        try:
            for q in self.qset.questions:
                if self.strategies:
                    self.retrieval(q)
                for system in self.systems:
                    self.run_system(q, system)
        except BaseException:
            self.write_manifest("stopped")
            raise
        manifest = self.write_manifest("done")
        saved = storage.load_eval(self.settings, self.eval_id)
        saved.summary = summarise(manifest, saved.results, saved.retrieval)
        storage.write_model(self.folder / "summary.json", saved.summary)
        return saved


def run_eval(qset: QuestionSet, *, settings: Settings, corpus: Any, judge: Judge,
             systems: list[str] | tuple[str, ...] = SYSTEMS,
             strategies: list[str] | tuple[str, ...] | None = None,
             eval_id: str | None = None, service: Any = None, llm: Any = None, web: Any = None,
             on_progress: Callable[[EvalProgress], None] | None = None) -> storage.SavedEval:
    """Run ``qset`` (see the module docstring); returns the saved evaluation with its summary.

    ``corpus`` is a ``core.app.corpus.Corpus`` (store, retriever, embedder, reranker); ``llm`` is
    the systems' chat model (None: offline engine), ``web`` their web search; ``service`` an
    existing ``ResearchService`` to reuse. Raises ``AppError`` for an empty corpus, unknown
    systems or strategies, or a set none of whose gold documents is available.
    ``strategies`` None: those the active reranker can score (``offered_strategies``:
    hybrid+rerank only when a reranker is active); a reranked one asked for with no reranker
    is dropped with a warning in the manifest.
    """
    if strategies is None:
        strategies = offered_strategies(getattr(getattr(corpus, "reranker", None), "info", None))
    return Runner(qset, settings=settings, corpus=corpus, judge=judge, systems=list(systems),
                  strategies=list(strategies), eval_id=eval_id, service=service, llm=llm,
                  web=web, on_progress=on_progress).run()
