"""Facts in the corpus: stored with the document's chunks, read back with filters, gone with
the document, the same after a re-ingest; an extraction failure keeps the filing; the
``facts`` command lists, summarises and rebuilds."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.app.corpus import Corpus
from core.foundation.errors import StoreError

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample" / "northwind-10k-fy2024.htm"  # inline XBRL, fictional


@pytest.fixture
def corpus(settings, hash_embedder):
    c = Corpus(settings, embedder=hash_embedder)
    yield c
    c.close()


def _rows(settings, table: str) -> int:
    with sqlite3.connect(settings.registry_path) as conn:
        return conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def test_ingest_stores_facts_read_back_with_filters(corpus):
    report = corpus.ingest_path(SAMPLE)
    doc_id = report.meta.doc_id
    store = corpus.store
    facts = store.facts()
    assert report.n_facts == len(facts) > 50 and report.warnings == []
    assert store.facts_status() == {doc_id: len(facts)}
    assert "facts" in report.timings
    revenue = store.facts([doc_id], concept="us-gaap:Revenues", fiscal_years=[2024])
    assert {(f.source, f.value) for f in revenue} == {("xbrl", 2_184_600_000.0),
                                                      ("table", 2_184_600_000.0)}
    assert all(f.statement == "income" for f in revenue)
    balance = store.facts(statement="balance", fiscal_years=[2023])
    assert balance and all(f.period_type == "instant" for f in balance)
    assert store.facts(["0000000000000000"]) == [] and store.facts([]) == []
    assert {f.metric for f in revenue} == {"revenue"}  # tagged by the metric catalogue
    net = store.facts(metric="net_income", fiscal_years=[2024], statement="income")
    assert {f.value for f in net} == {457_300_000.0}
    retagged = [f.model_copy(update={"metric": "revenue" if f.concept == "us-gaap:Revenues"
                                     else None}) for f in facts]
    store.write_facts(doc_id, retagged)  # replaces
    assert len(store.facts(metric="revenue")) == 4  # 2 years x (xbrl + table)
    assert store.facts_status() == {doc_id: len(facts)}


def test_delete_removes_facts_and_reingest_is_idempotent(corpus, settings):
    doc_id = corpus.ingest_path(SAMPLE).meta.doc_id
    first = corpus.store.facts([doc_id])
    again = corpus.ingest_path(SAMPLE)
    assert not again.added and corpus.store.facts([doc_id]) == first
    corpus.delete(doc_id)
    assert corpus.store.facts() == [] and corpus.store.facts_status() == {}
    assert _rows(settings, "facts") == 0 and _rows(settings, "fact_docs") == 0
    corpus.ingest_path(SAMPLE)
    assert [f.model_dump() for f in corpus.store.facts([doc_id])] == \
        [f.model_dump() for f in first]
    with pytest.raises(StoreError, match="No document"):
        corpus.store.write_facts("ffffffffffffffff", [])


def test_an_extraction_failure_keeps_the_filing_and_rebuild_recovers(
        corpus, settings, monkeypatch, capsys):
    import core.ingest.facts as facts_module
    from core.cli.main import main

    real = facts_module.extract_facts

    def broken(*args, **kwargs):
        raise ValueError("a table no one expected")

    monkeypatch.setattr(facts_module, "extract_facts", broken)
    report = corpus.ingest_path(SAMPLE)
    assert report.added and report.n_facts is None
    assert "a table no one expected" in report.warnings[0] and "--rebuild" in report.warnings[0]
    assert corpus.store.get_document(report.meta.doc_id) is not None
    assert corpus.store.facts_status() == {}

    monkeypatch.setattr(facts_module, "extract_facts", real)
    again = corpus.ingest_path(SAMPLE)  # unchanged, but now given its facts
    assert not again.added and again.n_facts and again.n_facts > 50
    corpus.store.registry.write_facts(report.meta.doc_id, [])
    with sqlite3.connect(settings.registry_path) as conn:
        conn.execute("DELETE FROM fact_docs")  # as if ingested before facts existed
    monkeypatch.setenv("DTR_DATA_DIR", str(settings.data_dir))
    assert main(["facts"]) == 0
    assert "not extracted" in capsys.readouterr().out
    assert main(["facts", "--rebuild"]) == 0
    out = capsys.readouterr().out
    assert "[1/1] ✓ northwind-10k-fy2024.htm" in out
    n = corpus.store.facts_status()[report.meta.doc_id]
    assert n > 50
    assert main(["facts"]) == 0
    assert f"{n} facts" in capsys.readouterr().out
    assert main(["facts", report.meta.doc_id, "--period", "FY2024", "--source", "xbrl",
                 "--concept", "us-gaap:Revenues"]) == 0
    listed = capsys.readouterr().out
    assert "2,184,600,000 USD" in listed and "1 of 1 fact(s)" in listed


BALANCE = ("Item 8. Financial Statements\nCONSOLIDATED BALANCE SHEETS\n(In millions)\n"
           "December 31, 2024    December 31, 2023\n"
           "Cash and cash equivalents      $ 1,874      $ 2,936\n"
           "Total current assets      8,802      10,539\n"
           "Total assets      $ 15,803      $ 17,504\n4")


SELECTED = "Item 6. Selected Financial Data\n(In millions)\n2024    2023\n" + "\n".join(
    f"Line item {k}      $ {k},{k:03d}      $ {k + 1},{k:03d}" for k in range(1, 40))


@pytest.mark.parametrize(("first", "later"), [("pypdf", "pdfium"), ("pypdf", "pypdf"),
                                              ("pdfium", "pypdf")])
def test_rebuilt_pdf_facts_cite_the_chunk_that_prints_their_row(
        tmp_path, hash_embedder, monkeypatch, capsys, first, later):
    """The two PDF readers lay a page out a few characters apart, so chunk offsets hold only
    for the reader the filing was ingested with: a rebuild reads the PDF the way its chunks
    were cut, whatever DTR_PDF_TEXT says now (a fact beside its row cited the wrong chunk)."""
    from core.cli.main import main
    from core.foundation.config import Settings
    from tests.test_cited_render import PAGES, make_pdf

    pdf = tmp_path / "acme-10k-fy2024.pdf"
    pdf.write_bytes(make_pdf([*PAGES, SELECTED, BALANCE]))
    settings = Settings(data_dir=tmp_path / "store", cache_enabled=False, pdf_text=first,
                        _env_file=None)
    corpus = Corpus(settings, embedder=hash_embedder)
    try:
        doc_id = corpus.ingest_path(pdf).meta.doc_id
        ingested = {(f.label, f.value): f.chunk_id for f in corpus.store.facts([doc_id])}
    finally:
        corpus.close()
    assert ingested[("Total assets", 15_803e6)]
    monkeypatch.setenv("DTR_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("DTR_PDF_TEXT", later)
    assert main(["facts", "--rebuild"]) == 0
    assert "[1/1] ✓ acme-10k-fy2024.pdf" in capsys.readouterr().out
    corpus = Corpus(settings, embedder=hash_embedder)
    try:
        facts = corpus.store.facts([doc_id])
        texts = {c.chunk_id: c.text for c in corpus.store.chunks(doc_id)}
    finally:
        corpus.close()
    assert {(f.label, f.value): f.chunk_id for f in facts} == ingested
    for f in facts:
        assert f.label in texts[f.chunk_id], (f.label, f.chunk_id)
