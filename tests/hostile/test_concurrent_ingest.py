"""Two ingests of one file at once, then a third with ``--company "X RENAMED"`` (issue 38,
item 14): all three started together, the third found the file not yet stored, parsed it,
and met it stored by another when it went to add it: "already in the corpus (unchanged)",
and the correction was lost (alone, it is applied). An ingest that finds its file stored
meanwhile now applies its options as one that found it stored at the start does.

The race is made certain, not waited for: the third ingest is shown no stored copy when it
looks first (as when the others had not stored it yet), and the store then holds one."""

from __future__ import annotations

import pytest

from core.app.corpus import Corpus
from tests.hostile.kit import SAMPLE

OPTIONS = [{"company": "X RENAMED"}, {"form_type": "10-K/A"}, {"period": "FY2023"},
           {"company": "Northwind Renamed", "period": "FY2025"}]


@pytest.fixture
def corpus(settings, hash_embedder):
    c = Corpus(settings, embedder=hash_embedder)
    yield c
    c.close()


def _stored_meanwhile(corpus: Corpus, monkeypatch) -> None:
    """The first ingest stores the file; the next one looks before it had (sees nothing)."""
    corpus.ingest_path(SAMPLE)
    real = corpus.store.get_document
    looks = {"n": 0}

    def first_look_misses(doc_id):
        looks["n"] += 1
        return None if looks["n"] == 1 else real(doc_id)

    monkeypatch.setattr(corpus.store, "get_document", first_look_misses)


@pytest.mark.parametrize("options", OPTIONS)
def test_an_ingest_that_meets_its_file_stored_meanwhile_still_applies_its_options(
        corpus, monkeypatch, options):
    _stored_meanwhile(corpus, monkeypatch)
    report = corpus.ingest_path(SAMPLE, **options)
    assert not report.added
    assert report.corrected == sorted(options)
    monkeypatch.undo()
    (doc,) = corpus.store.documents()
    assert {k: getattr(doc, k) for k in options} == options
    assert doc.n_chunks > 0  # the stored chunks are the first ingest's, untouched


def test_an_ingest_with_no_options_that_meets_its_file_changes_nothing(corpus, monkeypatch):
    _stored_meanwhile(corpus, monkeypatch)
    before = corpus.store.documents()[0]
    report = corpus.ingest_path(SAMPLE)
    assert not report.added and report.corrected == []
    monkeypatch.undo()
    assert corpus.store.documents() == [before]
