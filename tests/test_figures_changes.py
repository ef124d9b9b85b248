"""Changes between two periods, quarters year over year, bare years, and units that do
not fit a figure's kind."""

import pytest

from core.figures.compute import answer_figure, compute
from core.figures.model import FigureInput, FigureRequest
from core.figures.question import parse_figure_question
from core.foundation.types import DocumentMeta
from tests.test_figures_compute import FactStore, M, fact

DOCS = [
    DocumentMeta(doc_id="acme14", file_name="ACME_2014_10K.pdf", company="ACME WIDGETS INC.",
                 form_type="10-K", period="FY2014", period_end="2014-12-31"),
    DocumentMeta(doc_id="acme24", file_name="ACME_2024_10K.pdf", company="ACME WIDGETS INC.",
                 form_type="10-K", period="FY2024", period_end="2024-12-31"),
    DocumentMeta(doc_id="acmeq", file_name="acme-10q-q2.htm", company="ACME WIDGETS INC.",
                 form_type="10-Q", period="2025-Q2", period_end="2025-06-30"),
]


def ask(question: str):
    return parse_figure_question(question, DOCS)


@pytest.mark.parametrize("question", [
    "How much did Acme's net income rise from FY2023 to FY2024, in percent?",
    "By what percentage did Acme's revenues decline from 2013 to 2014?",
    "By what percent did Acme's gross profit increase between fiscal 2023 and fiscal 2024?",
    "How much did Acme's operating income grow from FY2023 to FY2024?",
    "How much did Acme's total assets increase from FY2023 to FY2024?",
])
def test_a_change_verb_between_two_periods_is_a_percent_change(question):
    r = ask(question)
    assert r.aggregate == "pct_change" and r.unit == "percent"
    metric, (a, b) = r.metric, r.periods
    assert r.formula == f"({metric}[{b}] - {metric}[{a}]) / {metric}[{a}]"


def test_a_change_between_two_periods_asked_in_usd_is_the_difference():
    r = ask("How much did Acme's revenue grow from FY2023 to FY2024, in USD millions?")
    assert r.aggregate == "change" and r.unit == "USD millions"
    assert r.formula == "revenue[FY2024] - revenue[FY2023]"


def test_a_change_after_a_value_asked_is_still_a_comparison():
    r = ask("What was Acme's revenue in FY2024 and how did it change from FY2023?")
    assert r.aggregate == "value" and r.formula == "revenue[FY2024]"


def test_a_quarter_year_over_year_is_the_same_quarter_a_year_before():
    r = ask("How did Acme's quarterly revenue change year over year in the second quarter "
            "of fiscal 2025 (percent)?")
    assert r.formula == "(revenue[FY2025-Q2] - revenue[FY2024-Q2]) / revenue[FY2024-Q2]"
    r = ask("What was Acme's sequential change in revenue in Q2 of FY2025, in percent?")
    assert r.periods == ["FY2025-Q1", "FY2025-Q2"]
    r = ask("How much did Acme's gross profit grow sequentially in Q2 of fiscal 2025?")
    assert r.aggregate == "pct_change" and r.periods == ["FY2025-Q1", "FY2025-Q2"]
    r = ask("By what percent did Acme's revenue fall year over year in Q2 of fiscal 2025?")
    assert r.periods == ["FY2024-Q2", "FY2025-Q2"] and r.unit == "percent"


def test_a_bare_year_followed_by_a_comma_is_that_fiscal_year():
    r = ask("What was Acme's net loss in 2014, in USD millions?")
    assert r.formula == "net_income[FY2014]" and r.doc_ids == ["acme14"]
    assert ask("What were Acme's 2014, 2013 revenues?").periods == ["FY2013", "FY2014"]


def test_an_amount_asked_in_percent_is_stated_as_an_amount():
    r = ask("What was Acme's revenue in FY2024, in percent?")
    assert r.formula == "revenue[FY2024]" and r.unit == "USD millions"
    asked = FigureRequest(name="revenue", metric="revenue", formula="revenue[FY2024]",
                          periods=["FY2024"], unit="percent", decimals=1)
    found = FigureInput(ref="revenue[FY2024]", label="Revenue, FY2024", metric="revenue",
                        period="FY2024", value=3694 * M, unit="USD")
    result = compute(asked, [found])
    assert result.display == "$3,694 million" and result.unit == "USD millions"
    assert "cannot be stated in percent" in result.notes[0]


def test_a_year_over_year_quarter_pair_never_collapses_into_one_quarter():
    doc = "nv24q1"
    store = FactStore([
        fact(doc, "Revenue", 7192, 2024, "income", months=3, fiscal_period="Q1",
             end="2023-04-30"),
        fact(doc, "Revenue", 8288, 2023, "income", months=3, fiscal_period="Q1",
             end="2022-05-01")],
        [DocumentMeta(doc_id=doc, file_name="2023 Q1 NVDA.pdf", period="2023-04-30",
                      period_end="2023-04-30")])
    asked = FigureRequest(
        name="revenue", metric="revenue", aggregate="pct_change", unit="percent",
        formula="(revenue[FY2024-Q1] - revenue[FY2023-Q1]) / revenue[FY2023-Q1]",
        periods=["FY2023-Q1", "FY2024-Q1"], doc_ids=[doc], decimals=1)
    assert answer_figure(asked, store).value == round((7192 - 8288) / 8288 * 100, 1)


def test_the_metrics_own_change_verb_with_one_period_is_a_change_from_the_year_before():
    r = ask("How much did Acme's inventories rise in fiscal 2024?")
    assert r.aggregate == "change" and r.formula == "inventory[FY2024] - inventory[FY2023]"
    r = ask("What percentage did Acme's revenue grow in fiscal 2024?")
    assert r.formula == "(revenue[FY2024] - revenue[FY2023]) / revenue[FY2023]"


def test_a_comparison_asked_in_percent_is_the_percent_change():
    r = ask("What was Acme's revenue in the second quarter of fiscal 2025 compared to the "
            "prior-year quarter, in percent?")
    assert r.formula == "(revenue[FY2025-Q2] - revenue[FY2024-Q2]) / revenue[FY2024-Q2]"


def test_a_change_over_a_series_stays_a_series():
    r = ask("How has Acme's revenue changed over time?")
    assert r.aggregate == "value" and " - " not in r.formula and len(r.periods) >= 2
