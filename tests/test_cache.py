"""core.foundation.cache (bounded persistent LRU) and its use by the agent: a re-run of a
question costs no new LLM call (real ChatOpenAI against the fake server), retrieval entries
die with a corpus change, and the setting turns it all off."""

from __future__ import annotations

import pytest

from core.agent.deps import AgentDeps, CorpusInfo
from core.agent.roles.retrieval import CACHE_HIT, search_filings
from core.agent.state import PlanStep
from core.app.research import ResearchService
from core.foundation.cache import DiskCache, cache_key, open_cache
from core.llm.factory import make_chat_model
from core.retrieval.web import SnapshotWebSearch
from testkit.fakes.fixtures import llm_settings, openai_server  # noqa: F401 (fixture)
from tests.test_agent_e2e import SNAPSHOT, WALKTHROUGH, _corpus, script_walkthrough


def test_entry_bound_evicts_least_recently_used(tmp_path):
    cache = DiskCache(tmp_path / "c.sqlite", max_entries=3, max_bytes=10_000)
    for k in "abc":
        cache.put("ns", k, k.encode())
    assert cache.get("ns", "a") == b"a"  # a becomes the most recently used
    cache.put("ns", "d", b"d")
    assert cache.get("ns", "b") is None and cache.get("ns", "a") == b"a"
    assert cache.stats().entries == 3


def test_byte_bound_holds_and_oversized_values_are_not_stored(tmp_path):
    cache = DiskCache(tmp_path / "c.sqlite", max_entries=100, max_bytes=1000)
    for i in range(10):
        cache.put("ns", str(i), b"x" * 300)
    stats = cache.stats()
    assert stats.bytes <= 1000 and stats.entries == 3
    assert cache.get("ns", "9") is not None and cache.get("ns", "0") is None
    assert not cache.put("ns", "big", b"x" * 1001) and cache.get("ns", "big") is None


def test_cache_persists_across_instances_and_keys_are_stable(tmp_path):
    DiskCache(tmp_path / "c.sqlite").put("llm", cache_key("m", [1, 2]), b"v")
    assert DiskCache(tmp_path / "c.sqlite").get("llm", cache_key("m", [1, 2])) == b"v"
    assert cache_key("m", [1, 2]) != cache_key("m", [2, 1])
    with pytest.raises(ValueError, match="max_entries must be greater than 0"):
        DiskCache(tmp_path / "d.sqlite", max_entries=0)


def _script(server, settings, corpus) -> None:
    script_walkthrough(server, settings, corpus, corpus.documents()[0].doc_id)


def _service(settings, corpus) -> ResearchService:
    return ResearchService.from_corpus(settings, corpus, llm=make_chat_model(settings),
                                       web=SnapshotWebSearch(SNAPSHOT))


def test_a_rerun_costs_no_new_llm_call(openai_server, tmp_path, hash_embedder):  # noqa: F811
    settings = llm_settings(openai_server, tmp_path, cache_enabled=True)
    corpus = _corpus(settings, hash_embedder)
    _script(openai_server, settings, corpus)
    first = _service(settings, corpus).ask(WALKTHROUGH)
    sent = len(openai_server.chat_requests)
    assert first.total_usage.calls == sent > 0 and first.total_usage.cache_hits == 0
    assert first.warnings == []  # every role's call succeeded, so every reply is cached
    # A new service (as after a restart) over the same data folder: all from the cache.
    again = _service(settings, corpus).ask(WALKTHROUGH)
    assert len(openai_server.chat_requests) == sent
    assert again.total_usage.calls == 0 and again.total_usage.cache_hits == sent
    assert again.answer.text == first.answer.text
    assert [e.id for e in again.evidence] == [e.id for e in first.evidence]
    searched = [e for e in again.events if e.type == "hits_retrieved" and e.tool ==
                "filing_search"]
    assert searched and all(e.timings_ms.get(CACHE_HIT) for e in searched)


def test_cache_setting_off_calls_the_endpoint_again(openai_server, tmp_path,  # noqa: F811
                                                    hash_embedder):
    settings = llm_settings(openai_server, tmp_path, cache_enabled=False)
    assert open_cache(settings) is None
    corpus = _corpus(settings, hash_embedder)
    _script(openai_server, settings, corpus)
    _service(settings, corpus).ask(WALKTHROUGH)
    sent = len(openai_server.chat_requests)
    _script(openai_server, settings, corpus)
    again = _service(settings, corpus).ask(WALKTHROUGH)
    assert len(openai_server.chat_requests) == 2 * sent and again.total_usage.cache_hits == 0


def test_corpus_change_invalidates_retrieval_entries(settings, hash_embedder):
    settings = settings.model_copy(update={"cache_enabled": True})
    corpus = _corpus(settings, hash_embedder)
    deps = AgentDeps(settings=settings, retriever=corpus.retriever,
                     corpus=CorpusInfo.from_store(corpus.store), cache=open_cache(settings),
                     corpus_generation=corpus.store.registry.generation)
    step = PlanStep(sub_question="competition risks", tool="filing_search")
    first = search_filings(step, "competition risks", "hybrid", [], deps)
    second = search_filings(step, "competition risks", "hybrid", [], deps)
    assert CACHE_HIT not in first[2] and second[2] == {CACHE_HIT: 1.0}
    assert [h.chunk.chunk_id for h in second[0]] == [h.chunk.chunk_id for h in first[0]]
    text = ("Acme Widgets annual report. Item 1A. Risk Factors. Competition risks: rivals "
            "with more capital compete on price. ") * 20
    corpus.ingest_bytes(text.encode(), "acme.txt", company="Acme Widgets", form_type="10-K",
                        period="FY2024")
    third = search_filings(step, "competition risks", "hybrid", [], deps)
    assert CACHE_HIT not in third[2]
    assert {h.document.company for h in third[0]} >= {"Acme Widgets"}


def test_a_search_is_cached_per_corpus_not_per_generation_number(settings, hash_embedder,
                                                                 tmp_path):
    """Two corpora at the same generation number (another data folder, or the same folder
    later pointed at a team database) never share a cached search."""
    from core.agent.agent_cache import retrieval_key

    settings = settings.model_copy(update={"cache_enabled": True})
    other = settings.model_copy(update={"data_dir": tmp_path / "other-corpus"})

    def key(s):
        deps = AgentDeps(settings=s, retriever=None, corpus=CorpusInfo([]),
                         cache=open_cache(settings), corpus_generation=lambda: 3)
        return retrieval_key(deps, "competition risks", "hybrid", None, None)

    assert key(settings) == key(settings)
    assert key(settings) != key(other)
    assert key(settings) != key(settings.model_copy(update={"chroma_url": "http://127.0.0.1:9"}))
    int8 = settings.model_copy(update={"embedding_backend": "onnx-int8"})  # other vectors
    assert key(settings) != key(int8)
