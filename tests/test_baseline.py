"""The shallow baseline on the real store and sample filing: fixed chunks, vector top-3,
one LLM call (or the offline extractive answer), same RunRecord shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.baseline.pieces import CHUNK_OVERLAP, CHUNK_SIZE, document_text, split_document
from core.baseline.rag import run_baseline
from core.llm.prompts import EVIDENCE_OPEN
from testkit.fakes.chat_model import FakeChatModel

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "northwind-10k-fy2024.htm"
QUESTION = "What are Northwind's key risks related to competition?"


class CountingEmbedder:
    """Wraps an embedder and counts the texts it encodes."""

    def __init__(self, inner):
        self.inner, self.name, self.dim, self.encoded = inner, inner.name, inner.dim, 0

    def encode(self, texts):
        self.encoded += len(texts)
        return self.inner.encode(texts)


@pytest.fixture
def corpus(settings, hash_embedder):
    from core.app.corpus import Corpus

    c = Corpus(settings, embedder=CountingEmbedder(hash_embedder))
    c.ingest_path(SAMPLE)
    yield c
    c.close()


def test_fixed_size_chunks_ignore_sections(corpus):
    doc = corpus.documents()[0]
    chunks = corpus.store.chunks(doc.doc_id)
    text = document_text(chunks)
    assert all(text[c.start:c.end] == c.text for c in chunks)
    pieces = split_document(doc, chunks)
    assert all(len(p.text) <= CHUNK_SIZE for p in pieces)
    assert all(text[p.start:p.end] == p.text for p in pieces)
    # neighbours overlap by up to 150 characters, across section boundaries
    assert any(0 < a.end - b.start <= CHUNK_OVERLAP for a, b in zip(pieces, pieces[1:],
                                                                       strict=False))
    assert len({p.section for p in pieces}) > 1


def test_offline_baseline_is_extractive_with_citations(settings, corpus):
    record = run_baseline(QUESTION, settings=settings, store=corpus.store,
                          embedder=corpus.embedder)
    assert record.kind == "baseline" and record.total_usage.calls == 0
    assert len(record.evidence) == 3 and record.answer.source == "offline"
    assert record.answer.citations and record.answer.invalid_markers == []
    for c in record.answer.citations:
        assert record.evidence[c.n - 1].id == c.evidence_id
    hits = record.events[0].hits
    assert [h.rank for h in hits] == [1, 2, 3] and all("vector" in h.stages for h in hits)
    assert record.wall_s > 0 and set(record.timings_ms) == {"retrieve", "generate"}


def test_llm_baseline_makes_one_call_and_caches_vectors(settings, corpus):
    llm = FakeChatModel()
    llm.enqueue({"answer": "Competition from larger vendors [1]. Made up [4]."})
    record = run_baseline(QUESTION, settings=settings, store=corpus.store,
                          embedder=corpus.embedder, llm=llm)
    assert record.usage["baseline"].calls == 1 and len(llm.history) == 1
    assert f"{EVIDENCE_OPEN} id=3" in llm.history[0][-1].content
    assert record.answer.text == "Competition from larger vendors [1]. Made up."
    assert record.answer.invalid_markers == ["[4]"]
    encoded = corpus.embedder.encoded
    llm.enqueue({"answer": "Again [1]."})
    run_baseline(QUESTION, settings=settings, store=corpus.store, embedder=corpus.embedder,
                 llm=llm)
    assert corpus.embedder.encoded == encoded + 1  # only the question: chunk vectors cached


@pytest.fixture
def two_companies(settings, hash_embedder):
    from core.app.corpus import Corpus
    from testkit.filings import two_company_corpus

    c = Corpus(settings, embedder=hash_embedder)
    for filing in two_company_corpus():
        c.ingest_bytes(filing.html(), filing.file_name)
    yield c
    c.close()


def _companies_cited(record, corpus) -> set[str]:
    names = {d.doc_id: d.file_name[:3] for d in corpus.documents()}
    return {names[e.doc_id] for e in record.evidence}


def test_given_no_filings_a_question_naming_one_company_searches_its_filings(settings,
                                                                             two_companies):
    record = run_baseline("What does Southgate say about competition and revenue?",
                          settings=settings, store=two_companies.store,
                          embedder=two_companies.embedder)
    assert _companies_cited(record, two_companies) == {"sgl"}  # never Northwind's filings
    southgate = {d.doc_id for d in two_companies.documents() if d.file_name.startswith("sgl")}
    assert {e.doc_id for e in record.evidence} == southgate  # its 10-K and its 10-Q
    assert record.doc_scope == []  # the analyst chose none


def test_given_no_filings_a_question_naming_no_company_searches_every_filing(settings,
                                                                             two_companies):
    record = run_baseline("Who says what about competition and revenue?", settings=settings,
                          store=two_companies.store, embedder=two_companies.embedder)
    assert _companies_cited(record, two_companies) == {"nwi", "sgl"}
