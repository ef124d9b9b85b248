"""Analysis questions read whole (issue 38, items 6-10): every company a ranking names is
ranked or said missing, and each row keeps its own company's work; the same company named
twice is one company; every fiscal year named is answered or said missing; a threshold that
is no finite number, or two thresholds at once, is never read as one small number; two
companies each with its own measure are never compared on one of them.

Four fictional filers (tests/hostile/filers.py), their income statements read from their
10-Ks as ingested; the questions are generated from slots (names, measures, periods, word
orders, phrasings), and each is read and answered as the CLI and the agent do
(``read_plans``, ``answer_analysis``, ``analysis_paragraph``)."""

from __future__ import annotations

import itertools
import re

import pytest

from core.agent.roles.analysis_answer import analysis_paragraph
from core.analysis.combine import answer_analysis
from core.reading import read_plans
from tests.hostile.filers import Filer, ingest

FILERS = [
    Filer("QUILLON WIDGETS INC.", "0000900001", "QWI",
          lines={"Revenue": (1234.0, 1100.0), "Operating income": (321.0, 250.0),
                 "Net income": (222.0, 180.0)}),
    Filer("Tarragon Tools Corp", "0000900003", "TRG", end="June 30",
          lines={"Revenue": (2345.0, 2000.0), "Operating income": (234.0, 260.0),
                 "Net income": (111.0, 150.0)}),
    Filer("Halvard Systems Inc.", "0000900004", "HVS", end="September 30",
          lines={"Revenue": (3456.0, 3000.0), "Operating income": (1037.0, 800.0),
                 "Net income": (700.0, 600.0)}),
    Filer("Orrin Foods Co", "0000900005", "ORF",  # no operating income line
          lines={"Revenue": (777.0, 700.0), "Net income": (55.0, 40.0)}),
]
NAMES = {"Quillon": "QUILLON WIDGETS INC.", "Tarragon": "Tarragon Tools Corp",
         "Halvard": "Halvard Systems Inc.", "Orrin": "Orrin Foods Co"}
REVENUE = {"Quillon": "$1,234 million", "Tarragon": "$2,345 million",
           "Halvard": "$3,456 million", "Orrin": "$777 million"}
ABSENT = ["Zentrix", "Morvane Labs", "Pellucid", "Ostrava Mining", "Kelvane",
          "Brightwater Foods", "Culmen Energy", "Dunmore Rail", "Estoril Bank",
          "Fennick Media", "Galloway Steel", "Harrowgate", "Isolde Pharma", "Juniper Vale"]


@pytest.fixture(scope="module")
def filed(tmp_path_factory):
    settings, corpus = ingest(tmp_path_factory.mktemp("analysis_reading"), FILERS)
    yield settings, corpus
    corpus.close()


@pytest.fixture(scope="module")
def corpus(filed):
    return filed[1].store.documents(), filed[1].store


@pytest.fixture(scope="module")
def service(filed):
    from core.app.research import ResearchService

    return ResearchService.from_corpus(*filed)


def _listed(names: list[str], last: str = "and") -> str:
    return f"{', '.join(names[:-1])} {last} {names[-1]}"


def _answer(question: str, corpus):
    docs, store = corpus
    reading, plans, request = read_plans(question, docs, store)
    return reading, plans, [answer_analysis(p, store) for p in plans], request


# -- item 6: a ranking naming many companies, several not loaded ---------------------------

RANKS = ["Rank {list} by {m}.", "Rank {list} by {m}, lowest first.",
         "Order {list} by {m} from highest to lowest.",
         "Which had the highest {m}: {list_or}?",
         "Among {list}, which had the highest {m} in fiscal 2024?"]


def _interleave(loaded: list[str], absent: list[str], where: str) -> list[str]:
    if where == "absent first":
        return absent + loaded
    if where == "absent last":
        return loaded + absent
    out, rest = [], list(absent)
    for name in loaded:  # one loaded company, then some absent ones, in turn
        out.append(name)
        take = max(1, len(absent) // len(loaded))
        out += rest[:take]
        rest = rest[take:]
    return out + rest


@pytest.mark.parametrize(("count", "loaded", "where", "measure", "phrasing"), [
    c for c in itertools.product(
        [1, 3, 8, 14], [("Quillon", "Tarragon"), ("Orrin", "Halvard", "Quillon", "Tarragon")],
        ["absent first", "absent last", "interleaved"], ["operating margin", "revenue"],
        range(len(RANKS)))
    if c[3] == "operating margin" or c[4] in (0, 3)])
def test_every_company_a_ranking_names_is_ranked_or_said_missing(corpus, count, loaded, where,
                                                                 measure, phrasing):
    absent = ABSENT[:count]
    names = _interleave(list(loaded), absent, where)
    question = RANKS[phrasing].format(list=_listed(names), list_or=_listed(names, "or"),
                                      m=measure)
    reading, plans, results, _ = _answer(question, corpus)
    assert plans, question
    result = results[0]
    assert sorted(plans[0].spec.absent) == sorted(absent), question
    assert sorted(reading.absent) == sorted(absent), question
    assert len(result.rows) == len(names), [r.label for r in result.rows]
    first = result.lead
    for name in absent:  # every one said in the answer's first line, as not loaded
        assert re.search(rf"\b{re.escape(name)}\b", first), (question, first)
        row = next(r for r in result.rows if r.label == name)
        assert row.value is None and "no filing of" in row.missing and "loaded" in row.missing
    for row in result.rows:  # a row's figure is its own company's
        if row.figure is not None:
            figure = result.figures[row.figure]
            assert figure.request.companies == [NAMES[row.label]], (row.label, figure.request)


def _blocks(paragraph: str) -> dict[str, list[str]]:
    """The answer's lines under each peer row ('- Label, period: ...'), by label."""
    out: dict[str, list[str]] = {}
    label = None
    for line in paragraph.splitlines():
        m = re.match(r"- (.+?), (?:fiscal \d{4}|the latest period)", line)
        if m:
            label = m.group(1)
            out[label] = []
        elif line.startswith(" ") and label is not None:
            out[label].append(line)
        else:
            label = None
    return out


@pytest.mark.parametrize(("count", "order", "phrasing"), itertools.product(
    [0, 2, 6], itertools.permutations(["Orrin", "Quillon", "Halvard"]), [0, 1, 3]))
def test_each_row_prints_its_own_companys_work_never_the_next_ones(corpus, count, order,
                                                                   phrasing):
    names = list(order) + ABSENT[:count]
    question = RANKS[phrasing].format(list=_listed(names), list_or=_listed(names, "or"),
                                      m="operating margin")
    _, _, results, _ = _answer(question, corpus)
    paragraph = analysis_paragraph(results[0], lambda _c: "")
    blocks = _blocks(paragraph)
    assert set(blocks) == set(names), paragraph
    # Orrin prints no operating income: its row is not found, and what was found of it
    # (its revenue) is printed under it, never another company's work
    assert any(REVENUE["Orrin"] in line for line in blocks["Orrin"]), paragraph
    for label, lines in blocks.items():
        others = [v for k, v in REVENUE.items() if k != label]
        assert not any(v in line for v in others for line in lines), (label, paragraph)
        if label in ABSENT:
            assert lines == [], paragraph


# -- item 7: the same company named twice -------------------------------------------------

SECOND_NAME = {"Quillon": ["QUILLON WIDGETS INC.", "Quillon Widgets, Inc.", "QWI",
                           "quillon widgets inc."],
               "Halvard": ["HALVARD SYSTEMS INC.", "Halvard Systems Inc.", "HVS",
                           "halvard systems"]}
TWICE = ["Which had the higher operating margin in fiscal 2024, {a} or {b}?",
         "{a} vs {b}: who has the better net margin?",
         "Did {a} have a higher operating margin than {b}?",
         "Which had the higher revenue, {b} or {a}?"]


@pytest.mark.parametrize(("short", "k", "phrasing"), itertools.product(
    ["Quillon", "Halvard"], range(4), range(len(TWICE))))
def test_one_company_named_twice_is_one_company_never_a_missing_one(corpus, short, k,
                                                                    phrasing):
    question = TWICE[phrasing].format(a=short, b=SECOND_NAME[short][k])
    reading, plans, results, request = _answer(question, corpus)
    said = " ".join([reading.summary(), reading.not_answered(),
                     *(r.lead for r in results)])
    assert "no filing of" not in said, (question, said)
    assert reading.absent == [], question
    assert [c.name for c in reading.companies] == [NAMES[short]], reading.summary()
    assert re.search(r"names? (?:one company|.* twice)", reading.not_answered()), \
        (question, reading.not_answered())
    assert plans and results[0].rows and results[0].rows[0].value is not None, question
    assert not any(r.verdict in ("Yes", "No") or r.spec.kind in ("compare", "rank")
                   for r in results), (question, [r.lead for r in results])


# -- item 8: a second fiscal year that is not loaded -------------------------------------

YEARS = [("FY2024", "FY1990", "fiscal 1990"), ("fiscal 2024", "fiscal 1990", "fiscal 1990"),
         ("2024", "2001", "fiscal 2001"), ("FY2024", "FY2019", "fiscal 2019")]
TWO_YEARS = ["Which had the higher operating margin in {y1} and {y2}, {a} or {b}?",
             "Which had the higher revenue in {y2} and {y1}, {a} or {b}?",
             "Compare the net income of {a} and {b} for {y1} and {y2}.",
             "Rank {a}, {b} and Halvard by revenue in {y1} and {y2}."]


@pytest.mark.parametrize(("years", "pair", "phrasing"), itertools.product(
    YEARS, [("Quillon", "Tarragon"), ("Tarragon", "Orrin")], range(len(TWO_YEARS))))
def test_every_fiscal_year_named_is_answered_or_said_missing(corpus, years, pair, phrasing):
    y1, y2, words = years
    question = TWO_YEARS[phrasing].format(y1=y1, y2=y2, a=pair[0], b=pair[1])
    _, plans, results, _ = _answer(question, corpus)
    assert len(plans) == 2, (question, [p.spec for p in plans])
    text = "\n".join(analysis_paragraph(r, lambda _c: "") for r in results)
    periods = {r.period for res in results for r in res.rows if r.period}
    assert periods == {"FY2024", f"FY{words[-4:]}"}, (question, periods)
    old = next(r for r in results if all(row.period != "FY2024" for row in r.rows))
    assert old.verdict == "" and all(row.value is None for row in old.rows), old.lead
    assert words[-4:] in old.lead, old.lead  # the year said in its first line
    assert words in text or f"FY{words[-4:]}" in text
    new = next(r for r in results if r is not old)
    assert all(row.period == "FY2024" for row in new.rows if row.label in pair)


@pytest.mark.parametrize("phrasing", range(len(TWO_YEARS)))
def test_two_fiscal_years_both_loaded_are_both_answered(corpus, phrasing):
    question = TWO_YEARS[phrasing].format(y1="FY2024", y2="FY2023", a="Quillon", b="Halvard")
    _, plans, results, _ = _answer(question, corpus)
    assert len(plans) == 2 and all(r.decided for r in results), [r.lead for r in results]
    assert {row.period for r in results for row in r.rows} == {"FY2023", "FY2024"}


# -- item 9: thresholds that are no finite number, and two at once ----------------------

HUGE = ["1e400%", "1E+400 percent", "10^400%", "1" + "0" * 400 + "%", "2e999%"]
OPS = ["above", "below", "more than", "less than"]
VERDICT = ["Was {a}'s {m} in fiscal 2024 {op} {t}?", "Did {a} have an {m} {op} {t}?",
           "In fiscal 2024, was {a}'s {m} {op} {t}?"]


@pytest.mark.parametrize(("huge", "op", "who", "phrasing"), itertools.product(
    HUGE, OPS, ["Quillon", "Halvard"], range(len(VERDICT))))
def test_a_threshold_that_is_no_finite_number_is_never_read_as_a_small_one(
        corpus, huge, op, who, phrasing):
    question = VERDICT[phrasing].format(a=who, m="operating margin", op=op, t=huge)
    reading, plans, results, _ = _answer(question, corpus)
    assert reading.threshold is None, (question, reading.threshold)
    assert not any(r.spec.threshold is not None for r in results), question
    assert not any(r.verdict in ("Yes", "No") for r in results), [r.lead for r in results]
    shown = huge.split()[0].rstrip("%")[:12]
    assert "threshold" in reading.not_answered() and shown in reading.not_answered(), \
        (question, reading.not_answered())
    assert results and results[0].rows[0].value is not None  # its figure is still given


@pytest.mark.parametrize(("scientific", "value"), [("1e1%", 10.0), ("2.5E1%", 25.0),
                                                    ("5e0 percent", 5.0)])
def test_a_threshold_in_scientific_notation_is_read_whole(corpus, scientific, value):
    reading, _, results, _ = _answer(
        f"Was Quillon's operating margin in fiscal 2024 above {scientific}?", corpus)
    assert reading.threshold == value and results[0].verdict == "Yes", results[0].lead


TWO_TESTS = [("above 20% and below 10%", ("20%", "10%")),
             ("above 10% and below 30%", ("10%", "30%")),
             ("over 5% but under 50%", ("5%", "50%")),
             ("below 10% or above 20%", ("10%", "20%")),
             ("more than 15 percent and less than 40 percent", ("15", "40")),
             ("between 10% and 30%", ("10%", "30%")),
             ("between 30% and 40%", ("30%", "40%"))]


@pytest.mark.parametrize(("words", "who", "phrasing"), itertools.product(
    range(len(TWO_TESTS)), ["Quillon", "Tarragon", "Halvard"], range(len(VERDICT))))
def test_two_thresholds_are_never_answered_on_the_first_alone(corpus, words, who, phrasing):
    tests, bounds = TWO_TESTS[words]
    question = VERDICT[phrasing].format(a=who, m="operating margin", op="", t=tests)
    question = " ".join(question.split())
    reading, _, results, _ = _answer(question, corpus)
    assert not any(r.verdict in ("Yes", "No") for r in results), (question, results[0].lead)
    said = reading.not_answered()
    assert all(b in said for b in bounds), (question, said)
    assert results and results[0].rows[0].value is not None


TWO_MEASURES = [("revenue", "$1 billion", "net income", "$100 million"),
                ("operating margin", "20%", "net margin", "5%"),
                ("net income", "$50 million", "revenue", "$5 billion")]


@pytest.mark.parametrize(("measures", "who", "join"), itertools.product(
    TWO_MEASURES, ["Quillon", "Halvard"], [" and its ", ", and was its ", " and "]))
def test_a_threshold_for_each_of_two_measures_is_never_decided_on_the_first(
        corpus, measures, who, join):
    x, a, y, b = measures
    question = f"Was {who}'s {x} above {a}{join}{y} above {b} in fiscal 2024?"
    reading, _, results, _ = _answer(question, corpus)
    assert not any(r.verdict in ("Yes", "No") for r in results), (question, results[0].lead)
    assert a in reading.not_answered() and b in reading.not_answered(), reading.not_answered()
    stated = {f.request.name for r in results for f in r.figures}
    assert {x, y} <= stated, (question, stated)  # both figures given


@pytest.mark.parametrize(("test", "years", "who"), itertools.product(
    ["above 20%", "below 25%", "positive"], [("FY2024", "FY2023"), ("2024", "1990")],
    ["Quillon", "Tarragon"]))
def test_one_companys_yes_no_in_two_fiscal_years_answers_each_year(corpus, test, years, who):
    m = "net income" if test == "positive" else "operating margin"
    question = f"Was {who}'s {m} {test} in {years[0]} and {years[1]}?"
    _, plans, results, _ = _answer(question, corpus)
    assert len(plans) == 2, (question, [r.lead for r in results])
    said = {row.period for r in results for row in r.rows}
    assert said == {"FY2024", f"FY{years[1][-4:]}"}, said
    for r in results:
        if any(row.value is not None for row in r.rows):
            assert r.verdict in ("Yes", "No"), r.lead
        else:
            assert years[1][-4:] in r.lead and r.verdict == "", r.lead


# -- item 10: a different measure for each company ---------------------------------------

MEASURES = ["revenue", "operating margin", "net income", "net margin", "operating income"]
EACH_OWN = ["{a}'s {x} or {b}'s {y}, which is higher?",
            "Which is higher: {a}'s {x} or {b}'s {y}?",
            "Was {a}'s {x} higher than {b}'s {y}?",
            "Which was larger in fiscal 2024, {a}'s {x} or {b}'s {y}?"]


@pytest.mark.parametrize(("x", "y", "pair", "phrasing"), [
    (x, y, p, k) for (x, y), p, k in itertools.product(
        itertools.permutations(MEASURES, 2), [("Quillon", "Halvard"), ("Tarragon", "Quillon")],
        range(len(EACH_OWN)))])
def test_two_companies_each_with_its_own_measure_are_never_compared_on_one(
        corpus, x, y, pair, phrasing):
    a, b = pair
    question = EACH_OWN[phrasing].format(a=a, b=b, x=x, y=y)
    reading, plans, results, _ = _answer(question, corpus)
    assert not any(r.verdict in ("Yes", "No", a, b) for r in results), \
        (question, [r.lead for r in results])
    said = reading.not_answered()
    assert x in said and y in said, (question, said)
    rows = {row.label: row for r in results for row in r.rows}
    assert set(rows) >= {a, b}, (question, list(rows))
    named = {a: x, b: y}
    for label in (a, b):  # each company's figure is the measure asked of it
        fig = next(f for r in results for f in r.figures
                   if f.request.companies == [NAMES[label]])
        assert fig.request.name == named[label], (question, label, fig.request.name)


@pytest.mark.parametrize(("m", "phrasing"), itertools.product(["revenue", "net income"],
                                                              range(len(EACH_OWN))))
def test_the_same_measure_for_both_is_still_compared(corpus, m, phrasing):
    question = EACH_OWN[phrasing].format(a="Quillon", b="Halvard", x=m, y=m)
    reading, _, results, _ = _answer(question, corpus)
    assert results[0].verdict in ("Halvard", "No"), (question, results[0].lead)
    assert reading.not_answered() == ""


# -- the answer a user reads (the agent's offline engine, its self-check included) --------

def test_the_answer_says_every_company_a_ranking_names_and_each_rows_own_work(service):
    names = ["Orrin", "Zentrix", "Quillon", "Morvane Labs", "Halvard", "Pellucid"]
    text = service.ask(f"Rank {_listed(names)} by operating margin.").answer.text
    first = text.splitlines()[0]
    assert all(n in first for n in ["Zentrix", "Morvane Labs", "Pellucid", "Orrin"]), text
    blocks = _blocks(text)
    assert set(blocks) == set(names), text
    assert any(REVENUE["Orrin"] in line for line in blocks["Orrin"]), text
    assert not any(v in line for k, v in REVENUE.items() if k != "Orrin"
                   for line in blocks["Orrin"]), text


@pytest.mark.parametrize(("question", "said"), [
    ("Which had the higher operating margin in fiscal 2024, Quillon or QUILLON WIDGETS "
     "INC.?", "names QUILLON WIDGETS INC. twice"),
    ("Was Quillon's operating margin in fiscal 2024 above 1e400%?", "the threshold '1e400%'"),
    ("Was Quillon's operating margin in fiscal 2024 above 20% and below 10%?",
     "the two thresholds 'above 20%' and 'below 10%'"),
    ("Quillon's revenue or Halvard's operating margin, which is higher?",
     "Quillon's revenue and Halvard's operating margin are different measures"),
])
def test_the_answer_gives_the_figures_and_says_what_it_did_not_decide(service, question,
                                                                     said):
    text = service.ask(question).answer.text
    first = text.splitlines()[0]
    assert not re.match(r"(?:Yes|No)\b|Quillon had|Halvard had", first), text
    assert re.search(r"\d", first), text  # the figures are given
    not_answered = next(line for line in text.splitlines() if line.startswith("Not answered"))
    assert said in not_answered and "no filing of" not in text, text


def test_the_answer_says_a_second_fiscal_year_that_is_not_loaded(service):
    text = service.ask("Which had the higher operating margin in FY2024 and FY1990, "
                       "Quillon or Halvard?").answer.text
    assert text.startswith("Halvard had the higher operating margin: 30.0% in fiscal 2024")
    assert re.search(r"^I cannot say which had the higher operating margin: no FY1990 ",
                     text, re.M), text
