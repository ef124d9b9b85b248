"""Damaged facts (issue 38, items 4 and 13): a facts row whose record is garbage, or the whole
``facts`` table dropped. Before: a pydantic traceback from ``facts`` and ``doctor``, "The run
failed: ValidationError" for a figure question; a dropped table showed "0 facts" with no
warning. Now the unreadable rows are skipped with a warning naming them, the listing warns
of facts lost, doctor names both and ``--repair`` mends them."""

from __future__ import annotations

import sqlite3

import pytest

from core.app.corpus import Corpus
from core.app.doctor import examine, repair
from core.cli.main import main
from core.figures.compute import answer_figure
from core.reading import read_question
from core.store import facts_table
from tests.hostile.kit import SAMPLE

DAMAGE = ["{garbage", "[]", '{"fact_id": 3}', "null", ""]


@pytest.fixture
def sample(settings, hash_embedder, monkeypatch):
    corpus = Corpus(settings, embedder=hash_embedder)
    doc_id = corpus.ingest_path(SAMPLE).meta.doc_id
    monkeypatch.setenv("DTR_DATA_DIR", str(settings.data_dir))
    yield corpus, doc_id
    corpus.close()


def _sql(settings, sql: str, args=()) -> None:
    with sqlite3.connect(settings.data_dir / "registry.sqlite") as conn:
        conn.execute(sql, args)


def _revenue_rows(settings, doc_id: str) -> list[str]:
    with sqlite3.connect(settings.data_dir / "registry.sqlite") as conn:
        return [r[0] for r in conn.execute(
            "SELECT fact_id FROM facts WHERE doc_id = ? AND metric = 'revenue' "
            "ORDER BY fact_id", (doc_id,))]


@pytest.mark.parametrize("garbage", DAMAGE)
def test_an_unreadable_facts_row_is_skipped_named_and_repaired(sample, settings, capsys,
                                                               garbage):
    corpus, doc_id = sample
    before = len(corpus.store.facts([doc_id]))
    damaged = _revenue_rows(settings, doc_id)[0]
    _sql(settings, "UPDATE facts SET data = ? WHERE fact_id = ?", (garbage, damaged))

    assert main(["facts", doc_id, "--metric", "revenue"]) == 0
    out = capsys.readouterr()
    assert "fact(s)" in out.out and doc_id in out.err and "doctor --repair" in out.err
    assert len(corpus.store.facts([doc_id])) == before - 1

    reading, plan, request = read_question("What was Northwind's revenue in FY2024?",
                                           corpus.store.documents(), corpus.store)
    assert request is not None and answer_figure(request, corpus.store).value is not None

    report = examine(settings, lambda: corpus.store)
    findings = [f for f in report.findings if f.what == "facts"]
    assert findings and "cannot be read" in findings[0].problem and \
        findings[0].repair, findings
    repair(report)
    assert len(corpus.store.facts([doc_id])) == before
    assert not facts_table.gaps(corpus.store.registry, [doc_id])
    assert not [f for f in examine(settings, lambda: corpus.store).findings
                if f.what == "facts"]


def test_a_dropped_facts_table_is_said_by_the_listing_and_mended_by_doctor(
        sample, settings, capsys, hash_embedder):
    corpus, doc_id = sample
    before = len(corpus.store.facts([doc_id]))
    corpus.close()
    _sql(settings, "DROP TABLE facts")
    corpus = Corpus(settings, embedder=hash_embedder)
    try:
        for argv in (["facts"], ["facts", doc_id], ["facts", "--metric", "revenue"]):
            assert main(argv) == 0
            err = capsys.readouterr().err
            assert "Facts missing or damaged in 1 filing(s)" in err, argv
            assert f"{doc_id} holds 0 of its {before}" in err and "doctor --repair" in err
        report = examine(settings, lambda: corpus.store)
        assert [f for f in report.findings if f.what == "facts" and f.repair]
        repair(report)
        assert len(corpus.store.facts([doc_id])) == before
        assert main(["facts", doc_id]) == 0 and "Facts missing" not in capsys.readouterr().err
    finally:
        corpus.close()


@pytest.mark.parametrize("question", ["What was Northwind's revenue in FY2024?",
                                      "What was Northwind's net income in fiscal 2024?",
                                      "How much did Northwind's revenue change from FY2023 to "
                                      "FY2024?"])
def test_a_figure_asked_of_a_dropped_facts_table_names_the_damage(sample, settings,
                                                                 hash_embedder, question):
    """The answer path too (item 13): a figure not found because the facts were lost says
    so and names the repair, instead of 'no FY2024 revenue in the filings loaded' alone."""
    corpus, doc_id = sample
    corpus.close()
    _sql(settings, "DROP TABLE facts")
    corpus = Corpus(settings, embedder=hash_embedder)
    try:
        _, _, request = read_question(question, corpus.store.documents(), corpus.store)
        result = answer_figure(request, corpus.store)
        assert result.value is None
        assert any("Facts missing or damaged" in n and "doctor --repair" in n
                   for n in result.notes), result.notes
    finally:
        corpus.close()


def test_the_research_answer_says_the_facts_were_lost(sample, settings, hash_embedder):
    from core.app.runs import load_run
    from testkit.scenarios import service

    corpus, _ = sample
    corpus.close()
    _sql(settings, "DROP TABLE facts")
    corpus = Corpus(settings, embedder=hash_embedder)
    try:
        svc = service(settings, corpus.store, hash_embedder)
        thread, _, _ = svc.start("What was Northwind's revenue in FY2024?", review="auto")
        text = load_run(settings, thread).answer.text
    finally:
        corpus.close()
    assert "I could not compute FY2024 revenue" in text
    assert "Facts missing or damaged in 1 filing(s)" in text and "doctor --repair" in text
