"""Issue 22: the doctor checks the keyword index (BM25, held in memory, built from the
registry's chunk texts). Out of step with the registry (another process corrected the
filing's company: this process still ranks the old text) it is reported and ``--repair``
builds it again from the registry (no filing parsed); chunks the registry has lost or cannot
read are reported, with what to do. Main checked no keyword index at all."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from core.app.corpus import Corpus
from core.app.doctor import examine, repair

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "northwind-10k-fy2024.htm"


@pytest.fixture
def corpus(settings, hash_embedder):
    c = Corpus(settings, embedder=hash_embedder)
    c.ingest_path(SAMPLE)
    yield c
    c.store.close()


def _keyword_lines(report) -> list[str]:
    return [f.line() for f in report.findings if f.what == "keyword index"]


def test_an_index_out_of_step_with_the_registry_is_reported_and_rebuilt(
        settings, hash_embedder, corpus, monkeypatch):
    doc = corpus.documents()[0]
    assert corpus.store.keyword_search("Northwind", k=3)  # this process built its index
    other = Corpus(settings, embedder=hash_embedder, sweep=False)  # another process
    other.update_document(doc.doc_id, company="Contoso Silicon, Inc.")
    other.store.close()
    assert corpus.documents()[0].company == "Contoso Silicon, Inc."  # the registry reads it
    assert not corpus.store.keyword_search("Contoso", k=3)  # silently the old text

    report = examine(settings, lambda: corpus.store)
    lines = _keyword_lines(report)
    assert len(lines) == 1 and lines[0].startswith(
        f"keyword index: {doc.n_chunks} chunk(s) of 1 filing(s) are indexed as they were, "
        "not as the registry reads now (northwind-10k-fy2024.htm)"), lines
    assert "(--repair: build it again from the registry's chunk texts)" in lines[0]
    assert not report.ok

    from core.ingest import pipeline

    monkeypatch.setattr(pipeline, "prepare", lambda *a, **k: pytest.fail("parsed again"))
    repaired = repair(report)
    assert repaired.ok and f"repaired: {doc.n_chunks} chunks indexed again" in \
        _keyword_lines(repaired)[0]
    assert corpus.store.keyword_search("Contoso", k=3)  # found under its corrected name
    assert _keyword_lines(examine(settings, lambda: corpus.store)) == []


def test_a_fresh_index_is_in_step_and_the_check_names_it(settings, hash_embedder, corpus):
    report = examine(settings, lambda: corpus.store)
    assert report.findings == [] and "keyword index" in report.checked


def test_chunks_the_registry_lost_are_reported_with_what_to_do(settings, corpus, monkeypatch):
    """With no kept original to read them from (issue 32's doctor reads them again when
    there is one: tests/hostile/test_doctor_stores.py)."""
    from core.store import files

    doc = corpus.documents()[0]
    files.remove_original(settings, doc.doc_id)  # and its source: no file to read it from
    monkeypatch.setattr(files, "original_path", lambda *a, **k: None)
    with sqlite3.connect(settings.registry_path) as conn:
        conn.execute("DELETE FROM chunks WHERE doc_id = ? AND idx >= 30", (doc.doc_id,))
    report = examine(settings, lambda: corpus.store)
    assert f"keyword index: northwind-10k-fy2024.htm ({doc.doc_id}) has 30 of its " \
        f"{doc.n_chunks} chunks in the registry: the others cannot be searched (keyword or " \
        "vector); ingest the filing again" in _keyword_lines(report)
    assert not repair(report).ok  # nothing here can bring the text back


def test_chunks_the_registry_cannot_read_are_reported_not_a_traceback(settings, corpus):
    doc = corpus.documents()[0]
    with sqlite3.connect(settings.registry_path) as conn:
        conn.execute("UPDATE chunks SET page = 'torn' WHERE doc_id = ? AND idx = 3",
                     (doc.doc_id,))
    lines = _keyword_lines(examine(settings, lambda: corpus.store))
    assert len(lines) == 1 and lines[0].startswith(
        f"keyword index: the chunks of northwind-10k-fy2024.htm ({doc.doc_id}) cannot be read "
        "from the registry ("), lines
    assert lines[0].endswith("keyword and hybrid search fail; delete the filing and ingest it "
                             "again")


def test_the_cli_says_when_repair_cannot_mend_what_it_found(settings, hash_embedder, corpus,
                                                            monkeypatch, capsys):
    """Main printed "run `python -m core doctor --repair`" although --repair mends nothing
    of this (and found nothing: no keyword check)."""
    import argparse

    from core.cli.main import cmd_doctor
    from core.foundation import models

    monkeypatch.setattr(models, "get_embedder", lambda *a, **k: hash_embedder)
    from core.store import files

    doc = corpus.documents()[0]
    files.remove_original(settings, doc.doc_id)  # and its source: no file to read it from
    monkeypatch.setattr(files, "original_path", lambda *a, **k: None)
    with sqlite3.connect(settings.registry_path) as conn:
        conn.execute("DELETE FROM chunks WHERE doc_id = ? AND idx >= 30", (doc.doc_id,))
    assert cmd_doctor(argparse.Namespace(repair=False), settings) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"✗ keyword index: northwind-10k-fy2024.htm ({doc.doc_id}) has 30")
    assert out[-1] == "--repair cannot mend these here: each line says what to do"
