"""End to end through the real pieces: ingest, store, Retriever, reranker fallback, snapshot web
search, the sample 10-K; offline engine, and the real ChatOpenAI against the fake server."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.agent.deps import AgentDeps, CorpusInfo
from core.agent.retrieval import rerank_hits, search_filings, search_web
from core.app.research import ResearchService
from core.foundation.config import Settings
from core.llm.factory import make_chat_model
from core.retrieval.web import SnapshotWebSearch, parse_article
from testkit.fakes.fixtures import llm_settings, openai_server  # noqa: F401 (fixture)
from testkit.fakes.openai_server import Behaviour

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample" / "northwind-10k-fy2024.htm"
SNAPSHOT = ROOT / "data" / "web_snapshot"
SNAPSHOT_URLS = {parse_article(p.read_text())[0].get("url") for p in SNAPSHOT.glob("*.md")}
WALKTHROUGH = (
    "Based on Northwind's 2024 10-K filing, identify their key risks related to competition. "
    "Then, find recent news (post-filing, from 2024) about AMD's AI chip strategy and explain "
    "how this new strategy directly addresses or exacerbates one of Northwind's stated risks."
)


def _corpus(settings: Settings, embedder):
    from core.app.corpus import Corpus

    corpus = Corpus(settings, embedder=embedder)
    corpus.ingest_path(SAMPLE)
    return corpus


def _check_citations(record):
    answer = record.answer
    assert answer.citations and answer.invalid_markers == []
    for c in answer.citations:
        ev = record.evidence[c.n - 1]
        assert ev.id == c.evidence_id
        assert f"[{c.n}]" in answer.text
    cited = [record.evidence[c.n - 1] for c in answer.citations]
    assert any(e.kind == "chunk" and e.section.startswith("Item 1A") for e in cited)
    assert any(e.kind == "web" and e.url in SNAPSHOT_URLS for e in cited)


def _offline_walkthrough(settings, embedder):
    corpus = _corpus(settings, embedder)
    svc = ResearchService.from_corpus(settings, corpus, web=SnapshotWebSearch(SNAPSHOT))
    record = svc.ask(WALKTHROUGH)
    assert record.status == "done" and record.backend == "offline engine"
    assert [s.tool for s in record.plan] == ["filing_search", "web_search", "filing_search"]
    assert record.plan[0].section == "Item 1A. Risk Factors"
    assert record.total_usage.calls == 0
    _check_citations(record)
    assert "competition" in record.answer.text.lower() and "AMD" in record.answer.text
    reranked = [e for e in record.events if e.type == "hits_reranked" and e.step == 0]
    # Named, never a silent no-op: offline the measured best is the search's own order.
    assert reranked[0].reranker.kind == "none" and reranked[0].reranker.reason
    return record


def test_offline_engine_answers_the_walkthrough_question_on_the_sample(settings, hash_embedder):
    _offline_walkthrough(settings, hash_embedder)


@pytest.mark.slow
def test_offline_engine_with_the_real_embedder(settings, real_embedder):
    record = _offline_walkthrough(settings, real_embedder)
    # The connect step's own search may find nothing usable: its juxtaposition no longer
    # raises its coverage (fault 4), so it is revised and, if still weak, the gap is said.
    assert record.stop_reason.code == "completed" or (
        record.stop_reason.code == "max_revisions" and "step 3" in record.stop_reason.message)


def _expected_ids(settings, corpus, plan, queries):
    """The evidence ids retrieval will return for each step (retrieval is deterministic)."""
    deps = AgentDeps(settings=settings, retriever=corpus.retriever, corpus=CorpusInfo.from_store(
        corpus.store), web=SnapshotWebSearch(SNAPSHOT), reranker=corpus.reranker,
        embedder=corpus.embedder)
    hits, _, _, _ = search_filings(plan[0], queries[0], "hybrid", [], deps)
    first, _, _ = rerank_hits(queries[0], hits, "filing_search", deps)
    web, _ = search_web(queries[1], deps)
    second, _, _ = rerank_hits(queries[1], web, "web_search", deps)
    return [h.chunk.chunk_id for h in first], [h.chunk.chunk_id for h in second]


def script_walkthrough(server, settings, corpus, doc_id: str) -> tuple[list[str], list[str]]:
    """Queue a two-step walk-through's LLM replies (plan, rewrite and distil per step, answer,
    self-check) on the fake server, in plan order; returns the filing and web evidence ids
    the distiller replies cite."""
    from core.agent.state import PlanStep

    plan = [PlanStep(sub_question="What competition risks does Northwind state?",
                     tool="filing_search", keywords=["competition"],
                     section="Item 1A. Risk Factors", doc_ids=[doc_id]),
            PlanStep(sub_question="What is AMD's 2024 AI chip strategy?", tool="web_search",
                     keywords=["AMD", "AI"])]
    queries = ["competition larger GPU accelerator vendors", "AMD Instinct AI accelerator 2024"]
    filing_ids, web_ids = _expected_ids(settings, corpus, plan, queries)
    server.enqueue(
        Behaviour.json({"steps": [p.model_dump() for p in plan]}),
        Behaviour.json({"query": queries[0], "strategy": "hybrid", "justification": "mixed"}),
        Behaviour.json({"context": f"- Intense competition from NVIDIA and AMD [{filing_ids[0]}]",
                        "finding": "Northwind faces larger rivals.", "coverage": "answered",
                        "missing": ""}),
        Behaviour.json({"query": queries[1], "strategy": "hybrid", "justification": "web"}),
        Behaviour.json({"context": f"- AMD ships Instinct accelerators yearly [{web_ids[0]}]",
                        "finding": "AMD accelerates its AI roadmap.", "coverage": "answered",
                        "missing": ""}),
        Behaviour.json({"answer": "Northwind names larger GPU vendors as a key risk [1]. AMD's "
                        "annual Instinct cadence [2] exacerbates that risk [1][2].",
                        "not_found": []}),
        Behaviour.json({"verdicts": [{"index": 1, "supported": True, "reason": "in [1]"},
                                     {"index": 2, "supported": True, "reason": "in [1][2]"}]}),
    )
    return filing_ids, web_ids


@pytest.mark.slow
def test_full_run_with_real_chatopenai_and_json_schema(openai_server, tmp_path,  # noqa: F811
                                                       hash_embedder):
    settings = llm_settings(openai_server, tmp_path)  # steps in plan order, as scripted
    corpus = _corpus(settings, hash_embedder)
    doc_id = corpus.documents()[0].doc_id
    filing_ids, web_ids = script_walkthrough(openai_server, settings, corpus, doc_id)
    svc = ResearchService.from_corpus(settings, corpus, llm=make_chat_model(settings),
                                      web=SnapshotWebSearch(SNAPSHOT))
    record = svc.ask(WALKTHROUGH)
    requests = openai_server.chat_requests
    assert len(requests) == 7
    assert all(r["response_format"]["type"] == "json_schema" for r in requests)
    assert {r: u.calls for r, u in record.usage.items()} == \
        {"planner": 1, "rewriter": 2, "distiller": 2, "synthesizer": 1, "selfcheck": 1}
    assert [c.verdict for c in record.answer.checks] == ["supported", "supported"]
    assert record.total_usage.prompt_tokens > 0 and record.warnings == []
    assert record.answer.source == "llm"
    _check_citations(record)
    assert record.evidence[0].id == filing_ids[0] and record.evidence[1].id == web_ids[0]
    assert "sk-test-SECRET" not in record.model_dump_json()
