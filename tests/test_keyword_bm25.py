"""The keyword index scores exactly as rank_bm25's BM25Okapi (the oracle), filters before the cut,
tokenises each document once, and follows the registry (this process's and other processes')."""

from __future__ import annotations

import random

import pytest
from rank_bm25 import BM25Okapi

from core.foundation.types import Chunk, DocumentMeta
from core.store.documents import SqliteRegistry
from core.store.keyword import KeywordIndex
from core.store.tokenize import tokenize

# Zipf-like: the first words sit in most chunks (negative IDF -> epsilon floor), the last in few.
WORDS = ["revenue", "million", "total", "risk", "segment", "margin", "export", "china", "wafer",
         "foundry", "goodwill", "impairment", "lease", "dividend", "hedge", "tariff", "gaming",
         "datacenter", "automotive", "capex", "2023", "26974", "3.5"]
SECTIONS = ["Item 1. Business", "Item 1A. Risk Factors", "Item 7. MD&A", "Item 8. Statements"]


def _doc(name: str, rng: random.Random, n_chunks: int) -> tuple[DocumentMeta, list[Chunk]]:
    doc_id = f"{name:0<16}"[:16]
    chunks = []
    weights = [1 / (i + 1) ** 1.2 for i in range(len(WORDS))]
    for i in range(n_chunks):
        n = rng.choice([0, 1, 3, 8, 15, 30])  # some chunks hold no token at all
        text = " ".join(rng.choices(WORDS, weights, k=n)) + " the of and"  # stopwords dropped
        chunks.append(Chunk(chunk_id=f"{doc_id}-{i:05d}", doc_id=doc_id, index=i, text=text,
                            section=SECTIONS[i * len(SECTIONS) // n_chunks], start=0, end=1))
    meta = DocumentMeta(doc_id=doc_id, file_name=f"{name}.htm", company=name.upper(),
                        n_chunks=n_chunks)
    return meta, chunks


def _add(registry: SqliteRegistry, meta, chunks) -> None:
    registry.write_pending(meta, chunks)
    registry.mark_ready(meta.doc_id)


@pytest.fixture
def corpus(tmp_path):
    rng = random.Random(7)
    registry = SqliteRegistry(tmp_path / "registry.sqlite")
    docs = [_doc(name, rng, n) for name, n in (("nvda", 40), ("amd", 25), ("intel", 33))]
    for meta, chunks in docs:
        _add(registry, meta, chunks)
    yield registry, docs
    registry.close()


class Oracle:
    """rank_bm25 over the same rows, in the same order, with filters applied before the cut."""

    def __init__(self, registry: SqliteRegistry, text_of=lambda c, d: c.text):
        metas = {d.doc_id: d for d in registry.documents()}
        self.chunks = registry.chunks()
        self.bm25 = BM25Okapi([tokenize(text_of(c, metas[c.doc_id])) for c in self.chunks])

    def ranking(self, query, doc_ids=None, sections=None) -> list[tuple[str, float]]:
        scores = self.bm25.get_scores(tokenize(query))
        keep = [i for i, c in enumerate(self.chunks)
                if (doc_ids is None or c.doc_id in doc_ids)
                and (sections is None or c.section in sections) and scores[i] > 0]
        keep.sort(key=lambda i: (-scores[i], i))
        return [(self.chunks[i].chunk_id, float(scores[i])) for i in keep]


def assert_same_top(got, full_ranking, k):
    """``got`` is the oracle's top ``k``: same scores; ids equal up to ties in score."""
    want = full_ranking[:k]
    assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-9, abs=1e-12)
    assert len({c for c, _ in got}) == len(got)
    for cid, score in got:
        tied = {c for c, s in full_ranking if abs(s - score) <= 1e-9 * max(1.0, abs(score))}
        assert cid in tied


QUERIES = ["revenue", "export china tariff", "Revenue revenue million", "capex 26,974",
           "goodwill impairment lease", "datacenter automotive gaming 3.5%", "unknownword",
           "the of and", "total margin segment risk million revenue"]


def test_scores_equal_rank_bm25_with_filters_before_the_cut(corpus):
    registry, docs = corpus
    index = KeywordIndex(registry)
    oracle = Oracle(registry)
    nvda, amd = docs[0][0].doc_id, docs[1][0].doc_id
    filters = [(None, None), ([nvda], None), (None, ["Item 1A. Risk Factors"]),
               ([amd, nvda], ["Item 7. MD&A", "Item 8. Statements"]), (["missing"], None)]
    for query in QUERIES:
        for doc_ids, sections in filters:
            for k in (1, 3, 10, 500):
                got = index.search(query, k, doc_ids, sections)
                assert_same_top(got, oracle.ranking(query, doc_ids, sections), k)
    assert index.search("revenue", 0) == [] and len(index) == len(oracle.chunks)


def test_score_and_idf_equal_rank_bm25(corpus):
    registry, _ = corpus
    index = KeywordIndex(registry)
    oracle = Oracle(registry)
    ids = [c.chunk_id for c in oracle.chunks[::3]] + ["no-such-chunk"]
    rows = list(range(0, len(oracle.chunks), 3))
    for query in QUERIES:
        got = index.score(query, ids)
        want = oracle.bm25.get_batch_scores(tokenize(query), rows) + [0.0]
        assert [got[c] for c in ids] == pytest.approx(want, rel=1e-9, abs=1e-12)
    terms = WORDS + ["unknownword"]
    idf = index.idf(terms)
    assert [idf[t] for t in terms] == pytest.approx(
        [oracle.bm25.idf.get(t, 0.0) for t in terms], rel=1e-9)
    half = len(oracle.chunks) / 2
    floored = [w for w in WORDS if sum(w in d for d in oracle.bm25.doc_freqs) > half]
    assert floored  # terms in more than half of the chunks get rank_bm25's epsilon floor
    assert idf[floored[0]] == pytest.approx(0.25 * oracle.bm25.average_idf)


def test_add_and_delete_tokenise_only_new_documents(corpus):
    registry, docs = corpus
    seen: list[str] = []

    def counting(text: str) -> list[str]:
        seen.append(text)
        return tokenize(text)

    index = KeywordIndex(registry, tokenizer=counting)
    assert len(index) == sum(len(c) for _, c in docs)
    n_first = len(seen)
    meta, chunks = _doc("tsmc", random.Random(3), 12)
    _add(registry, meta, chunks)
    index.invalidate()
    index.search("revenue", 5)
    assert len(seen) - n_first == len(chunks) + 1  # the new chunks, plus the query
    registry.remove(docs[1][0].doc_id)
    index.invalidate(docs[1][0].doc_id)
    for query in QUERIES:
        assert_same_top(index.search(query, 7), Oracle(registry).ranking(query), 7)
    assert len(seen) - n_first == len(chunks) + 1 + len(QUERIES)


def test_changes_by_another_process_are_seen_without_invalidate(corpus, tmp_path):
    registry, _ = corpus
    index = KeywordIndex(registry)
    index.search("revenue", 3)
    other = SqliteRegistry(tmp_path / "registry.sqlite")  # another writer on the same file
    try:
        meta, chunks = _doc("qualcomm", random.Random(5), 6)
        chunks[2] = chunks[2].model_copy(update={"text": "snapdragon modem royalties"})
        _add(other, meta, chunks)
        assert index.search("snapdragon", 3)[0][0] == chunks[2].chunk_id
        other.remove(meta.doc_id)
        assert index.search("snapdragon", 3) == []
    finally:
        other.close()


def test_indexed_text_comes_from_text_of(corpus):
    registry, docs = corpus

    def with_context(chunk: Chunk, doc: DocumentMeta | None) -> str:
        return f"{doc.company if doc else ''} {chunk.section} {chunk.text}"

    index = KeywordIndex(registry, text_of=with_context)
    intel = docs[2][0].doc_id
    hits = index.search("INTEL business", 100)
    assert hits and all(cid.startswith(intel) for cid, _ in hits[:5])
    assert_same_top(hits, Oracle(registry, with_context).ranking("INTEL business"), 100)
    assert KeywordIndex(registry).search("INTEL", 5) == []  # the default indexes text only


def test_empty_registry_and_empty_texts(tmp_path):
    registry = SqliteRegistry(tmp_path / "r.sqlite")
    try:
        index = KeywordIndex(registry)
        assert index.search("revenue", 5) == [] and len(index) == 0
        assert index.score("revenue", ["x"]) == {"x": 0.0} and index.idf(["revenue"]) == {
            "revenue": 0.0}
        meta = DocumentMeta(doc_id="e" * 16, file_name="e.htm")
        _add(registry, meta, [Chunk(chunk_id="e" * 16 + "-00000", doc_id="e" * 16, index=0,
                                    text="the of", section="Document", start=0, end=6)])
        assert index.search("the", 5) == [] and len(index) == 1
    finally:
        registry.close()
