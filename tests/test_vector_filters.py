"""Filtered vector search: the same hits as exact cosine over the ready chunks in scope, whichever
path serves it (vectors in memory, over-fetched unfiltered query, Chroma's ids subset)."""

from __future__ import annotations

import numpy as np
import pytest

from core.store import corpus_store
from core.store.corpus_store import CorpusStore
from testkit.corpus import make_doc

SECTIONS = ["Item 1. Business", "Item 1A. Risk Factors", "Item 7. MD&A"]
WORDS = ("revenue growth data center gaming export china competition supply wafer foundry "
         "margin lease debt dividend customers employees tax litigation patents").split()


def _filing(i: int, rng: np.random.Generator):
    rows = [(SECTIONS[j % 3], " ".join(rng.choice(WORDS, 6)) + f" filing{i} part{j}")
            for j in range(9)]
    return make_doc(f"filing-{i}.htm", rows, company=f"C{i}")


@pytest.fixture
def store(settings, hash_embedder):
    s = CorpusStore(settings, hash_embedder)
    rng = np.random.default_rng(1)
    for i in range(8):
        s.add(*_filing(i, rng))
    s.keyword.ensure()  # scopes come from the keyword index once it is built
    yield s
    s.close()


def exact(store, vec, doc_ids=None, sections=None):
    chunks = [c for c in store.chunks() if (doc_ids is None or c.doc_id in doc_ids)
              and (sections is None or c.section in sections)]
    vecs = store.get_vectors([c.chunk_id for c in chunks])
    q = vec / np.linalg.norm(vec)
    scored = [(c.chunk_id, float(vecs[c.chunk_id] @ q / np.linalg.norm(vecs[c.chunk_id])))
              for c in chunks]
    return sorted(scored, key=lambda p: -p[1])


def assert_same(got, ranking, k):
    """``got`` is the exact top ``k``: same scores, ids equal up to ties (hashed vectors tie)."""
    assert [s for _, s in got] == pytest.approx([s for _, s in ranking[:k]], abs=1e-5)
    assert len({c for c, _ in got}) == len(got)
    for cid, score in got:
        assert cid in {c for c, s in ranking if abs(s - score) <= 1e-5}


@pytest.mark.parametrize("memory_docs, open_max", [(4, 1000), (0, 1000), (0, 0)],
                         ids=["memory", "over-fetch", "ids-subset"])
def test_filtered_search_equals_exact_cosine(store, memory_docs, open_max, monkeypatch):
    monkeypatch.setattr(corpus_store, "_MEMORY_DOCS", memory_docs)
    monkeypatch.setattr(corpus_store, "_OPEN_MAX", open_max)
    monkeypatch.setattr(store.vectors, "query",
                        lambda *a, **kw: pytest.fail("the slow where-clause path ran"))
    docs = [d.doc_id for d in store.documents()]
    for text in ("data center revenue growth", "export china competition", "lease debt tax"):
        vec = store.embedder.encode([text])[0]
        for doc_ids, sections in (([docs[2]], None), (docs[:3], ["Item 1A. Risk Factors"]),
                                  (docs[1:7], None), (None, ["Item 7. MD&A"]),
                                  ([docs[0]], ["Item 7. MD&A", "Item 1. Business"])):
            for k in (1, 4, 30):
                assert_same(store.vector_search(vec, k, doc_ids, sections),
                            exact(store, vec, doc_ids=doc_ids, sections=sections), k)
        assert_same(store.vector_search(vec, 6), exact(store, vec), 6)
        assert store.vector_search(vec, 5, ["unknown"]) == []
        assert store.vector_search(vec, 5, docs, ["No such section"]) == []


def test_filings_searched_in_memory_are_fetched_once(store, monkeypatch):
    calls = []
    real = store.vectors.get_vectors
    monkeypatch.setattr(store.vectors, "get_vectors", lambda ids: calls.append(ids) or real(ids))
    doc = store.documents()[3].doc_id
    vec = store.embedder.encode(["customers employees"])[0]
    first = store.vector_search(vec, 3, [doc])
    again = store.vector_search(vec, 3, [doc], ["Item 1A. Risk Factors"])
    assert len(calls) == 1 and first and again
    store.delete(doc)
    assert store.vector_search(vec, 3, [doc]) == []  # deleted: out of scope, cache unused


@pytest.mark.parametrize("memory_docs", [4, 0])
def test_filtered_search_never_returns_pending_chunks(store, memory_docs, monkeypatch):
    monkeypatch.setattr(corpus_store, "_MEMORY_DOCS", memory_docs)
    text = "data center revenue growth"
    vec = store.embedder.encode([text])[0]
    rng = np.random.default_rng(2)
    rows = [("Item 7. MD&A", f"{text} {i}") for i in range(60)]
    meta, chunks = make_doc("pending.htm", rows)
    near = vec + rng.normal(0, 0.2 / np.sqrt(vec.size), (len(rows), vec.size))
    store.registry.write_pending(meta, chunks)  # never marked ready
    store.vectors.add(chunks, (near / np.linalg.norm(near, axis=1, keepdims=True)).astype(
        np.float32))
    docs = [d.doc_id for d in store.documents()]
    for doc_ids, sections in ((None, ["Item 7. MD&A"]), (docs[:6], None), ([meta.doc_id], None)):
        got = store.vector_search(vec, 5, doc_ids, sections)
        assert not any(cid.startswith(meta.doc_id) for cid, _ in got)
        assert_same(got, exact(store, vec, doc_ids=doc_ids and [d for d in doc_ids if d in docs],
                               sections=sections), 5)


def test_filtered_search_before_the_keyword_index_is_built(store, settings, hash_embedder):
    assert store.keyword.scope(None, None) is not None
    store.close()
    cold = CorpusStore(settings, hash_embedder)  # reopened: keyword index not built yet
    try:
        docs = [d.doc_id for d in cold.documents()]
        vec = cold.embedder.encode(["export china competition"])[0]
        got = cold.vector_search(vec, 4, docs[:2], ["Item 1A. Risk Factors"])
        assert_same(got, exact(cold, vec, docs[:2], ["Item 1A. Risk Factors"]), 4)
        assert cold.keyword.scope(None, None) is None  # a vector search does not build it
        cold.keyword_search("export", 3)
        assert len(cold.keyword.scope(docs[:2], None)) == 18
    finally:
        cold.close()
