"""Analysis questions read and decided over facts: compare, rank, yes/no, several figures.

Two fictional filers (their statements as facts, in base units): Acme Corp, whose fiscal year
ends in December, and Birch Inc., whose fiscal year ends in June; Cobalt Ltd holds no income
statement. The store is the corpus store's read side over a list (tests/test_figures_compute).
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.combine import answer_analysis
from core.analysis.question import parse_analysis
from core.analysis.subjects import latest_annual, short_name
from core.foundation.types import DocumentMeta
from tests.test_figures_compute import FactStore, fact

ACME, BIRCH, COBALT = "acme24", "birch25", "cobalt24"


def _year(doc: str, year: int, end: str, lines: dict[str, float]) -> list:
    out = []
    for label, value in lines.items():
        balance = label.startswith(("Total assets", "Property and equipment"))
        out.append(fact(doc, label, value, year, "balance" if balance else
                        "cash_flow" if label.startswith(("Net cash", "Purchases", "Dividends"))
                        else
                        "income", end=end, instant=balance, page=40 + year % 10))
    return out


FACTS = [
    *_year(ACME, 2024, "2024-12-31", {"Total revenue": 1000, "Operating income": 250,
                                      "Net income": 180, "Research and development": 90,
                                      "Net cash provided by operating activities": 300,
                                      "Purchases of property and equipment": -120,
                                      "Dividends paid": -40,
                                      "Property and equipment, net": 500,
                                      "Total assets": 2000}),
    *_year(ACME, 2023, "2023-12-31", {"Total revenue": 900, "Operating income": 200,
                                      "Net income": 150}),
    *_year(ACME, 2022, "2022-12-31", {"Total revenue": 800, "Operating income": 240,
                                      "Net income": 130}),
    *_year(BIRCH, 2025, "2025-06-30", {"Total revenue": 2000, "Operating income": 300,
                                       "Net income": 260, "Research and development": 150,
                                       "Net cash provided by operating activities": 100,
                                       "Purchases of property and equipment": -400}),
    *_year(BIRCH, 2024, "2024-06-30", {"Total revenue": 2100, "Operating income": 330,
                                       "Net income": 240}),
    *_year(COBALT, 2024, "2024-12-31", {"Total assets": 5000}),
    # Acme's balance sheet as printed, after its assets: liabilities, then equity
    *(fact(ACME, label, v, 2024, "balance", instant=True, end="2024-12-31", page=44)
      for label, v in (("Accounts payable", 100), ("Debt", 150), ("Deferred revenue", 350),
                       ("Total current liabilities", 600), ("Debt", 500),
                       ("Other liabilities", 50), ("Total liabilities", 1150),
                       ("Common stock", 200), ("Total stockholders' equity", 850))),
]
DOCS = [DocumentMeta(doc_id=ACME, file_name="acme-10k-2024.htm", company="ACME CORP",
                     form_type="10-K", period="FY2024", period_end="2024-12-31"),
        DocumentMeta(doc_id=BIRCH, file_name="birch-10k-2025.htm", company="Birch Inc.",
                     form_type="10-K", period="FY2025", period_end="2025-06-30"),
        DocumentMeta(doc_id=COBALT, file_name="cobalt-10k-2024.htm", company="COBALT LTD",
                     form_type="10-K", period="FY2024", period_end="2024-12-31")]
STORE = FactStore(FACTS, DOCS)


def ask(question: str):
    plan = parse_analysis(question, DOCS, STORE)
    assert plan is not None, question
    return plan, answer_analysis(plan, STORE)


def test_a_comparison_names_the_winner_first_with_both_figures_and_their_periods():
    plan, result = ask("Which had the higher operating margin, Acme or Birch?")
    assert plan.spec.kind == "compare" and [r.periods for r in plan.requests] == \
        [["FY2024"], ["FY2025"]]  # each company's latest fiscal year
    assert result.verdict == "Acme"  # 25.0% against 15.0%
    assert result.lead == ("Acme had the higher operating margin: 25.0% in fiscal 2024 "
                           "against Birch's 15.0% in fiscal 2025.")
    assert [(r.label, r.rank, r.period_end) for r in result.rows] == \
        [("Acme", 1, "2024-12-31"), ("Birch", 2, "2025-06-30")]
    assert any("end in different months" in n for n in result.notes)
    assert all(r.chunk_ids for r in result.rows) and result.chartable


def test_the_same_comparison_in_other_words_and_the_other_direction():
    for q in ("Acme vs Birch: who has the better operating margin?",
              "Compare the operating margins of Birch and Acme.",
              "Between Birch and Acme, which company reported the higher operating margin?"):
        assert ask(q)[1].verdict == "Acme", q
    _, lower = ask("Which had the lower net profit margin in fiscal 2024, Acme or Birch?")
    assert lower.verdict == "Birch"  # 11.4% in its own fiscal 2024, against Acme's 18.0%
    assert [r.period for r in lower.rows] == ["FY2024", "FY2024"]
    assert lower.rows[0].label == "Birch" and lower.rows[0].display == "11.4%"


def test_a_ranking_orders_every_company_and_says_the_one_without_figures():
    _, result = ask("Rank Birch, Acme and Cobalt by revenue, lowest first.")
    assert result.verdict == "Acme, Birch"
    assert [r.label for r in result.rows] == ["Acme", "Birch", "Cobalt"]
    assert result.rows[-1].value is None and result.rows[-1].rank is None
    assert "Not found: Cobalt" in result.lead and result.lead.startswith(
        "By revenue, lowest first: Acme $1,000 million in fiscal 2024; Birch")


def test_a_comparison_of_two_with_one_figure_missing_is_undecided_and_says_why():
    _, result = ask("Which had the higher revenue, Acme or Cobalt?")
    assert result.verdict == "" and not result.decided
    assert result.lead.startswith("I cannot say which had the higher revenue: Cobalt: no "
                                  "FY2024 revenue")
    assert "Acme's revenue was $1,000 million in fiscal 2024" in result.lead


@pytest.mark.parametrize("question,verdict,lead", [
    ("In fiscal 2024, did Acme generate positive free cash flow?", "Yes",
     "Yes. Acme's free cash flow in fiscal 2024 was $180 million, above zero."),
    ("Was Birch's free cash flow negative in fiscal 2025?", "Yes",
     "Yes. Birch's free cash flow in fiscal 2025 was -$300 million, below zero."),
    ("Did Acme's revenue decline in fiscal 2024 compared with the year before?", "No",
     "No. Acme's revenue grew 11.1% in fiscal 2024, from $900 million in fiscal 2023 to "
     "$1,000 million."),
    ("Compared with the prior year, did Birch's fiscal 2025 revenue grow?", "No",
     "No. Birch's revenue declined 4.8% in fiscal 2025, from $2,100 million in fiscal 2024 "
     "to $2,000 million."),
    ("Was Birch's R&D expense less than its capital expenditures in fiscal 2025?", "Yes",
     "Yes. Birch's R&D in fiscal 2025 ($150 million) was less than its capital "
     "expenditures ($400 million)."),
    ("Did Acme spend more on R&D than on capex in 2024?", "No",
     "No. Acme's R&D in fiscal 2024 ($90 million) was less than its capex ($120 million)."),
    ("Is Acme's net margin above 20%?", "No",
     "No. Acme's net margin in fiscal 2024 was 18.0%, not above 20.0%."),
    ("Was Birch's revenue above $1.5 billion in fiscal 2025?", "Yes",
     "Yes. Birch's revenue in fiscal 2025 was $2,000 million, above $1,500 million."),
    ("Did Acme have a higher net margin than Birch?", "Yes",
     "Yes. Acme's net margin (18.0%, fiscal 2024) was higher than Birch's (13.0%, fiscal "
     "2025)."),
])
def test_a_yes_no_question_is_answered_yes_or_no_first_by_the_figures(question, verdict,
                                                                       lead):
    plan, result = ask(question)
    assert plan.spec.kind == "verdict"
    assert (result.verdict, result.lead) == (verdict, lead)


def test_improving_over_the_years_reads_each_year_of_the_latest_filing():
    plan, result = ask("Has Acme's operating margin been improving?")
    assert [r.periods for r in plan.requests] == [["FY2022"], ["FY2023"], ["FY2024"]]
    assert result.verdict == "Yes"  # 30.0% -> 22.2% -> 25.0%: the latest move is up
    assert result.lead == ("Yes. Acme's operating margin rose from 22.2% in fiscal 2023 to "
                           "25.0% in fiscal 2024 (30.0% in fiscal 2022).")
    _, worse = ask("Is Acme's operating margin deteriorating?")
    assert worse.verdict == "No"


def test_several_figures_are_stated_in_the_order_asked():
    plan, result = ask("Give Acme's fiscal 2024 net margin and operating margin.")
    assert plan.spec.kind == "multi" and [r.label for r in result.rows] == \
        ["net margin", "operating margin"]
    assert result.lead == ("Acme's net margin in fiscal 2024 was 18.0% and its operating "
                           "margin 25.0%.")


def test_each_company_keeps_the_period_named_for_it():
    plan, result = ask("Was Acme's fiscal 2023 revenue higher than Birch's fiscal 2024 "
                       "revenue?")
    assert [r.periods for r in plan.requests] == [["FY2023"], ["FY2024"]]
    assert result.verdict == "No" and "The periods compared differ" in " ".join(result.notes)


def test_every_company_loaded_is_compared_when_the_question_asks_which_of_them():
    _, result = ask("Which of the companies loaded has the highest net income?")
    assert result.verdict == "Birch" and [r.label for r in result.rows] == \
        ["Birch", "Acme", "Cobalt"]
    assert result.lead.startswith("Birch had the highest net income: $260 million")


def test_plain_figure_questions_and_text_questions_are_no_analysis():
    for q in ("What was Acme's revenue in fiscal 2024?", "Why did Acme's margin fall?",
              "Describe Birch's competition risks."):
        assert parse_analysis(q, DOCS, STORE) is None, q


def test_names_and_latest_fiscal_years():
    assert short_name("COCA COLA CO") == "Coca Cola"
    assert short_name("GAINSCO, INC.") == "Gainsco"
    assert short_name("Alphabet Inc.") == "Alphabet"
    assert short_name("PROCTER & GAMBLE CO") == "Procter & Gamble"
    q10 = DocumentMeta(doc_id="acmeq", file_name="acme-10q.htm", company="ACME CORP",
                       form_type="10-Q", period="2025-03-31", period_end="2025-03-31")
    assert latest_annual([ACME, "acmeq"], [*DOCS, q10]) == "FY2024"  # a 10-Q is no year
    assert latest_annual(["acmeq"], [q10]) == ""


def test_a_judgement_word_is_decided_by_the_named_criterion_with_its_thresholds():
    plan, result = ask("Is Acme a capital-intensive business based on FY2024 data?")
    assert plan.spec.kind == "criterion" and plan.spec.criterion == "capital_intensive"
    assert result.verdict == "Yes"  # capex 12.0% of revenue, above the stated 10%
    assert result.lead == ("Yes. By the catalogue's criterion for capital-intensive (capex / "
                           "revenue above 10% or net PP&E / total assets above 40%): Acme's "
                           "capex / revenue was 12.0% and its net PP&E / total assets was "
                           "25.0% in fiscal 2024.")
    _, growth = ask("Is Birch a high-growth company?")
    assert growth.verdict == "No" and "revenue growth above 15%" in growth.lead


def test_stable_either_or_and_paid_questions():
    _, stable = ask("Are Acme's operating margins consistent (not fluctuating more than "
                    "roughly 5% each year)?")
    assert stable.verdict == "No" and "moved more than 5 points a year" in stable.lead
    _, either = ask("Has Acme's revenue improved or declined in fiscal 2024?")
    assert either.lead.startswith("It rose. Acme's revenue grew 11.1% in fiscal 2024")
    _, paid = ask("Has Acme paid dividends in fiscal 2024?")
    assert paid.verdict == "Yes"
    assert parse_analysis("Were there any unusual events that increased Acme's net income?",
                          DOCS, STORE) is None  # a question about the text, not a figure


def test_the_largest_liability_is_picked_from_the_balance_sheet_lines():
    plan, result = ask("What is the largest liability on Acme's balance sheet?")
    assert plan.spec.kind == "pick" and plan.requests[0].metric == "total_liabilities"
    assert result.verdict == "Debt (non-current)"  # 500: the two Debt lines told apart
    assert [r.label for r in result.rows] == ["Debt (non-current)", "Deferred revenue",
                                              "Debt (current)", "Accounts payable",
                                              "Other liabilities"]  # no totals, no equity
    assert result.lead == ("The largest liability on Acme's balance sheet at the end of "
                           "fiscal 2024 was Debt (non-current): $500 million, 43% of total "
                           "liabilities of $1,150 million.")


PICK_ASKED = ["Which {side} was {co}'s {way}?", "Which of {co}'s {sides} was the {way}?",
              "which one of {co}'s {sides} is {way}", "Which {side} on {co}'s balance sheet "
              "is the {way}?", "Which {side} did {co} report as its {way} in fiscal 2024?",
              "Of all of {co}'s {sides}, which is the {way}?", "which single {side} is {way} "
              "for {co}", "{co}'s {sides}: which one was {way} at the end of FY2024?"]
MOST = {"largest": "most", "biggest": "most", "smallest": "least"}


@pytest.mark.parametrize(("asked", "way", "side", "co"), itertools.product(
    PICK_ASKED, ["largest", "biggest", "smallest"], ["liability", "asset"],
    ["Acme", "ACME CORP", "Acme Corp"]))
def test_a_pick_asked_side_first_is_the_same_pick(asked, way, side, co):
    """'Which liability was Acme's largest?' is 'Acme's largest liability' (it was read as a
    text question and answered with passages that merely say 'liability')."""
    sides = "assets" if side == "asset" else "liabilities"
    plan = parse_analysis(asked.format(side=side, sides=sides, way=way, co=co), DOCS, STORE)
    same = parse_analysis(f"What is the {way} {side} on Acme's balance sheet?", DOCS, STORE)
    assert plan is not None and plan.spec.kind == "pick", asked
    assert (plan.spec.name, plan.spec.direction) == (same.spec.name, same.spec.direction)
    assert plan.requests[0].metric == f"total_{sides}" and plan.subjects[0].doc_ids == [ACME]
    most = parse_analysis(f"Which {side} did {co} carry the {MOST[way]} of?", DOCS, STORE)
    assert most is not None and most.spec.direction == same.spec.direction


@pytest.mark.parametrize("asked", [
    "Which company had the largest {sides}, Acme or Birch?",
    "Which {sides} grew the most at {co}?",
    "Which {sides} does {co} report, and which segment had the largest revenue?",
    "Which {side} is {co} most exposed to?", "Which of {co}'s {sides} increased the most?",
    "What share of total {sides} is cash at {co}, and which company is the largest?"])
@pytest.mark.parametrize(("side", "co"), itertools.product(["liability", "asset"], ["Acme"]))
def test_a_which_question_that_picks_no_line_is_no_pick(asked, side, co):
    sides = "assets" if side == "asset" else "liabilities"
    plan = parse_analysis(asked.format(side=side, sides=sides, co=co), DOCS, STORE)
    assert plan is None or plan.spec.kind != "pick", asked


def test_a_company_named_but_not_loaded_keeps_its_row_and_is_said():
    plan, result = ask("Which had the higher revenue, Acme or Globex Industries?")
    assert plan.spec.absent == ["Globex Industries"] and len(plan.requests) == 1
    assert result.verdict == "" and [r.label for r in result.rows] == ["Acme",
                                                                       "Globex Industries"]
    assert "no filing of Globex Industries is loaded" in result.lead
    _, ranked = ask("Rank Acme, Initech and Birch by revenue.")
    assert ranked.verdict == "Birch, Acme" and ranked.rows[-1].label == "Initech"


_WORDS = ["Acme", "Birch", "Cobalt", "Globex", "which", "higher", "lower", "rank", "Q1",
          "FY2024", "fiscal", "2023", "revenue", "margin", "operating", "segments", "region",
          "largest", "did", "grow", "decline", "above", "20%", "$1.5", "billion", "than",
          "less", "or", "and", "vs", ",", "?", "'s", "capital-intensive", "liability", "the"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=14))
def test_no_question_text_makes_the_analysis_reader_fail(words):
    plan = parse_analysis(" ".join(words), DOCS, STORE)
    if plan is not None:  # whatever it read, it can be answered without raising
        result = answer_analysis(plan, STORE)
        assert result.spec.kind == plan.spec.kind and result.lead
