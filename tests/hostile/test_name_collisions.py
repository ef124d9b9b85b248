"""Two filers whose names match under different CIKs (issue 38, item 16): main answered
from one of them with no note, ranked two identical rows, and listed the same label twice
in the Library's "Figures of". Now the CIK (or ticker) is shown wherever two names collide,
each filer's figures are its own, and a question that names one by its CIK or ticker asks
of that one alone.

Fictional filers (tests/hostile/filers.py): Quillon Widgets under CIK 0000900001 (ticker
QWI) and again under CIK 0000900002 (no ticker), its name printed in three ways, beside
Tarragon Tools; every question is generated from slots."""

from __future__ import annotations

import itertools

import pytest

from components.library_figures import scopes
from core.analysis.combine import answer_analysis
from core.reading import read_plans
from core.reading.edit import company_choices
from tests.hostile.filers import Filer, income, ingest

FIRST = Filer("QUILLON WIDGETS INC.", "0000900001", "QWI", lines=income(1000, 250, 180))
TARRAGON = Filer("Tarragon Tools Corp", "0000900003", "TRG", lines=income(1500, 600, 300))
SECOND_NAMES = ["QUILLON WIDGETS INC.", "Quillon Widgets, Inc.", "Quillon Widgets Inc"]
VALUES = {"0000900001": {"revenue": "$1,000 million", "operating margin": "25.0%",
                         "net income": "$180 million"},
          "0000900002": {"revenue": "$2,000 million", "operating margin": "15.0%",
                         "net income": "$200 million"}}


@pytest.fixture(scope="module", params=SECOND_NAMES)
def corpus(request, tmp_path_factory):
    from core.app.research import ResearchService

    second = Filer(request.param, "0000900002", "", lines=income(2000, 300, 200))
    settings, corpus = ingest(tmp_path_factory.mktemp("collide"), [FIRST, second, TARRAGON])
    docs = corpus.store.documents()
    yield docs, corpus.store, {d.cik: d.doc_id for d in docs}, \
        ResearchService.from_corpus(settings, corpus)
    corpus.close()


def _read(question, corpus):
    docs, store = corpus[:2]
    reading, plans, request = read_plans(question, docs, store)
    return reading, plans, [answer_analysis(p, store) for p in plans], request


def _filer_rows(results, ids):
    """cik -> the row of that Quillon filer, checking it reads that filer's filing only."""
    out = {}
    for result in results:
        for row in (r for r in result.rows if r.figure is not None):
            figure = result.figures[row.figure]
            mine = [c for c, i in ids.items() if figure.request.doc_ids == [i]]
            assert len(mine) == 1, figure.request.doc_ids  # one filer's filing, never two
            if mine[0] != "0000900003":  # a Quillon
                out[mine[0]] = row
    return out


RANK_ALL = ["Rank all the companies by {m}.", "Which of the companies loaded had the highest {m}?",
            "Rank every company by {m}, lowest first."]
MEASURES = ["revenue", "operating margin", "net income"]


@pytest.mark.parametrize(("phrasing", "m"), itertools.product(range(len(RANK_ALL)), MEASURES))
def test_a_ranking_of_every_company_shows_two_filers_of_one_name_apart(corpus, phrasing, m):
    _, plans, results, _ = _read(RANK_ALL[phrasing].format(m=m), corpus)
    labels = [r.label for r in results[0].rows]
    assert len(labels) == 3 and len(set(labels)) == 3, labels
    rows = _filer_rows(results, corpus[2])
    assert set(rows) == {"0000900001", "0000900002"}, labels
    for cik, row in rows.items():
        assert f"CIK {cik}" in row.label and row.display == VALUES[cik][m], (cik, row)
    assert "CIK" not in next(r.label for r in results[0].rows if "Tarragon" in r.label)


NAMED = ["What was Quillon's {m} in FY2024?",
         "Which had the higher {m}, Quillon or Tarragon?",
         "Compare the {m} of Quillon Widgets and Tarragon.",
         "Rank Tarragon and Quillon by {m}."]


@pytest.mark.parametrize(("phrasing", "m"), itertools.product(range(len(NAMED)), MEASURES))
def test_a_name_two_filers_share_answers_each_with_its_cik_never_one_silently(
        corpus, phrasing, m):
    reading, plans, results, request = _read(NAMED[phrasing].format(m=m), corpus)
    assert request is None and plans, reading.summary()
    rows = _filer_rows(results, corpus[2])
    assert set(rows) == {"0000900001", "0000900002"}, [r.rows for r in results]
    for cik, row in rows.items():
        assert f"CIK {cik}" in row.label and row.display == VALUES[cik][m]
    said = reading.summary()
    assert "CIK 0000900001" in said and "CIK 0000900002" in said, said


PICKED = [("QWI", "0000900001"), ("Quillon (CIK 0000900002)", "0000900002"),
          ("Quillon (CIK 900002)", "0000900002"), ("Quillon (QWI)", "0000900001")]


@pytest.mark.parametrize(("words", "m"), itertools.product(PICKED, MEASURES))
def test_a_filer_picked_by_its_cik_or_ticker_is_asked_alone(corpus, words, m):
    written, cik = words
    _, store, ids, _ = corpus
    reading, plans, results, request = _read(f"What was {written}'s {m} in FY2024?", corpus)
    if request is not None:  # one figure: read from that filer's filing only
        from core.figures.compute import answer_figure

        assert request.doc_ids == [ids[cik]], request.doc_ids
        assert answer_figure(request, store).display == VALUES[cik][m]
    else:
        rows = _filer_rows(results, ids)
        assert list(rows) == [cik], rows
        assert rows[cik].display == VALUES[cik][m]


def test_the_librarys_figures_of_list_and_the_reading_form_never_show_one_label_twice(corpus):
    docs = corpus[0]
    labels = [label for label, _ in scopes(docs).values()]
    assert len(labels) == len(set(labels)), labels
    companies = [label for key, (label, _) in scopes(docs).items() if key.startswith("company")]
    assert len(companies) == 3
    assert sum("CIK 0000900001" in c for c in companies) == 1
    assert sum("CIK 0000900002" in c for c in companies) == 1
    choices = company_choices(docs)
    assert len(choices) == 3, list(choices)
    assert {ref.cik for ref in choices.values()} == {"0000900001", "0000900002", "0000900003"}


@pytest.mark.parametrize(("question", "said", "unsaid"), [
    ("Rank all the companies by revenue.",
     ["(CIK 0000900001) $1,000 million", "(CIK 0000900002) $2,000 million"], []),
    ("What was Quillon's revenue in FY2024?",
     ["Quillon (CIK 0000900001)'s revenue in fiscal 2024 was $1,000 million",
      "Quillon (CIK 0000900002)'s revenue in fiscal 2024 was $2,000 million"], []),
    ("What was Quillon (CIK 0000900002)'s revenue in FY2024?", ["$2,000 million"],
     ["$1,000 million"]),
    ("What was QWI's revenue in FY2024?", ["$1,000 million"], ["$2,000 million"]),
    ("Did Quillon's revenue grow in FY2024?",
     ["Quillon (CIK 0000900001)'s revenue", "Not answered: the yes / no"], ["Yes.", "No."]),
])
def test_the_answer_a_user_reads_shows_both_filers_apart(corpus, question, said, unsaid):
    text = corpus[3].ask(question).answer.text
    first = text.splitlines()[0]
    assert all(s in (first if k == 0 else text) for k, s in enumerate(said)), text
    assert not any(u in text for u in unsaid), text
    assert "CIK 0000900001" in text or "CIK 0000900002" in text, text


@pytest.mark.parametrize(("order", "m"), itertools.product(
    [["Zentrix", "Quillon", "Morvane Labs", "Tarragon"],
     ["Tarragon", "Pellucid", "Quillon"], ["Quillon", "Kelvane", "Tarragon", "Ostrava"]],
    MEASURES))
def test_a_ranking_with_two_filers_of_a_name_and_companies_not_loaded_keeps_each_row_apart(
        corpus, order, m):
    from core.agent.roles.analysis_answer import analysis_paragraph

    question = f"Rank {', '.join(order[:-1])} and {order[-1]} by {m}."
    _, plans, results, _ = _read(question, corpus)
    result = results[0]
    absent = [n for n in order if n not in ("Quillon", "Tarragon")]
    assert sorted(plans[0].spec.absent) == sorted(absent)
    assert all(n in result.lead for n in absent), result.lead
    labels = [r.label for r in result.rows]
    assert len(labels) == len(set(labels)) == len(order) + 1, labels
    rows = _filer_rows(results, corpus[2])
    assert {c: r.display for c, r in rows.items()} == {c: VALUES[c][m] for c in rows}
    text = analysis_paragraph(result, lambda _c: "")
    for name in absent:  # no work under a company that is not loaded
        line = next(i for i, ln in enumerate(text.splitlines()) if ln.startswith(f"- {name},"))
        after = text.splitlines()[line + 1:line + 2]
        assert not after or not after[0].startswith(" "), text
