"""Reading figure questions: metric, periods, aggregate, unit and rounding, definitions."""

import pytest

from core.figures.asked import decimals_asked, unit_asked
from core.figures.formula import FormulaError, render
from core.figures.phrases import read_expression
from core.figures.question import parse_figure_question
from core.foundation.types import DocumentMeta

DOCS = [
    DocumentMeta(doc_id="acme19", file_name="ACME_2019_10K.pdf", company="ACME WIDGETS INC.",
                 form_type="10-K", period="FY2019", period_end="2019-12-31"),
    DocumentMeta(doc_id="acme20", file_name="ACME_2020_10K.pdf", company="ACME WIDGETS INC.",
                 form_type="10-K", period="FY2020", period_end="2020-12-31"),
    DocumentMeta(doc_id="nvda23", file_name="nvda-10k-fy2023.html", company="NVIDIA CORP",
                 form_type="10-K", period="FY2023", period_end="2023-01-29", ticker="NVDA"),
]


def ask(question: str):
    return parse_figure_question(question, DOCS)


def test_plain_look_up_with_scale_asked():
    r = ask("What was Acme's FY2019 capital expenditure in USD millions, as shown in the "
            "cash flow statement?")
    assert (r.metric, r.formula, r.unit, r.decimals) == ("capex", "capex[FY2019]",
                                                         "USD millions", 0)
    assert r.formula_source == "lookup" and r.doc_ids == ["acme19"]
    assert r.companies == ["ACME WIDGETS INC."]


def test_year_end_balance_in_billions():
    r = ask("What is the year end FY2020 net PP&E of Acme Widgets? Answer in USD billions.")
    assert (r.formula, r.unit, r.decimals) == ("ppe_net[FY2020]", "USD billions", 2)


def test_catalogue_ratio_with_default_rounding():
    r = ask("What was Acme's fixed asset turnover in fiscal 2020?")
    assert r.formula == "revenue[FY2020] / avg(ppe_net[FY2019], ppe_net[FY2020])"
    assert (r.unit, r.decimals, r.formula_source, r.aggregate) == ("ratio", 2, "catalogue",
                                                                   "formula")


def test_question_definition_overrides_the_catalogue():
    r = ask("Compute Acme's FY2020 days payable outstanding. DPO is defined as: 365 * "
            "(average accounts payable between FY2019 and FY2020) / (FY2020 COGS + change in "
            "inventory between FY2019 and FY2020). Round to one decimal place.")
    assert r.formula == ("365 * avg(accounts_payable[FY2019], accounts_payable[FY2020]) / "
                         "(cogs[FY2020] + (inventory[FY2020] - inventory[FY2019]))")
    assert (r.unit, r.decimals, r.formula_source) == ("days", 1, "question")
    assert r.definition.startswith("DPO is defined as")


def test_nested_definitions_reach_the_looked_up_metrics():
    r = ask("What is the FY2020 cash conversion cycle for Acme? CCC is defined as: DIO + DSO - "
            "DPO. DIO is defined as: 365 * (average inventory between FY2019 and FY2020) / "
            "(FY2020 COGS). DSO is defined as: 365 * (average accounts receivable between "
            "FY2019 and FY2020) / (FY2020 Revenue). DPO is defined as: 365 * (average "
            "accounts payable between FY2019 and FY2020) / (FY2020 COGS).")
    assert r.metric == "ccc" and r.unit == "days"
    assert r.formula == (
        "365 * avg(inventory[FY2019], inventory[FY2020]) / cogs[FY2020] + 365 * "
        "avg(accounts_receivable[FY2019], accounts_receivable[FY2020]) / revenue[FY2020] - "
        "365 * avg(accounts_payable[FY2019], accounts_payable[FY2020]) / cogs[FY2020]")


def test_definitions_in_words():
    r = ask("Define quick cover as cash and cash equivalents divided by total current "
            "liabilities. What is Acme's FY2020 quick cover?")
    assert r.formula == "cash[FY2020] / current_liabilities[FY2020]" and r.unit == "ratio"
    r = ask("What is Acme's FY2019 net working capital? Define net working capital as total "
            "current assets less total current liabilities. Answer in USD thousands.")
    assert r.formula == "current_assets[FY2019] - current_liabilities[FY2019]"
    assert r.unit == "USD thousands"


def test_metrics_joined_in_the_question():
    r = ask("What is Acme's FY2020 EBITDA less capex in USD millions? Define EBITDA as "
            "operating income + depreciation and amortization [from cash flow statement].")
    assert r.formula == "operating_income[FY2020] + d_a[FY2020] - capex[FY2020]"
    assert r.metric is None and r.name == "EBITDA less capex"
    r = ask("What was Acme's average of SG&A as a % of revenue from FY2018 to FY2020?")
    assert r.aggregate == "average" and r.unit == "percent" and r.decimals == 1
    assert r.formula == ("avg(sga[FY2018] / revenue[FY2018], sga[FY2019] / revenue[FY2019], "
                         "sga[FY2020] / revenue[FY2020])")


def test_three_year_average_averages_the_ratio_per_year():
    r = ask("What is the FY2018 - FY2020 3 year average net profit margin (as a %) for Acme?")
    assert r.periods == ["FY2018", "FY2019", "FY2020"]
    assert r.formula.startswith("avg(net_income[FY2018] / revenue[FY2018], ")


def test_changes_and_growth():
    r = ask("What is Acme's year-over-year change in revenue from FY2019 to FY2020 (in "
            "units of percents and round to one decimal place)?")
    assert r.aggregate == "pct_change" and r.periods == ["FY2019", "FY2020"]
    assert r.formula == "(revenue[FY2020] - revenue[FY2019]) / revenue[FY2019]"
    r = ask("What was the change in Acme's inventories between FY2019 and FY2020, in USD "
            "millions?")
    assert r.aggregate == "change" and r.formula == "inventory[FY2020] - inventory[FY2019]"
    r = ask("What is Acme's 2 year revenue CAGR from FY2018 to FY2020?")
    assert r.aggregate == "cagr" and r.unit == "percent"
    assert r.formula == "(revenue[FY2020] / revenue[FY2018]) ^ (1 / 2) - 1"


def test_value_with_a_comparison():
    r = ask("What was NVIDIA's total revenue in fiscal 2023 and how did it change from "
            "fiscal 2022?")
    assert r.aggregate == "value" and r.formula == "revenue[FY2023]"
    assert r.periods == ["FY2022", "FY2023"] and r.unit == "USD millions"


@pytest.mark.parametrize("question", [
    "How much did Acme earn per diluted share in 2020?",
    "What were Acme's earnings per diluted share for fiscal 2020?",
    "What was Acme's FY2020 net income per diluted share?",
])
def test_per_diluted_share_is_diluted_eps(question):
    r = ask(question)
    assert (r.metric, r.formula, r.unit) == ("eps_diluted", "eps_diluted[FY2020]",
                                             "per share")


def test_no_period_named_takes_the_latest_filing():
    r = ask("What is Acme's current ratio?")
    assert r.formula == "current_assets[FY2020] / current_liabilities[FY2020]"


def test_questions_asking_for_no_figure():
    assert ask("What drove the decline in Acme's gross margin in FY2020?") is None
    assert ask("Which competitors does Acme name in its FY2020 10-K?") is None
    assert ask("Summarise the risk factors.") is None


@pytest.mark.parametrize("text, unit", [
    ("Answer in USD millions.", "USD millions"), ("(in USD billions)", "USD billions"),
    ("in $ thousands", "USD thousands"), ("in units of percents", "percent"),
    ("(as a %)", "percent"), ("What is X as a % of Y?", None), ("in millions", "USD millions"),
])
def test_units(text, unit):
    assert unit_asked(text) == unit


@pytest.mark.parametrize("text, decimals", [
    ("Round your answer to two decimal places.", 2), ("round to one decimal place", 1),
    ("Round answer to 3 decimal places", 3), ("to the nearest whole number", 0),
    ("nothing asked", None),
])
def test_rounding(text, decimals):
    assert decimals_asked(text) == decimals


def test_expression_errors():
    with pytest.raises(FormulaError, match="No metric named"):
        read_expression("the weather / 2")
    with pytest.raises(FormulaError, match="More than one metric"):
        read_expression("total cash dividends paid and net income")
    assert render(read_expression("prior year inventory")) == "inventory[t-1]"
    assert render(read_expression("times interest earned")) == "interest_coverage[t]"


def test_margins_and_shares_of_revenue():
    r = ask("What is the FY2020 COGS % margin for Acme?")
    assert r.formula == "cogs[FY2020] / revenue[FY2020]" and r.unit == "percent"
    r = ask("What is Acme's FY2020 SG&A % of revenue?")
    assert r.formula == "sga[FY2020] / revenue[FY2020]" and r.unit == "percent"


def test_change_of_a_margin_is_in_points_of_an_amount_relative():
    r = ask("What is the FY2019 - FY2020 change in operating margin for Acme? Answer in "
            "units of percents.")
    assert r.aggregate == "change"
    assert r.formula == ("operating_income[FY2020] / revenue[FY2020] - operating_income"
                         "[FY2019] / revenue[FY2019]")
    r = ask("What is the FY2019 - FY2020 change in revenue for Acme? Answer in units of "
            "percents.")
    assert r.aggregate == "pct_change"


def test_a_defined_plain_division_is_a_ratio():
    r = ask("What is the FY2020 return on assets (ROA) for Acme? ROA is defined as: FY2020 "
            "net income / (average total assets between FY2019 and FY2020). Round your "
            "answer to two decimal places.")
    assert r.formula == "net_income[FY2020] / avg(total_assets[FY2019], total_assets[FY2020])"
    assert (r.unit, r.decimals) == ("ratio", 2)
    assert ask("What was Acme's return on assets in FY2020?").unit == "percent"


def test_ratio_of_one_metric_to_another():
    r = ask("What is the FY2020 ratio of total liabilities to total assets for Acme?")
    assert r.formula == "total_liabilities[FY2020] / total_assets[FY2020]"
    assert r.unit == "ratio" and r.decimals == 2
