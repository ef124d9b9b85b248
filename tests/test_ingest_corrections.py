"""Correcting a document's company / form / period / ticker (issue 9, fault 6): store, corpus,
CLI and the Library page."""

from __future__ import annotations

import pytest

from core.app.corpus import Corpus
from core.cli.main import main as cli_main
from core.foundation.errors import StoreError
from core.store.documents import SqliteRegistry
from tests.test_app import APP, app_env, boot, texts  # noqa: F401  (app_env is a fixture)
from tests.test_corpus import TEN_K


@pytest.fixture
def corpus(settings, hash_embedder):
    c = Corpus(settings, embedder=hash_embedder)
    yield c
    c.close()


def test_update_is_checked_normalised_recorded_and_followed_by_citations(corpus):
    doc = corpus.ingest_path(TEN_K).meta
    assert doc.company == "ACME WIDGETS, INC." and doc.corrected == []
    meta = corpus.update_document(doc.doc_id, company="  Acme  Widgets Inc ", form="10-k/a",
                                  period="2023-12-31", ticker="acme, acmw")
    assert (meta.company, meta.form_type, meta.period, meta.period_end, meta.ticker) == (
        "Acme Widgets Inc", "10-K/A", "2023-12-31", "2023-12-31", "ACME, ACMW")
    assert meta.corrected == ["company", "form_type", "period", "ticker"]
    assert corpus.store.get_document(doc.doc_id) == meta  # stored
    assert meta.n_chunks == doc.n_chunks and meta.sections == doc.sections  # the rest kept
    hit = corpus.search("competition", strategy="hybrid", k=1).hits[0]
    assert hit.document.company == "Acme Widgets Inc"
    assert hit.citation_label.startswith("Acme Widgets Inc 10-K/A 2023-12-31")
    again = corpus.update_document(doc.doc_id, period="FY2024")
    assert again.corrected == ["company", "form_type", "period", "ticker"]
    assert again.period == "FY2024" and again.period_end == "2023-12-31"


@pytest.mark.parametrize(("fields", "reason"), [
    ({"period": "last year"}, "FY2023"),
    ({"form": "annual report"}, "10-K"),
    ({"company": "   "}, "Company must be"),
    ({"ticker": "apple inc"}, "trading symbols"),
    ({"sections": "x"}, "cannot be corrected"),
    ({}, "Nothing to change"),
])
def test_bad_values_are_refused_with_the_reason_and_nothing_changes(corpus, fields, reason):
    doc = corpus.ingest_path(TEN_K).meta
    with pytest.raises(StoreError, match=reason):
        corpus.update_document(doc.doc_id, **fields)
    assert corpus.store.get_document(doc.doc_id) == doc


def test_unknown_document_is_a_clear_error(corpus):
    with pytest.raises(StoreError, match="No document 'nope'"):
        corpus.update_document("nope", company="Acme")


def test_keyword_index_is_rebuilt_after_a_correction(corpus):
    doc = corpus.ingest_path(TEN_K).meta
    corpus.search("competition", strategy="keyword", k=1)
    assert not corpus.store.keyword._stale
    corpus.update_document(doc.doc_id, company="Acme Widgets")
    assert corpus.store.keyword._stale


def test_cli_docs_set(corpus, settings, capsys, monkeypatch):
    monkeypatch.setenv("DTR_DATA_DIR", str(settings.data_dir))
    doc = corpus.ingest_path(TEN_K).meta
    code = cli_main(["docs", "--set", doc.doc_id, "company=3M COMPANY", "form=10-K",
                     "period=FY2018", "ticker=MMM"])
    assert code == 0, capsys.readouterr()
    assert "3M COMPANY | 10-K | FY2018" in capsys.readouterr().out
    stored = SqliteRegistry(settings.registry_path).get_document(doc.doc_id)
    assert (stored.company, stored.ticker, stored.corrected) == (
        "3M COMPANY", "MMM", ["company", "form_type", "period", "ticker"])
    assert cli_main(["docs", "--set", doc.doc_id, "period=soon"]) == 1
    assert "Period must read FY2023" in capsys.readouterr().err
    assert cli_main(["docs", "--set", doc.doc_id, "company"]) == 1
    assert "is not FIELD=VALUE" in capsys.readouterr().err


def test_library_form_corrects_metadata_and_explains_bad_input(app_env):  # noqa: F811
    at = boot("app_pages/library.py")
    at.button(key="lib_load_sample").click().run()
    doc_id = at.selectbox(key="lib_action_doc").value
    at.text_input(key=f"lib_meta_period_{doc_id}").input("sometime")
    at.button(key=f"FormSubmitter:lib_meta_form_{doc_id}-Save corrections").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Not saved" in e.value and "FY2023" in e.value for e in at.error)
    at.text_input(key=f"lib_meta_period_{doc_id}").input("FY2025")
    at.text_input(key=f"lib_meta_company_{doc_id}").input("Northwind Semi")
    at.button(key=f"FormSubmitter:lib_meta_form_{doc_id}-Save corrections").click().run()
    assert not at.exception, [e.value for e in at.exception]
    docs = next(d.value for d in at.dataframe if "doc id" in d.value)
    row = docs[docs["doc id"] == doc_id].iloc[0]
    assert (row["company"], row["period"]) == ("Northwind Semi", "FY2025")
    assert row["corrected"] == "Company, Period"
    assert "Saved" in texts(at)
