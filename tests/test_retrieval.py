"""Retrieval: tokenizer, RRF, section filters, the search funnel and its per-stage scores."""

from __future__ import annotations

import pytest

from core.foundation.errors import RetrievalError
from core.retrieval.fallback import FallbackReranker
from core.retrieval.filters import section_matches
from core.retrieval.fusion import rrf
from core.retrieval.rerank import get_reranker
from core.retrieval.retriever import Retriever
from core.store.corpus_store import CorpusStore
from core.store.tokenize import tokenize
from testkit.corpus import amd_10k, make_doc, nvda_10k, nvda_10q
from tests.waiting import CEILING_S


@pytest.fixture
def corpus(settings, hash_embedder):
    store = CorpusStore(settings, hash_embedder)
    for meta, chunks in (nvda_10k(), nvda_10q(), amd_10k()):
        store.add(meta, chunks)
    retriever = Retriever(store, hash_embedder, get_reranker(settings, hash_embedder, store),
                          settings)
    yield retriever
    store.close()


@pytest.mark.parametrize(("text", "tokens"), [
    ("$1,577", ["1577"]),
    ("26,974", ["26974"]),
    ("(1,234)", ["1234"]),
    ("Gross margin was 3.5%.", ["gross", "margin", "3.5"]),
    ("Revenue $ 26,974 $ 26,914", ["revenue", "26974", "26914"]),
    ("NVIDIA's REVENUE, Net-Income", ["nvidia", "revenue", "net", "income"]),
    ("1,234,567.89 and 2015.", ["1234567.89", "2015"]),
    ("Risks: competitors, losses", ["risks", "competitors", "losses"]),
    ("What did the company describe about its risks, according to the filing?", ["risks"]),
])
def test_tokenizer(text, tokens):
    assert tokenize(text) == tokens


def test_optional_plural_folding():
    assert tokenize("Risks: competitors, industries, losses, taxes, basis", stem=True) == [
        "risk", "competitor", "industry", "loss", "tax", "basis"]


def test_tokenizer_keeps_unrelated_numbers_apart():
    assert tokenize("1,2,3") == ["1", "2", "3"]
    assert tokenize("10-K") == ["10"]


def test_rrf_math_on_a_hand_made_case():
    fused = rrf([["a", "b", "c"], ["c", "a", "d"]], k=60)
    assert [i for i, _ in fused] == ["a", "c", "b", "d"]
    scores = dict(fused)
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert scores["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert scores["b"] == pytest.approx(1 / 62) and scores["d"] == pytest.approx(1 / 63)
    assert rrf([["x", "y"], ["y", "x"]], k=1) == [("x", 1 / 2 + 1 / 3), ("y", 1 / 3 + 1 / 2)]
    with pytest.raises(ValueError):
        rrf([["a"]], k=0)


@pytest.mark.parametrize(("wanted", "title", "ok"), [
    ("Item 1A", "Item 1A. Risk Factors", True),
    ("item 1a", "Part II — Item 1A. Risk Factors", True),
    ("Item 1A. Risk Factors", "Item 1A. Risk Factors", True),
    ("ITEM 1A.  RISK FACTORS", "Item 1A. Risk Factors", True),
    ("Risk Factors", "Part II — Item 1A. Risk Factors", True),
    ("Part II Item 1A", "Part II — Item 1A. Risk Factors", True),
    ("Part I Item 1A", "Part II — Item 1A. Risk Factors", False),
    ("Item 1", "Item 1A. Risk Factors", False),
    ("Item 1", "Item 11. Executive Compensation", False),
    ("Item 1", "Item 1. Business", True),
    ("Risk", "Item 1A. Risk Factors", True),
    ("Factor", "Item 1A. Risk Factors", False),
])
def test_section_matching(wanted, title, ok):
    assert section_matches(wanted, title) is ok


def test_every_hit_carries_its_stage_scores(corpus):
    q = "competition from AMD and Intel could reduce revenue"
    vec = corpus.search(q, strategy="vector", k=3, rerank=False)
    kw = corpus.search(q, strategy="keyword", k=3, rerank=False)
    assert vec.hits and all(set(h.stages) == {"vector"} for h in vec.hits)
    assert kw.hits and all(set(h.stages) == {"keyword"} for h in kw.hits)
    assert [h.rank for h in kw.hits] == [1, 2, 3]
    assert [h.stages["keyword"].rank for h in kw.hits] == [1, 2, 3]
    scores = [h.score for h in kw.hits]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0
    hyb = corpus.search(q, strategy="hybrid", k=4, rerank=False)
    by_id_kw = {h.chunk.chunk_id: h.stages["keyword"] for h in kw.hits}
    for hit in hyb.hits:
        assert "fused" in hit.stages and ({"vector", "keyword"} & set(hit.stages))
        if hit.chunk.chunk_id in by_id_kw:  # the same BM25 rank as a keyword-only search
            assert hit.stages["keyword"] == by_id_kw[hit.chunk.chunk_id]
        assert hit.score == hit.stages["fused"].score and hit.document is not None
    assert hyb.reranker is None
    kept = corpus.search(q, strategy="hybrid", k=3)  # offline default: the measured "none"
    assert kept.reranker is not None and kept.reranker.kind == "none" and kept.reranker.reason
    assert [h.chunk.chunk_id for h in kept.hits] == [h.chunk.chunk_id for h in hyb.hits[:3]]
    assert [h.rank for h in kept.hits] == [1, 2, 3]
    corpus.reranker = FallbackReranker(corpus.embedder, corpus.store, method="lexical")
    rr = corpus.search(q, strategy="hybrid", k=3)
    assert rr.reranker is not None and rr.reranker.kind == "fallback" and rr.reranker.reason
    assert all({"fused", "reranked"} <= set(h.stages) for h in rr.hits)
    assert [h.stages["reranked"].rank for h in rr.hits] == [h.rank for h in rr.hits] == [1, 2, 3]
    assert set(rr.timings_ms) >= {"vector", "keyword", "rerank", "total"}


def test_bm25_handles_case_punctuation_numbers_and_boilerplate(corpus):
    top = corpus.search("What was the company's total REVENUE of 26974?", strategy="keyword",
                        k=1, rerank=False).hits[0]
    assert "26,974" in top.chunk.text
    top = corpus.search("According to the filing, how many employees?", strategy="keyword",
                        k=1, rerank=False, doc_ids=[nvda_10k()[0].doc_id]).hits[0]
    assert "26,196 employees" in top.chunk.text


def test_section_and_doc_filters(corpus):
    q10 = nvda_10q()[0].doc_id
    res = corpus.search("revenue", strategy="hybrid", k=10, sections=["Item 1A"])
    titles = {h.chunk.section for h in res.hits}
    assert titles == {"Item 1A. Risk Factors", "Part II — Item 1A. Risk Factors"}
    assert res.filters["sections"] == ["Item 1A. Risk Factors", "Part II — Item 1A. Risk Factors"]
    res = corpus.search("revenue", strategy="keyword", k=10, sections=["item 1a"], doc_ids=[q10])
    assert res.hits and all(h.chunk.doc_id == q10 for h in res.hits)
    assert all(h.chunk.section == "Part II — Item 1A. Risk Factors" for h in res.hits)
    res = corpus.search("revenue", strategy="vector", k=10,
                        sections=["Item 8. Financial Statements"])
    assert {h.document.company for h in res.hits} == {"NVIDIA", "AMD"}


def test_bad_requests_raise_actionable_errors(corpus):
    with pytest.raises(RetrievalError, match="Item 1A. Risk Factors"):
        corpus.search("revenue", sections=["Item 9Z"])
    with pytest.raises(RetrievalError, match="nvda-10k.htm"):
        corpus.search("revenue", doc_ids=["nope"])
    with pytest.raises(RetrievalError, match="greater than 0"):
        corpus.search("revenue", k=0)
    with pytest.raises(RetrievalError, match="strategy"):
        corpus.search("revenue", strategy="magic")
    with pytest.raises(RetrievalError, match="empty"):
        corpus.search("   ")
    # A section that exists, but not in the selected document.
    with pytest.raises(RetrievalError, match="selected documents"):
        corpus.search("revenue", doc_ids=[amd_10k()[0].doc_id], sections=["Item 7"])


def test_empty_corpus_is_an_error(settings, hash_embedder):
    store = CorpusStore(settings, hash_embedder)
    retriever = Retriever(store, hash_embedder, None, settings)
    with pytest.raises(RetrievalError, match="ingest"):
        retriever.search("revenue")
    store.close()


def test_fallback_reranks_by_the_rewritten_query_not_the_raw_one(settings, hash_embedder):
    rows = [
        ("Item 1. Business", "Overview of the business. Our employees number 9,100 people "
         "across many sites."),
        ("Item 7. MD&A", "Overview of results. Net revenue was $3,991 million for the year."),
        ("Item 7. MD&A", "Overview of liquidity. Cash was $785 million at year end."),
    ]
    store = CorpusStore(settings, hash_embedder)
    meta, chunks = make_doc("amd-2015.pdf", rows)
    store.add(meta, chunks)
    lexical = get_reranker(settings, hash_embedder, store, choice="lexical")
    retriever = Retriever(store, hash_embedder, lexical, settings)
    raw = "overview"  # matches all three chunks equally
    first = retriever.search(raw, k=3, rerank_query="how many employees")
    second = retriever.search(raw, k=3, rerank_query="net revenue for the year")
    unranked = retriever.search(raw, k=3, rerank=False)
    assert first.rerank_query == "how many employees" and second.query == raw
    assert "employees" in first.hits[0].chunk.text
    assert "revenue" in second.hits[0].chunk.text
    assert [h.chunk.chunk_id for h in first.hits] != [h.chunk.chunk_id for h in second.hits]
    assert {h.chunk.chunk_id for h in unranked.hits} == {h.chunk.chunk_id for h in first.hits}
    assert retriever.search(raw, k=3).rerank_query == raw  # defaults to the query itself
    store.close()


def test_hybrid_runs_the_keyword_side_beside_the_vector_side(monkeypatch, tmp_path,
                                                             hash_embedder):
    """Issue 10: the vector and keyword retrieval of one step run in parallel (a barrier
    that breaks unless both searches wait at the same time)."""
    import threading

    from core.app.corpus import Corpus
    from core.foundation.config import Settings

    settings = Settings(data_dir=tmp_path / "store", _env_file=None)
    corpus = Corpus(settings, embedder=hash_embedder)
    text = ("Acme Widgets annual report. Item 1A. Risk Factors. Competition risks: rivals "
            "with more capital compete on price. ") * 20
    corpus.ingest_bytes(text.encode(), "acme.txt", company="Acme Widgets", form_type="10-K",
                        period="FY2024")
    store = corpus.store
    together = threading.Barrier(2, timeout=CEILING_S)
    for name in ("vector_search", "keyword_search"):
        real = getattr(store, name)

        def waiting(*args, _real=real, **kwargs):
            together.wait()  # BrokenBarrierError if the other side does not come meanwhile
            return _real(*args, **kwargs)

        monkeypatch.setattr(store, name, waiting)
    result = corpus.retriever.search("competition risks", strategy="hybrid", k=3)
    assert result.hits and {"vector", "keyword"} <= set(result.timings_ms)
    assert result.hits[0].document.company == "Acme Widgets"


def test_a_new_retriever_is_one_function_and_a_strategy_naming_it(corpus, monkeypatch):
    """Retriever.search asks the strategy registry which retrievers to fuse: a retriever
    registered under a new name and a strategy naming it beside "keyword" are searched and
    fused with no change to the search code."""
    from core.foundation import strategies
    from core.retrieval import retriever as module

    asked = []

    def section_titles(r, ask):  # ranks chunks whose section title shares a query word
        asked.append(ask)
        words = set(ask.query.lower().split())
        ranked = [(c.chunk_id, 1.0) for c in r.store.chunks()
                  if words & set(c.section.lower().split())][: ask.n]
        return {"titles": ranked}, {"titles": 0.1}

    monkeypatch.setitem(module.RETRIEVERS, "titles", section_titles)
    spec = strategies.StrategySpec("titled", "Titled", "titles + BM25", ("titles", "keyword"))
    monkeypatch.setitem(strategies.STRATEGIES, "titled", spec)
    result = corpus.search("risk factors competition", strategy="titled", k=5, rerank=False)
    assert asked and asked[0].query == "risk factors competition"
    assert set(result.timings_ms) >= {"titles", "keyword"}
    assert result.hits and all("fused" in h.stages for h in result.hits)
    assert any("titles" in h.stages for h in result.hits)
