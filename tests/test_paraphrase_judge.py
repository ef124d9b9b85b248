"""The paraphrase suite's judge (core.bench.paraphrase.judge) on answer texts built from
slots: every kind passes when its shape is right in any company form, and each miss class is
told apart (split from tests/test_paraphrase_suite.py)."""

from __future__ import annotations

import pytest

from core.bench.paraphrase import judge
from core.bench.paraphrase.answer_text import first_sentence, is_echo, numbers, result_line
from core.bench.paraphrase.book import generic
from core.bench.paraphrase.model import Gold
from tests.test_paraphrase_suite import SEGMENTS

# --- the judge, on answer texts built from slots ----------------------------------------

NAMES = {"ACME CORP": ["ACME CORP", "Acme", "ACME"], "Birch Inc.": ["Birch Inc.", "Birch",
                                                                    "BRCH"]}
COMPARE = Gold(kind="compare", expect="ACME CORP", values=[25.0, 15.0], unit="percent",
               names=NAMES)
READ_AS = "Read as: companies ACME CORP and Birch Inc.; measure operating margin; FY2024."
FORMS = list(zip(NAMES["ACME CORP"], NAMES["Birch Inc."], strict=True))


QUESTION = "Which had the higher operating margin, Acme or Birch?"


def _variants(line: str) -> list[str]:
    """A result line as an answer may carry it: alone, with a cited table under it, in bold,
    with a "Read as" line after it or at its end, under the question repeated (``QUESTION``
    is the question the judge is told)."""
    return [line, f"{line}\n- Acme, fiscal 2024: 25.0% [1]\n- Birch, fiscal 2025: 15.0% [2]",
            f"**{line}**", f"{line}\n{READ_AS}", f"{line} {READ_AS}", f"{READ_AS}\n{line}",
            f"Only weak evidence — {QUESTION.lower()}\n{line}"]


def _passes(gold: Gold, line: str) -> None:
    for text in _variants(line):
        got = judge(gold, text, QUESTION)
        assert got.passed, (text, got)


@pytest.mark.parametrize("winner,loser", FORMS)
def test_a_comparison_passes_with_the_winner_named_first_in_any_form(winner, loser):
    for words in ("higher", "better", "stronger"):
        line = f"{winner} had the {words} operating margin: 25.0% in fiscal 2024 [1] against " \
               f"{loser}'s 15.0% in fiscal 2025 [2]."
        _passes(COMPARE, line)
    assert judge(COMPARE, f"{winner}'s operating margin (25.0%) was above {loser}'s (15.0%).")\
        .passed


@pytest.mark.parametrize("winner,loser", FORMS)
def test_a_comparison_misses_by_class(winner, loser):
    cases = {
        f"{loser} had the higher operating margin: 15.0% against {winner}'s 25.0%.":
            "wrong-value",
        f"Yes. {winner}'s operating margin was higher than {loser}'s.": "wrong-question",
        f"{winner}'s operating margin was 25.0% in fiscal 2024.": "wrong-question",
        "Operating margin is operating income divided by revenue [1].": "wrong-question",
        f"I could not compute {loser}'s operating margin: no FY2025 revenue.":
            "said-not-answered",
        f"Margins are discussed in MD&A [1].\nPart 2 not answered: {loser}'s margin.":
            "said-not-answered",
        "": "no-answer",
        f"\n{READ_AS}\n": "no-answer",
    }
    for text, miss in cases.items():
        got = judge(COMPARE, text)
        assert not got.passed and got.miss == miss, (text, got)


RANK = Gold(kind="rank", order=["Birch Inc.", "ACME CORP", "COBALT LTD"], names={
    **NAMES, "COBALT LTD": ["COBALT LTD", "Cobalt", "CBLT"]})


@pytest.mark.parametrize("form", range(3))
def test_a_ranking_passes_in_order_and_says_a_reversed_one(form):
    names = [RANK.names[k][form] for k in RANK.order]
    line = "By revenue, highest first: " + "; ".join(f"{n} ${v:,} million" for n, v in zip(
        names, (2000, 1000, 500), strict=True)) + "."
    _passes(RANK, line)
    reverse = judge(RANK, "By revenue, lowest first: " + "; ".join(names[::-1]) + ".")
    assert reverse.miss == "wrong-value" and "reverse" in reverse.reason
    assert judge(RANK, f"{names[0]} had the highest revenue.").miss == "wrong-value"


DIFF = Gold(kind="difference", value=10.0, values=[25.0, 15.0], unit="points", names=NAMES)
DIFF_USD = Gold(kind="difference", value=1000.0, values=[2000.0, 1000.0],
                unit="USD millions", names=NAMES)


@pytest.mark.parametrize("winner,loser", FORMS)
def test_a_difference_must_state_the_gap_first(winner, loser):
    for gap in ("10.0 points", "10 percentage points", "10.05 pp", "9.95 points"):
        line = f"{winner}'s operating margin exceeded {loser}'s by {gap}: 25.0% against 15.0%."
        _passes(DIFF, line)
    assert judge(DIFF, f"The gap is 10.0%: {winner} 25.0%, {loser} 15.0%.").passed
    for gap in ("$1,000 million", "$1.0 billion", "$1 billion", "1,000 million dollars"):
        assert judge(DIFF_USD, f"{loser}'s revenue was {gap} higher than {winner}'s.").passed
    assert judge(DIFF_USD, f"{loser}'s revenue was $1,200 million higher than "
                 f"{winner}'s.").miss == "wrong-value"
    higher = judge(DIFF, f"{winner} had the higher operating margin: 25.0% in fiscal 2024 "
                   f"against {loser}'s 15.0%. The gap is 10.0 points.")
    assert higher.miss == "wrong-question"  # "which is higher" answered, the gap later
    assert judge(DIFF, f"{winner}'s operating margin was 12.0 points higher than "
                 f"{loser}'s.").miss == "wrong-value"


GROWTH = Gold(kind="growth_compare", expect="ACME CORP", values=[11.1, -4.8],
              unit="percent", size_winner="Birch Inc.", names=NAMES)


@pytest.mark.parametrize("winner,loser", FORMS)
def test_growth_compared_names_the_faster_grower_not_the_larger(winner, loser):
    for line in (f"{winner}'s revenue grew faster: 11.1% in fiscal 2024 against {loser}'s "
                 f"-4.8%.", f"{winner} had the higher revenue growth: 11.1% against "
                 f"{loser}'s -4.8%."):
        _passes(GROWTH, line)
    size = judge(GROWTH, f"{loser} had the higher revenue: $2,000 million against {winner}'s "
                 "$1,000 million.")
    assert size.miss == "wrong-question" and "larger size" in size.reason
    assert judge(GROWTH, f"{loser}'s revenue grew faster than {winner}'s.").miss == \
        "wrong-value"
    assert judge(GROWTH, f"{winner}'s revenue growth was 11.1%.").miss == "wrong-question"
    assert judge(GROWTH, f"Yes. {winner}'s revenue grew faster.").miss == "wrong-question"


@pytest.mark.parametrize("expect", ["Yes", "No"])
def test_a_verdict_opens_with_the_right_yes_or_no(expect):
    other = "No" if expect == "Yes" else "Yes"
    for kind in ("verdict", "trend"):
        gold = Gold(kind=kind, expect=expect, names=NAMES)
        for opener in (f"{expect}.", f"{expect},", f"{expect} —", f"**{expect}**."):
            line = f"{opener} Acme's revenue grew 11.1% in fiscal 2024."
            _passes(gold, line)
        assert judge(gold, f"{other}. Acme's revenue grew.").miss == "wrong-value"
        assert judge(gold, "Acme's revenue was $1,000 million in fiscal 2024.").miss == \
            "wrong-question"
        assert judge(gold, "Acme had the higher revenue growth.").miss == "wrong-question"
        assert judge(gold, "Nothing in the filings says so [1].").miss == "wrong-question"
        assert judge(gold, "I cannot say: no FY2023 revenue.").miss == "said-not-answered"


SHARE = Gold(kind="share", value=60.0, unit="percent", alternates=[59.2],
             names={"Widgets": ["Widgets"]})


@pytest.mark.parametrize("member", ["Widgets", "widgets"])
def test_a_share_is_a_percent_first(member):
    for stated in ("60.0%", "60%", "59.95%", "60.1 percent", "59.2%"):
        line = f"{member} was {stated} of Acme's revenue in fiscal 2024."
        _passes(SHARE, line)
    assert judge(SHARE, f"{member} revenue was $600 million in fiscal 2024.").miss == \
        "wrong-question"
    assert judge(SHARE, f"{member}'s share of revenue was 55.0%.").miss == "wrong-value"


def test_a_figure_is_the_first_figure_within_its_rounding():
    gold = Gold(kind="figure", value=1000.0, unit="USD millions", names=NAMES)
    for stated in ("$1,000 million", "$1.0 billion", "$1 billion", "$1,005 million",
                   "$1,000,000,000"):
        _passes(gold, f"Acme's revenue was {stated} in fiscal 2024.")
    assert judge(gold, "Acme's revenue was $1,100 million.").miss == "wrong-value"
    assert judge(gold, "Acme's revenue grew 11.1%, from $900 million to $1,000 million.") \
        .miss == "wrong-value"  # the first figure stated is not the one asked
    brief = "Gross profit: $40,516; $38,082 [1].\n\nExtractive brief (offline engine): ..."
    assert judge(gold, brief).miss == "wrong-question"  # a quoted line, not a figure answer
    assert judge(gold, brief.replace("Gross profit: $40,516", "Revenue: $1,000 million")) \
        .passed
    margin = Gold(kind="figure", value=25.0, unit="percent", names=NAMES)
    assert judge(margin, "Acme's operating margin was 25.0% in fiscal 2024.").passed
    other = judge(margin, "Acme's operating income was $250 million.")  # another measure
    assert other.miss == "wrong-value" and "no percent figure" in other.reason
    two = Gold(kind="figures", values=[25.0, 18.0], unit="percent", names=NAMES)
    assert judge(two, "Acme's operating margin was 25.0% and its net margin 18.0%.").passed
    assert judge(two, "Acme's net margin was 18.0% and its operating margin 25.0%.").miss \
        == "wrong-value"
    assert judge(two, "Acme's operating margin was 25.0%.").miss == "wrong-question"


def test_a_largest_member_and_a_text_answer():
    gold = Gold(kind="largest_member", expect="Services", names={
        n: [n] for n in SEGMENTS})
    for line in ("Services had the largest operating loss: -$30 million in fiscal 2024.",
                 "Acme's largest operating loss was in Services (-$30 million)."):
        assert judge(gold, line).passed, line
    assert judge(gold, "Widgets had the highest operating income: $200 million.").miss == \
        "wrong-value"
    assert judge(gold, "Acme's operating income was $250 million.").miss == "wrong-question"
    text = Gold(kind="text", names=NAMES)
    assert judge(text, "Margins fell on higher costs [1].\n- Pricing helped [2].").passed
    assert judge(text, "Gross margin was 56.9% and 64.9% for fiscal years 2023 and 2022 "
                 "[1].").passed
    assert judge(text, "Yes. Acme's margin rose.").miss == "wrong-question"
    assert judge(text, "Acme had the higher operating margin: 25.0%.").miss == "wrong-question"


LINES = ["Debt (non-current)", "Debt (current)", "Deferred revenue", "Accounts payable",
         "Long-term debt"]


@pytest.mark.parametrize(("expect", "company"), [(n, c) for n in LINES
                                                  for c in ("Acme", "ACME CORP")])
def test_a_balance_line_is_the_line_named_first(expect, company):
    gold = Gold(kind="balance_line", expect=expect, names={n: [n] for n in LINES})
    other = next(n for n in LINES if n != expect and n not in expect and expect not in n)
    right = (f"The largest liability on {company}'s balance sheet at the end of fiscal 2024 "
             f"was {expect}: $500 million [1], 43% of total liabilities of $1,150 million.")
    assert judge(gold, right).passed, right
    assert judge(gold, right.replace(expect, other)).miss == "wrong-value"
    assert not judge(gold, f"{company}'s total liabilities were $1,150 million [1].").passed
    assert judge(gold, f"I cannot name the largest liability of {company}: no balance "
                 "sheet was found.").miss == "said-not-answered"


def test_reading_the_opening_line_and_its_figures():
    assert result_line(f"{READ_AS}\n\n**Acme** had the higher margin [1][2]. {READ_AS}") == \
        "Acme had the higher margin."
    assert first_sentence("ACME CORP. had 25.0% in the U.S. market. Then more.") == \
        "ACME CORP. had 25.0% in the U.S. market."
    assert first_sentence("No. Acme's margin fell.") == "No. Acme's margin fell."
    found = numbers("In fiscal 2024 (ended 2024-12-31) revenue was $1.5 billion [3], up "
                    "11.1%, or 2.5 points; FY2023: -$300 million.")
    assert [(n.kind, n.value) for n in found] == [("money", 1500.0), ("percent", 11.1),
                                                   ("points", 2.5), ("money", -300.0)]


def test_a_repeated_question_is_no_result_and_catch_all_lines_are_no_segments():
    asked = "What drove HD's operating margins in FY24?"
    assert is_echo("Only weak evidence — What drove HD's operating margin in FY24?", asked)
    assert not is_echo("HD's operating margin was 13.5% in FY24.", asked)
    assert not is_echo("Yes. HD's operating margins rose in FY24.",
                       "Did HD's operating margins rise in FY24?")
    assert generic("All other") and generic("Corporate") and generic("Other net sales")
    assert not generic("Other Bets") and not generic("Services")


