"""The evaluation runner on the shipped set with the offline engine: results, resume, cache, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.app.runs import list_runs, load_run
from core.evaluation import storage
from core.evaluation.judge import Judge
from core.evaluation.questions import load_question_set, parse_question_set
from core.evaluation.results import ANSWER_METRICS
from core.evaluation.retrieval_eval import offered_strategies
from core.evaluation.runner import run_eval
from core.foundation.config import Settings
from core.foundation.errors import AppError
from core.retrieval.web import SnapshotWebSearch
from testkit.fakes.chat_model import FakeChatModel

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_SET = ROOT / "data" / "questions" / "sample.jsonl"
FILING = ROOT / "data" / "sample" / "northwind-10k-fy2024.htm"
SNAPSHOT = ROOT / "data" / "web_snapshot"


@pytest.fixture
def env(tmp_path, hash_embedder):
    """Settings over a temp folder, a corpus holding the sample filing, the offline judge."""
    from core.app.corpus import Corpus

    settings = Settings(data_dir=tmp_path / "store", snapshot_dir=SNAPSHOT, _env_file=None)
    corpus = Corpus(settings, embedder=hash_embedder)
    corpus.ingest_path(FILING)
    yield settings, corpus, Judge(settings, hash_embedder, None)
    corpus.close()


def run(env, qset=None, **kw):
    settings, corpus, judge = env
    kw.setdefault("web", SnapshotWebSearch(SNAPSHOT))
    return run_eval(qset or load_question_set(SAMPLE_SET), settings=settings, corpus=corpus,
                    judge=kw.pop("judge", judge), **kw)


def test_shipped_set_end_to_end_offline(env):
    settings = env[0]
    progress = []
    saved = run(env, eval_id="e1", on_progress=progress.append)
    m, summary = saved.manifest, saved.summary
    assert m.status == "done" and m.judge == "offline" and m.backend == "offline engine"
    assert m.warnings == []  # every gold item resolves and matches a chunk of the ingested filing
    assert [p.done for p in progress] == list(range(1, 31)) and progress[-1].total == 30
    offered = offered_strategies(env[1].reranker.info)  # hybrid+rerank only with a reranker
    assert summary.counts == {"baseline": 10, "deep": 10, **{s: 10 for s in offered}}
    assert summary.failures == {"baseline": 0, "deep": 0}
    analysis = ("verdict_correct", "figures_correct")  # the set asks no compare / rank / yes-no
    for system in ("baseline", "deep"):
        for key in ANSWER_METRICS:
            value = summary.systems[system][key]
            if key in analysis:
                assert value is None, (system, key)
                continue
            assert value is not None and 0.0 <= value <= 1.0, (system, key)
    for key in ("faithfulness", "answer_correctness", "context_precision", "context_recall"):
        assert summary.metric_names[key] == [n for n in summary.metric_names[key]
                                             if n.startswith(key.replace("_", " ") + " (offline")]
    assert summary.retrieval["keyword"]["recall@10"] > 0.5
    for r in saved.retrieval:
        assert r.n_gold >= 1 and r.recall[1] <= r.recall[5] <= r.recall[10]
    reranked = [r for r in saved.retrieval if r.strategy == "hybrid+rerank"]
    assert all(r.reranker for r in reranked) and len(reranked) == (
        10 if "hybrid+rerank" in offered else 0)
    assert all(not r.reranker for r in saved.retrieval if r.strategy != "hybrid+rerank")
    for r in saved.results:  # every result points at a saved run with its answer
        record = load_run(settings, r.run_id)
        assert record.kind == r.system and record.answer.text == r.answer
        assert r.metrics["faithfulness"].judge == "offline"
    folder = storage.eval_dir(settings, "e1")
    assert json.loads((folder / "summary.json").read_text())["id"] == "e1"
    assert len((folder / "questions.jsonl").read_text().splitlines()) == 10
    assert storage.list_evals(settings)[0].id == "e1"


def test_rerun_reuses_results_and_rescored_changes_only(env, tmp_path):
    settings = env[0]
    run(env, eval_id="e2", systems=["baseline"])
    n_runs = len(list_runs(settings))
    progress = []
    saved = run(env, eval_id="e2", systems=["baseline"], on_progress=progress.append)
    assert all(p.reused for p in progress)
    assert len(list_runs(settings)) == n_runs  # nothing was run again
    assert all(r.cached for r in saved.retrieval)
    # change one question's reference: only that question's answer is scored again
    lines = SAMPLE_SET.read_text().splitlines()
    first = json.loads(lines[0])
    first["ground_truth"] = "Revenue was $2,184.6 million."
    qset = parse_question_set("\n".join([json.dumps(first), *lines[1:]]), name="sample")
    progress.clear()
    run(env, qset, eval_id="e2", systems=["baseline"], on_progress=progress.append)
    rerun = [p.message for p in progress if not p.reused]
    assert rerun == [f"{first['id']}: baseline done"]
    assert len(list_runs(settings)) == n_runs + 1


def test_a_killed_evaluation_continues_where_it_stopped(env):
    def kill_at_4(p):
        if p.done == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(env, eval_id="e3", on_progress=kill_at_4)
    settings = env[0]
    assert storage.load_eval(settings, "e3").manifest.status == "stopped"
    progress = []
    saved = run(env, eval_id="e3", on_progress=progress.append)
    reused = [p.message for p in progress if p.reused and "retrieval" not in p.message]
    assert reused == ["revenue-fy2024: baseline reused", "revenue-fy2024: deep reused"]
    assert saved.manifest.status == "done" and len(saved.results) == 20


def test_retrieval_cache_follows_the_corpus(env):
    settings, corpus, _ = env
    first = run(env, eval_id="c1", systems=[], strategies=["keyword", "vector"])
    assert not any(r.cached for r in first.retrieval)
    again = run(env, eval_id="c2", systems=[], strategies=["keyword", "vector"])
    assert all(r.cached for r in again.retrieval)  # another evaluation reuses the rankings
    corpus.ingest_bytes(b"A short memo about quarterly revenue and Taiwan foundries.\n" * 5,
                        "memo.txt")
    changed = run(env, eval_id="c3", systems=[], strategies=["keyword"])
    assert not any(r.cached for r in changed.retrieval)


def test_llm_judge_through_the_runner(env, hash_embedder):
    settings = env[0]
    llm = FakeChatModel()
    llm.enqueue({"statements": [{"statement": "s", "supported": True, "reason": ""}]},
                {"tp": ["a"], "fp": [], "fn": ["b"]},
                {"verdicts": [{"index": 1, "useful": True, "reason": ""}]},
                {"sentences": [{"sentence": "s", "attributed": True, "reason": ""}]})
    qset = load_question_set(SAMPLE_SET)
    qset = qset.model_copy(update={"questions": qset.questions[:1]})
    saved = run(env, qset, eval_id="j1", systems=["baseline"], strategies=[],
                judge=Judge(settings, hash_embedder, llm))
    assert saved.manifest.judge == "llm:fake-chat" and llm.pending == 0
    metrics = saved.results[0].metrics
    assert metrics["faithfulness"].value == 1.0 and metrics["faithfulness"].judge == "llm:fake-chat"
    assert "LLM judge" in metrics["context_recall"].name
    assert metrics["citation_validity"].judge == "rule"
    assert saved.summary.systems["baseline"]["judge_tokens"] > 0
    assert saved.summary.systems["baseline"]["llm_calls"] == 0  # the system itself ran offline


def test_a_failing_run_is_recorded_and_the_evaluation_goes_on(env):
    class Broken:
        def ask(self, question, approve=True):
            raise RuntimeError("graph exploded with key sk-abcdef1234567890")

    qset = load_question_set(SAMPLE_SET)
    qset = qset.model_copy(update={"questions": qset.questions[:2]})
    saved = run(env, qset, eval_id="f1", strategies=[], service=Broken())
    failed = [r for r in saved.results if r.system == "deep"]
    assert [r.status for r in failed] == ["failed", "failed"]
    assert "graph exploded" in failed[0].error and "sk-abcdef" not in failed[0].error
    assert saved.summary.failures == {"baseline": 0, "deep": 2}
    assert saved.summary.systems["baseline"]["faithfulness"] is not None


def test_runner_refuses_what_it_cannot_evaluate(env, tmp_path, hash_embedder):
    from core.app.corpus import Corpus

    with pytest.raises(AppError, match="Unknown system"):
        run(env, systems=["oracle"])
    with pytest.raises(AppError, match="Unknown strateg"):
        run(env, strategies=["bm42"])
    other = parse_question_set(json.dumps({"question": "q", "gold": [
        {"document": "acme-10k.pdf", "page": 3}]}), name="other")
    with pytest.raises(AppError, match="acme-10k.pdf.*ingest"):
        run(env, other)
    empty = Settings(data_dir=tmp_path / "empty", _env_file=None)
    corpus = Corpus(empty, embedder=hash_embedder)
    with pytest.raises(AppError, match="corpus is empty"):
        run_eval(other, settings=empty, corpus=corpus, judge=Judge(empty, hash_embedder))
    corpus.close()
    with pytest.raises(AppError, match="Invalid evaluation name"):
        run(env, eval_id="../escape")


def test_cli_eval_prints_the_summary(tmp_path, monkeypatch, capsys, hash_embedder):
    from core.cli.main import main

    monkeypatch.setenv("DTR_DATA_DIR", str(tmp_path / "store"))
    monkeypatch.setenv("DTR_SNAPSHOT_DIR", str(SNAPSHOT))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("core.foundation.models.get_embedder", lambda settings: hash_embedder)
    code = main(["eval", str(SAMPLE_SET), "--ingest", str(FILING), "--offline", "--limit", "2",
                 "--systems", "baseline", "--strategies", "keyword,hybrid+rerank", "--out", "cli"])
    out = capsys.readouterr().out
    assert code == 0
    assert "northwind-10k-fy2024.htm" in out and "[4/4]" in out
    assert "baseline" in out and "faithful" in out and "recall@5" in out
    assert "judge offline" in out
    assert "hybrid+rerank" in out  # scored with a reranker, else said not scored
    assert main(["eval", "--list"]) == 0
    assert "cli  done" in capsys.readouterr().out


@pytest.mark.slow
def test_shipped_set_with_the_real_embedder(tmp_path, real_embedder):
    from core.app.corpus import Corpus

    settings = Settings(data_dir=tmp_path / "store", snapshot_dir=SNAPSHOT, _env_file=None)
    corpus = Corpus(settings, embedder=real_embedder)
    corpus.ingest_path(FILING)
    env = (settings, corpus, Judge(settings, real_embedder, None))
    retrieval = run(env, eval_id="r1", systems=[])
    assert retrieval.manifest.embedder == real_embedder.name
    assert retrieval.summary.counts == {s: 10 for s in offered_strategies(
        corpus.reranker.info)}
    qset = load_question_set(SAMPLE_SET)
    qset = qset.model_copy(update={"questions": qset.questions[:3]})
    saved = run(env, qset, eval_id="r2", strategies=[])
    assert saved.summary.failures == {"baseline": 0, "deep": 0}
    details = saved.results[0].metrics["faithfulness"].details["statements"]
    assert all(s["similarity"] is not None for s in details)
    corpus.close()
