"""A company renamed to markup (issue 38, item 15): `<script>...`, a Markdown link, a code
span were saved by ``docs --set`` and then drawn as markup and never matched when a question
ranked every company. Now they are refused with what to remove and the corpus is as it was;
plain names with the punctuation real filers use (&, *, parentheses, apostrophes) are kept
and read in questions."""

from __future__ import annotations

import itertools

import pytest

from core.analysis.combine import answer_analysis
from core.app.corpus import Corpus
from core.cli.main import main
from core.figures.compute import answer_figure
from core.reading import read_question
from tests.hostile.kit import SAMPLE

MARKUP = ["<script>alert(1)</script>", "<b>Acme</b>", "[Acme](http://example.org)",
          "`Acme`", "Acme {x}", "Acme | Birch", "Acme\\Birch", "Acme\x07"]
PLAIN = ["E*TRADE FINANCIAL", "AT&T INC.", "Alphabet Inc. (Class A)",
         "Foo_Bar Holdings #1"]


@pytest.fixture
def sample(settings, hash_embedder, monkeypatch):
    corpus = Corpus(settings, embedder=hash_embedder)
    doc_id = corpus.ingest_path(SAMPLE).meta.doc_id
    monkeypatch.setenv("DTR_DATA_DIR", str(settings.data_dir))
    yield corpus, doc_id
    corpus.close()


@pytest.mark.parametrize("name,prefix", list(itertools.product(MARKUP, ["", "Northwind "])))
def test_a_name_with_markup_is_refused_and_the_filing_keeps_its_name(sample, capsys, name,
                                                                     prefix):
    corpus, doc_id = sample
    before = corpus.store.documents()[0].company
    assert main(["docs", "--set", doc_id, f"company={prefix}{name}"]) == 1
    err = capsys.readouterr().err
    assert "plain text" in err and "remove" in err
    assert corpus.store.documents()[0].company == before


@pytest.mark.parametrize("name", PLAIN)
def test_a_plain_name_with_punctuation_is_kept_and_read_in_questions(sample, name):
    corpus, doc_id = sample
    assert main(["docs", "--set", doc_id, f"company={name}"]) == 0
    docs = corpus.store.documents()
    assert docs[0].company == name
    reading, plan, request = read_question(f"What was {name}'s revenue in FY2024?", docs,
                                           corpus.store)
    assert [c.name for c in reading.companies] == [name], reading.summary()
    if plan is not None:  # "Macy's, Inc.'s": read as the figures of one company
        assert "revenue" in answer_analysis(plan, corpus.store).lead
    else:
        assert request is not None and answer_figure(request, corpus.store).value is not None
