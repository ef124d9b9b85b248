"""The generated paraphrase suite (core.bench.paraphrase): generator, gold, judge, and a small
sample end to end through the analysis layer.

The corpus is the fictional filers of tests/test_analysis.py (Acme Corp, Birch Inc., and
Cobalt Ltd given an income statement here so three companies can be ranked) as a
``FactStore``, with tickers and Acme's segments (Widgets, Gadgets, Services) added. No real
corpus, no embedding model. A fixed sample through the reader holds a floor of 95% in every
kind (``test_the_reader_passes_a_fixed_sample_in_every_kind``).
"""

from __future__ import annotations

import io
import random

import pytest

from core.bench.paraphrase import generate, run_cases
from core.bench.paraphrase.book import GoldBook
from core.bench.paraphrase.corpus import corpus_view
from core.bench.paraphrase.generate import parse_slots
from core.bench.paraphrase.gold import Spec, gold_for
from core.bench.paraphrase.grammar import (
    COMPANY_FORMS,
    KINDS,
    MEASURE_FORMS,
    PERIOD_FORMS,
    load_grammar,
    short_name,
    typo,
)
from core.bench.paraphrase.model import MISSES, BenchRun
from core.bench.paraphrase.report import load_run, print_compare, print_misses, print_tables
from core.bench.paraphrase.report import save_run as save_bench
from core.bench.paraphrase.runner import AnalysisAnswerer
from tests.test_analysis import ACME, BIRCH, COBALT, DOCS, FACTS, _year
from tests.test_figures_compute import FactStore, fact

SEGMENTS = {"Widgets": (600, 200), "Gadgets": (300, 80), "Services": (100, -30)}


def _segment_facts() -> list:
    out = []
    for name, (revenue, income) in SEGMENTS.items():
        member = f"acme:{name}Member"
        for label, value, concept in (("Revenue", revenue, "us-gaap:Revenues"),
                                      ("Operating income", income,
                                       "us-gaap:OperatingIncomeLoss")):
            f = fact(ACME, label, value, 2024, None, source="xbrl", concept=concept,
                     end="2024-12-31", dims=f"us-gaap:StatementBusinessSegmentsAxis={member}")
            f.member_names = {member: name}
            out.append(f)
    return out


COBALT_FACTS = [
    *_year(COBALT, 2024, "2024-12-31", {"Total revenue": 500, "Operating income": 50,
                                        "Net income": 40, "Research and development": 20,
                                        "Net cash provided by operating activities": 80,
                                        "Purchases of property and equipment": -30}),
    *_year(COBALT, 2023, "2023-12-31", {"Total revenue": 450, "Operating income": 60,
                                        "Net income": 35}),
    *_year(COBALT, 2022, "2022-12-31", {"Total revenue": 400, "Operating income": 30,
                                        "Net income": 20}),
]
# Birch's balance sheet as printed: assets, their total, liabilities, their total, equity
BIRCH_BALANCE = [fact(BIRCH, label, v, 2025, "balance", instant=True, end="2025-06-30",
                      page=61)
                 for label, v in (("Cash and cash equivalents", 700), ("Receivables", 300),
                                  ("Property and equipment, net", 900), ("Goodwill", 400),
                                  ("Total assets", 2300), ("Accounts payable", 250),
                                  ("Accrued liabilities", 150), ("Long-term debt", 600),
                                  ("Total liabilities", 1000), ("Common stock", 100),
                                  ("Total stockholders' equity", 1300))]
TICKERS = {ACME: "ACME", BIRCH: "BRCH", COBALT: "CBLT"}
STORE = FactStore(FACTS + COBALT_FACTS + _segment_facts() + BIRCH_BALANCE,
                  [d.model_copy(update={"ticker": TICKERS[d.doc_id]}) for d in DOCS])


@pytest.fixture(scope="module")
def book():
    return GoldBook(STORE)


@pytest.fixture(scope="module")
def view():
    return corpus_view(STORE)


@pytest.fixture(scope="module")
def generated():
    return generate(STORE, n=132, seed=11)


# --- grammar and slots ----------------------------------------------------------------

def test_the_grammar_has_templates_for_every_kind_and_reads_its_placeholders():
    grammar = load_grammar()
    assert {t.kind for t in grammar.templates} == set(KINDS)
    for t in grammar.templates:  # every placeholder is one the renderer fills
        t.text.format(A="a", B="b", list="l", m="m", m1="m", m2="n", rev="r", in_period="",
                      In_period="In x, ", dir="d", thr="t", rel="r", chg="c", seg="s",
                      side="s", sides="ss")


@pytest.mark.parametrize("registry,short", [("ACME CORP", "Acme"), ("Birch Inc.", "Birch"),
                                            ("HOME DEPOT, INC.", "Home Depot"),
                                            ("PROCTER & GAMBLE CO", "Procter & Gamble")])
def test_short_names_drop_suffixes_and_capitals(registry, short):
    assert short_name(registry) == short


@pytest.mark.parametrize("name", ["Alphabet", "Procter & Gamble", "Cobalt", "Home Depot"])
def test_a_typo_is_one_slip_in_a_long_word_and_the_same_for_a_seed(name):
    slipped = typo(name, random.Random(3))
    assert slipped == typo(name, random.Random(3)) and slipped != name
    assert slipped[0] == name[0] and abs(len(slipped) - len(name)) <= 1
    assert typo("AMD", random.Random(3)) == "AMD"  # no word of five letters


def test_parse_slots_reads_repeated_and_comma_separated_filters():
    assert parse_slots(["company=typo,period=FYyy", "company=short"]) == {
        "company": {"typo", "short"}, "period": {"FYyy"}}
    with pytest.raises(ValueError, match="slot=value"):
        parse_slots(["company"])


# --- the generator --------------------------------------------------------------------

def test_the_corpus_view_reads_filers_tickers_and_latest_years(view):
    got = {(f.short, f.ticker, f.latest) for f in view.filers}
    assert got == {("Acme", "ACME", 2024), ("Birch", "BRCH", 2025), ("Cobalt", "CBLT", 2024)}


def test_generation_is_deterministic_for_a_seed(generated):
    again = generate(STORE, n=132, seed=11)
    assert [c.model_dump() for c in again.cases] == [c.model_dump() for c in generated.cases]
    other = generate(STORE, n=132, seed=12)
    assert [c.question for c in other.cases] != [c.question for c in generated.cases]
    compared = [c.question for c in generated.cases if c.kind == "compare"]
    only = generate(STORE, n=len(compared), seed=11, kinds=["compare"])  # drawn on its own
    assert [c.question for c in only.cases] == compared


def test_every_kind_covers_every_slot_value(generated):
    grammar = load_grammar()
    for kind in KINDS:
        cases = [c for c in generated.cases if c.kind == kind]
        assert len(cases) >= 10, (kind, generated.skipped_by_kind)
        seen = {s: {c.slots[s] for c in cases if s in c.slots} for s in
                ("company", "measure", "period", "order")}
        assert seen["company"] == set(COMPANY_FORMS), kind
        assert seen["order"] == {t.order for t in grammar.for_kind(kind)}, kind
        if kind not in ("largest_member", "balance_line"):  # loss and lines: no measure
            assert seen["measure"] == set(MEASURE_FORMS) or kind == "text", kind
        if kind != "trend":  # "the last three years": no period slot
            assert seen["period"] == set(PERIOD_FORMS), kind
    directions = {c.slots.get("direction") for c in generated.cases}
    assert {"higher", "lower", "ascending", "descending", "up", "down", "more", "less",
            "rise", "fall", "loss"} <= directions
    assert "weakest first" in {c.slots.get("wording") for c in generated.cases} or \
        "worst to best" in {c.slots.get("wording") for c in generated.cases}


def test_questions_are_worded_from_the_slots(generated):
    by_form = {c.slots["company"]: c for c in generated.cases if c.kind == "figure"}
    assert "acme" in by_form["name-lower"].question or "birch" in \
        by_form["name-lower"].question or "cobalt" in by_form["name-lower"].question
    assert any(t in by_form["ticker-lower"].question for t in ("acme", "brch", "cblt"))
    assert any(t in by_form["ticker-upper"].question for t in ("ACME", "BRCH", "CBLT"))
    for c in generated.cases:
        assert "{" not in c.question and ".." not in c.question, c.question
        if c.slots.get("period") == "FYyy":
            assert "FY2" in c.question and "FY20" not in c.question, c.question
        if c.slots.get("period") == "none":
            assert "20" not in c.question and "latest" not in c.question, c.question


def test_skipped_cases_are_counted_not_generated(generated):
    # Birch prints no FY2023 and no segments: some draws have no gold; none is kept
    assert generated.skipped > 0
    assert all(c.gold.kind == c.kind for c in generated.cases)


# --- the gold, by hand-computed figures -------------------------------------------------

def _spec(view, kind, names, measures=(), **kw) -> Spec:
    grammar = load_grammar()
    filers = tuple(next(f for f in view.filers if f.short == n) for n in names)
    return Spec(kind=kind, filers=filers, measures=tuple(grammar.measures[m] for m in measures),
                **kw)


def _gold(view, book, kind, names, measures=(), **kw):
    done = gold_for(_spec(view, kind, names, measures, **kw), book, random.Random(0))
    assert done is not None
    return done


def test_gold_of_compare_rank_and_difference(view, book):
    gold, _ = _gold(view, book, "compare", ["Birch", "Acme"], ["operating_margin"],
                    direction="higher")
    assert gold.expect == "ACME CORP" and gold.values == [15.0, 25.0]  # 300/2000, 250/1000
    gold, _ = _gold(view, book, "rank", ["Acme", "Birch", "Cobalt"], ["net_margin"],
                    direction="ascending")  # 18.0%, 13.0%, 8.0%
    assert gold.order == ["COBALT LTD", "Birch Inc.", "ACME CORP"]
    gold, spec = _gold(view, book, "difference", ["Acme", "Birch"], ["revenue"],
                       premise="higher")
    assert gold.value == 1000 and gold.unit == "USD millions"
    assert [f.short for f in spec.filers] == ["Birch", "Acme"]  # "how much higher was Birch's"
    gold, _ = _gold(view, book, "difference", ["Acme", "Birch"], ["operating_margin"],
                    year=2024)  # Birch's fiscal 2024: 330 / 2100
    assert gold.value == pytest.approx(25.0 - 330 / 2100 * 100, abs=1e-3)
    assert gold.unit == "points"


def test_gold_of_growth_verdicts_and_trends(view, book):
    gold, _ = _gold(view, book, "growth_compare", ["Birch", "Acme"], ["revenue"],
                    direction="higher")
    assert gold.expect == "ACME CORP" and gold.size_winner == "Birch Inc."
    assert gold.values == pytest.approx([(2000 / 2100 - 1) * 100, (1000 / 900 - 1) * 100],
                                        abs=1e-3)
    assert _gold(view, book, "verdict", ["Birch"], ["revenue"], test="change",
                 direction="up")[0].expect == "No"  # 2,100 -> 2,000
    assert _gold(view, book, "verdict", ["Birch"], ["rnd", "capex"], test="relation",
                 direction="less")[0].expect == "Yes"  # 150 < 400
    gold, spec = _gold(view, book, "verdict", ["Acme"], ["operating_margin"], test="above")
    assert gold.expect == ("Yes" if 25.0 > spec.threshold else "No")
    assert abs(spec.threshold - 25.0) >= 2
    assert _gold(view, book, "trend", ["Acme"], ["operating_margin"],
                 test="rise")[0].expect == "No"  # 30.0 -> 22.2 -> 25.0
    assert _gold(view, book, "trend", ["Acme"], ["net_income"],
                 test="rise")[0].expect == "Yes"  # 130 -> 150 -> 180
    assert gold_for(_spec(view, "trend", ["Birch"], ["revenue"], test="rise"), book,
                    random.Random(0)) is None  # no FY2023 for Birch: skipped


def test_gold_of_segments_figures_and_a_missing_figure(view, book):
    gold, spec = _gold(view, book, "share", ["Acme"], ["revenue"])
    assert gold.value == pytest.approx(SEGMENTS[spec.segment][0] / 10, abs=1e-3)
    assert _gold(view, book, "largest_member", ["Acme"], ["revenue"], target="revenue",
                 direction="higher")[0].expect == "Widgets"
    assert _gold(view, book, "largest_member", ["Acme"], ["revenue"], target="revenue",
                 direction="lower")[0].expect == "Services"
    assert _gold(view, book, "largest_member", ["Acme"], target="loss")[0].expect == "Services"
    assert _gold(view, book, "balance_line", ["Birch"], target="asset",
                 direction="higher")[0].expect == "Property and equipment, net"
    assert _gold(view, book, "balance_line", ["Birch"], target="liability",
                 direction="lower")[0].expect == "Accrued liabilities"
    gold, _ = _gold(view, book, "balance_line", ["Acme"], target="liability",
                    direction="higher")  # the two Debt lines told apart, as printed
    assert gold.expect == "Debt (non-current)" and "Debt (current)" in gold.names
    assert gold_for(_spec(view, "balance_line", ["Acme"], target="asset",
                          direction="higher"), book, random.Random(0)) is None  # one line
    gold, _ = _gold(view, book, "figure", ["Birch"], ["fcf"])
    assert gold.value == -300  # 100 operating cash flow - 400 capex
    gold, _ = _gold(view, book, "figures", ["Acme"], ["rnd", "capex"])
    assert gold.values == [90, 120]
    assert gold_for(_spec(view, "figure", ["Birch"], ["rnd"], year=2024), book,
                    random.Random(0)) is None


# --- end to end on a fixed small sample ---------------------------------------------------

def test_a_small_sample_end_to_end_through_the_analysis_layer(tmp_path):
    sample = generate(STORE, n=22, seed=5)
    assert len({c.kind for c in sample.cases}) == len(KINDS)
    outcomes = run_cases(sample.cases, AnalysisAnswerer(STORE))
    assert len(outcomes) == len(sample.cases)
    for o in outcomes:
        j = o.judgement
        assert j.passed or j.miss in MISSES, o
        assert o.seconds >= 0
    assert any(o.judgement.passed for o in outcomes), [o.answer for o in outcomes]
    run = BenchRun(seed=5, n=22, answerer="analysis", generated=len(outcomes),
                   skipped=sample.skipped, outcomes=outcomes)
    path = tmp_path / "run.json"
    save_bench(run, path)
    again = load_run(path)
    out = io.StringIO()
    print_tables(again, out)
    print_compare(run, again, out)
    print_misses(outcomes, 5, out)
    shown = out.getvalue()
    assert "Pass rate per kind" in shown and "company=ticker-lower" in shown
    assert "newly passing 0, newly failing 0" in shown and "p50" in shown


def test_the_command_is_wired_into_bench():
    from core.cli.main import build_parser

    args = build_parser().parse_args(["bench", "paraphrase", "--n", "30", "--seed", "2",
                                      "--kinds", "compare,rank", "--slots",
                                      "company=typo", "--show-misses", "3"])
    assert args.func.__name__ == "cmd_paraphrase" and args.n == 30 and args.seed == 2
    assert args.slots == ["company=typo"] and args.show_misses == 3


def test_the_reader_passes_a_fixed_sample_in_every_kind():
    """The gate of issue 36 on the fictional filers: 95% in every kind, and no answer that
    opens with another question's result, on a fixed sample (10 wordings a kind)."""
    from collections import Counter

    sample = generate(STORE, n=110, seed=3)
    outcomes = run_cases(sample.cases, AnalysisAnswerer(STORE))
    asked, right = Counter(), Counter()
    for o in outcomes:
        asked[o.case.kind] += 1
        right[o.case.kind] += o.judgement.passed
    low = {k: f"{right[k]}/{n}" for k, n in asked.items() if right[k] < 0.95 * n}
    assert not low, (low, [(o.case.question, o.answer[:120]) for o in outcomes
                           if not o.judgement.passed])
    assert not [o for o in outcomes if o.judgement.miss == "wrong-question"]
