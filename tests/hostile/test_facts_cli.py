"""``python -m core facts`` as a user types it (issue 32): filters with no document apply to
the whole corpus (the README's usage), a negative limit is refused, several ids are all
listed, an unknown metric or period is named with what to type instead."""

from __future__ import annotations

import pytest

from core.app.corpus import Corpus
from core.cli.main import main
from tests.hostile.kit import SAMPLE


@pytest.fixture
def two(settings, hash_embedder, monkeypatch, tmp_path):
    """The sample 10-K and a copy of it (another document, the same facts)."""
    corpus = Corpus(settings, embedder=hash_embedder)
    copy = tmp_path / "northwind-copy.htm"
    copy.write_bytes(SAMPLE.read_bytes() + b"\n<!-- a second copy -->\n")
    ids = [corpus.ingest_path(SAMPLE).meta.doc_id, corpus.ingest_path(copy).meta.doc_id]
    monkeypatch.setenv("DTR_DATA_DIR", str(settings.data_dir))
    yield corpus, ids
    corpus.close()


def _run(capsys, *argv) -> tuple[int, list[str], str]:
    code = main(["facts", *argv])
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err


def test_filters_without_a_document_apply_to_the_whole_corpus(two, capsys):
    corpus, ids = two
    code, lines, _ = _run(capsys, "--metric", "revenue", "--period", "FY2024")
    expected = [f for f in corpus.store.facts(metric="revenue", fiscal_years=[2024])
                if f.fiscal_period in ("FY", "")]
    n = len(expected)  # the entity's revenue and its segments' (the sample's segment table)
    assert code == 0 and n >= 6 and n % 2 == 0  # the same facts in each copy
    assert lines[-1] == f"{n} of {n} fact(s) in 2 document(s)"
    assert {line.split()[0] for line in lines[:-1]} == set(ids)  # each line names its filing
    assert all(" revenue " in line and "FY2024" in line for line in lines[:-1])


def test_the_limit_applies_across_the_corpus_too(two, capsys):
    code, lines, _ = _run(capsys, "--limit", "4")
    assert code == 0 and len(lines) == 5 and lines[-1].startswith("4 of ")


@pytest.mark.parametrize("limit", ["-1", "-40"])
def test_a_negative_limit_is_refused_with_what_to_type(two, capsys, limit):
    code, lines, err = _run(capsys, two[1][0], "--limit", limit)
    assert code == 1 and lines == []
    assert err.strip() == f"error: --limit must be 0 (every fact) or a positive number (got " \
                          f"{limit})."


def test_several_document_ids_are_all_listed(two, capsys):
    corpus, ids = two
    each = len(corpus.store.facts([ids[1]], metric="net_income"))
    assert each > 0
    code, lines, _ = _run(capsys, ids[0], ids[1], "--metric", "net_income")
    assert code == 0 and lines[-1] == f"{2 * each} of {2 * each} fact(s) in 2 document(s)"
    assert [line.split()[0] for line in lines[:-1]].count(ids[1]) == each
    code, lines, _ = _run(capsys, ids[1], "--metric", "net_income")
    assert code == 0 and lines[-1] == f"{each} of {each} fact(s)"


def test_an_unknown_id_among_several_is_named_and_nothing_listed(two, capsys):
    _, ids = two
    code, lines, err = _run(capsys, ids[0], "feedfacefeedface")
    assert code == 1 and lines == []
    assert err.strip() == "error: No document feedfacefeedface in the corpus; `python -m core " \
                          "docs` lists the ids."


@pytest.mark.parametrize(("metric", "near"), [("nosuchmetric", "catalogue names include"),
                                              ("capx", "capex"), ("revnue", "revenue"),
                                              ("Capital expenditures", "capex")])
def test_an_unknown_metric_is_named_with_the_nearest_catalogue_names(two, capsys, metric, near):
    code, lines, err = _run(capsys, "--metric", metric)
    assert code == 1 and lines == []
    assert err.startswith(f"error: Unknown metric {metric!r}: ") and near in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("period", ["2018Q5", "FY18", "last year", "FY2024-Q9"])
def test_a_period_that_is_not_one_says_how_to_write_it(two, capsys, period):
    code, lines, err = _run(capsys, "--period", period)
    assert code == 1 and lines == []
    assert f"'{period}' is not a period: write FY2018" in err


def test_a_document_without_facts_says_how_to_extract_them(two, capsys, settings):
    import sqlite3

    _, ids = two
    with sqlite3.connect(settings.registry_path) as conn:
        conn.execute("DELETE FROM fact_docs WHERE doc_id = ?", (ids[1],))
    code, lines, _ = _run(capsys, ids[1], "--metric", "revenue")
    assert code == 0
    assert lines == [f"No facts extracted for {ids[1]} yet: `python -m core facts --rebuild "
                     f"{ids[1]}`.", "0 of 0 fact(s)"]


def test_the_summary_names_facts_another_reader_read(two, capsys, settings):
    import sqlite3

    from core.ingest.facts import reader_version

    _, ids = two
    code, lines, _ = _run(capsys)
    assert code == 0 and not any("another version" in line for line in lines), lines
    with sqlite3.connect(settings.registry_path) as conn:
        conn.execute("UPDATE fact_docs SET reader = '' WHERE doc_id = ?", (ids[0],))
    code, lines, _ = _run(capsys)
    assert code == 0
    assert lines[-1] == (f"1 document(s) have facts read by another version of the facts reader "
                         f"(this one is {reader_version()}): `python -m core facts --rebuild` "
                         "reads them again from the kept originals."), lines
