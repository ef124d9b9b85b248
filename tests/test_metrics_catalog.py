"""The metric catalogue: concepts and printed line items -> metrics, names in questions."""

import pytest

from core.metrics import (
    catalog,
    find_metrics,
    get_metric,
    metric_for_concept,
    metric_for_label,
    metrics_for_label,
    normalise_label,
)
from core.retrieval.query import analyse

STATEMENTS = {"income", "balance", "cash_flow", "equity", "comprehensive_income"}


def test_every_entry_is_well_formed():
    cat = catalog()
    assert len(cat.metrics) >= 50
    for m in cat.metrics.values():
        assert m.names and m.label, m.key
        if m.derived:
            assert not m.concepts and not m.line_items, m.key
        else:
            assert m.statement in STATEMENTS and m.kind in {"flow", "instant"}, m.key
            assert m.line_items, m.key
        assert m.sign in {"as_printed", "positive"}
    for group in cat.search_groups:
        assert set(group.metrics) <= set(cat.metrics), group.metrics
        assert set(group.statements) <= STATEMENTS


@pytest.mark.parametrize("concept, metric", [
    ("us-gaap:Revenues", "revenue"),
    ("us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "revenue"),
    ("us-gaap:PaymentsToAcquirePropertyPlantAndEquipment", "capex"),
    ("us-gaap:PropertyPlantAndEquipmentNet", "ppe_net"),
    ("US-GAAP:NETINCOMELOSS", "net_income"),          # lower-cased by a re-saved filing
    ("us-gaap:AssetsCurrent", "current_assets"),
    ("us-gaap:NetCashProvidedByUsedInOperatingActivities", "operating_cash_flow"),
    ("us-gaap:ShareBasedCompensationArrangementByShareBasedPaymentAwardOptionsGrantsInPeriod",
     None),
    (None, None),
])
def test_concepts(concept, metric):
    assert metric_for_concept(concept) == metric


# Line items as printed in real 10-K statements (3M, Adobe, Amazon, Best Buy, General Mills,
# Lockheed Martin, MGM, Nike, PepsiCo), with the statement they are printed in.
@pytest.mark.parametrize("label, statement, metric", [
    ("Purchases of property, plant and equipment (PP&E)", "cash_flow", "capex"),
    ("Purchases of land, buildings, and equipment", "cash_flow", "capex"),
    ("Capital spending", "cash_flow", "capex"),
    ("Capital expenditures, net of construction payable", "cash_flow", "capex"),
    ("Purchases of property and equipment, including internal-use software and website "
     "development", "cash_flow", "capex"),
    ("Proceeds from sale of PP&E and other assets", "cash_flow", None),
    ("Purchase of property, plant, and equipment accrued, but not paid", None, None),
    ("Net cash provided by (used in) operating activities", "cash_flow", "operating_cash_flow"),
    ("Net cash provided by operating activities", None, "operating_cash_flow"),
    ("Net cash used in financing activities", "cash_flow", None),
    ("Total net sales", "income", "revenue"),
    ("Net Revenue", "income", "revenue"),
    ("Revenues", "income", "revenue"),
    ("Revenue..................................... $", None, "revenue"),
    ("Net product sales", "income", None),
    ("Cost of sales", "income", "cogs"),
    ("Total cost of revenue", "income", "cogs"),
    ("Operating income (loss)", "income", "operating_income"),
    ("Operating Profit", "income", "operating_income"),
    ("Net earnings attributable to General Mills", "income", "net_income"),
    ("Net earnings attributable to Best Buy Co., Inc. shareholders", "income", "net_income"),
    ("Net income attributable to noncontrolling interest", "income", None),
    ("Net income per share", "income", None),
    ("Provision for (benefit from) income taxes", "income", "income_tax"),
    ("Income before income taxes", "income", "pretax_income"),
    ("Depreciation and amortization", "cash_flow", "d_a"),
    ("Dividends paid", "cash_flow", "dividends_paid"),
    ("Property, plant and equipment \u2014 net", "balance", "ppe_net"),
    ("Property, plant and equipment \u00e2\u20ac\u201d net", "balance", "ppe_net"),
    ("Property and equipment, net", "balance", "ppe_net"),
    ("Land, buildings, and equipment", "balance", "ppe_net"),
    ("Merchandise inventories", "balance", "inventory"),
    ("Inventories", "balance", "inventory"),
    ("Inventories", "cash_flow", None),               # a change, not the balance
    ("Accounts payable", "balance", "accounts_payable"),
    ("Accounts payable", "cash_flow", None),
    ("Receivables", "balance", "accounts_receivable"),
    ("Accounts receivable \u2014 net of allowances of $95 and $103", "balance",
     "accounts_receivable"),
    ("Total current assets", "balance", "current_assets"),
    ("Total current liabilities", "balance", "current_liabilities"),
    ("Total assets", "balance", "total_assets"),
    ("Total liabilities and shareholders\u2019 equity", "balance", None),
    ("Total 3M Company shareholders\u2019 equity", "balance", "total_equity"),
    ("Long-term debt, less current portion", "balance", "long_term_debt"),
    ("Cash and cash equivalents", "balance", "cash"),
])
def test_printed_line_items(label, statement, metric):
    assert metric_for_label(label, statement) == metric


def test_net_ppe_is_preferred_to_the_gross_line():
    cat = catalog()
    net = cat.label_rank("ppe_net", "Property, plant and equipment \u2014 net", "balance")
    gross = cat.label_rank("ppe_net", "Property, plant and equipment", "balance")
    assert net is not None and gross is not None and net < gross


def test_unit_separates_per_share_from_share_counts():
    assert metric_for_label("Diluted", "income", unit="USD/share") == "eps_diluted"
    assert metric_for_label("Diluted", "income", unit="shares") == "shares_diluted"
    assert "eps_diluted" in metrics_for_label("Diluted", "income")
    assert metric_for_label("Total net sales", "income", unit="shares") is None


def test_normalised_labels():
    assert normalise_label("Net cash provided by (used in) operating activities (3)") == \
        "net cash provided by operating activities"
    assert normalise_label("Stockholders\u2019 equity:") == "stockholders equity"


def test_names_in_questions_longest_first():
    found = find_metrics("What is the FY2019 fixed asset turnover ratio? Revenue / PP&E.")
    assert [f.key for f in found] == ["fixed_asset_turnover", "revenue", "ppe_net"]
    assert [f.key for f in find_metrics("the days payable outstanding (DPO)")] == ["dpo", "dpo"]
    text = "year-over-year change in unadjusted operating income"
    assert [(f.key, text[f.start:f.end]) for f in find_metrics(text)] == [
        ("operating_income", "unadjusted operating income")]
    assert find_metrics("Which competitors does the company name?") == []


def test_sign_conventions_and_formulas():
    assert get_metric("capex").sign == "positive"
    assert get_metric("revenue").sign == "as_printed"
    assert get_metric("fixed_asset_turnover").formula == \
        "revenue[t] / avg(ppe_net[t-1], ppe_net[t])"
    assert get_metric("retention_ratio").formula == "1 - dividends_paid[t] / net_income[t]"


def test_retrieval_glossary_unchanged():
    """The search groups moved into the catalogue as measured (issue 10)."""
    capex = analyse("FY2018 capital expenditure in the cash flow statement")
    assert capex.line_items == [
        "purchases of property, plant and equipment", "purchases of property and equipment",
        "additions to property, plant and equipment", "capital expenditures",
        "payments for property, plant and equipment"]
    assert capex.statements == ["cash_flow"] and capex.metrics == ["capital expenditure"]
    quick = analyse("quick ratio and turnover")
    assert quick.metrics == ["turnover", "quick ratio"]
    assert quick.statements == ["income", "balance"]
    assert analyse("dividend payout ratio").statements == ["cash_flow", "equity"]
