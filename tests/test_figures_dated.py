"""Periods named by their end date or as a part of a year ("the three months ended December
31, 2022", "the six months ended July 29, 2023", "the first half of fiscal 2024"), resolved as
the filer's own filings print them, and six / nine months to date as periods of their own."""

from __future__ import annotations

import pytest

from core.agent.plan_edit import PERIOD
from core.figures.compute import answer_figure, lookup
from core.figures.dated import dated_periods
from core.figures.formula import FormulaError, parse, shift_period
from core.figures.question import parse_figure_question
from core.foundation.types import DocumentMeta
from tests.test_figures_compute import FactStore, M, fact

# A filer whose fiscal year ends on June 30: its quarter ended December 31 is its Q2.
PKG = "pkg10q"
PKG_DOC = DocumentMeta(doc_id=PKG, file_name="pkg-10q.pdf", company="Packwell plc",
                       form_type="10-Q", period="2022-12-31", period_end="2022-12-31")
PKG_FACTS = [
    fact(PKG, "Net sales", 3_642, 2023, "income", end="2022-12-31", months=3,
         fiscal_period="Q2"),
    fact(PKG, "Net sales", 3_507, 2022, "income", end="2021-12-31", months=3,
         fiscal_period="Q2"),
    fact(PKG, "Net sales", 7_354, 2023, "income", end="2022-12-31", months=6,
         fiscal_period="H1"),
    fact(PKG, "Gross profit", 662, 2023, "income", end="2022-12-31", months=3,
         fiscal_period="Q2"),
    fact(PKG, "Gross profit", 1_330, 2023, "income", end="2022-12-31", months=6,
         fiscal_period="H1"),
]
STORE = FactStore(PKG_FACTS, [PKG_DOC])


def test_a_quarter_named_by_its_end_date_is_the_filers_fiscal_quarter():
    req = parse_figure_question(
        "What were Packwell's net sales in the three months ended December 31, 2022?",
        [PKG_DOC], STORE)
    assert req is not None and req.periods == ["FY2023-Q2"]
    result = answer_figure(req, STORE)
    assert result.value == pytest.approx(3_642)


def test_six_months_ended_is_the_year_to_date_never_the_quarter():
    req = parse_figure_question(
        "What was Packwell's gross margin for the six months ended December 31, 2022?",
        [PKG_DOC], STORE)
    assert req is not None and req.periods == ["FY2023-H1"]
    result = answer_figure(req, STORE)
    assert result.value == pytest.approx(round(1_330 / 7_354 * 100, 1))  # one decimal
    assert lookup(STORE, "revenue", "FY2023-H1", [PKG]).value == 7_354 * M
    assert lookup(STORE, "revenue", "FY2023-Q2", [PKG]).value == 3_642 * M


def test_without_facts_an_annual_reports_calendar_places_the_date():
    annual = DocumentMeta(doc_id="pkg10k", file_name="pkg-10k.pdf", company="Packwell plc",
                          form_type="10-K", period="FY2022", period_end="2022-06-30")
    found = dated_periods("the quarter ended December 31, 2022", [annual])
    assert [label for _, _, label in found] == ["FY2023-Q2"]
    assert dated_periods("the quarter ended December 31, 2022", [PKG_DOC]) == []  # a 10-Q
    # alone does not say its quarter: left to the reading of years and quarters


def test_first_half_and_nine_months_of_a_year():
    found = dated_periods("in the first six months of 2023 and the first nine months of "
                          "fiscal 2022, and the first half of FY2024", [])
    assert [label for _, _, label in found] == ["FY2023-H1", "FY2022-9M", "FY2024-H1"]


def test_year_to_date_periods_in_formulas_and_plan_edits():
    assert str(parse("gross_profit[FY2023-H1] / revenue[FY2023-H1]")) != ""
    assert shift_period("FY2024-H1", -1) == "FY2023-H1"
    assert shift_period("FY2024-9M", -1) == "FY2023-9M"
    with pytest.raises(FormulaError):
        parse("revenue[FY2024-H3]")
    assert PERIOD.fullmatch("FY2024-H1") and PERIOD.fullmatch("FY2024-9M")
    assert not PERIOD.fullmatch("FY2024-H2")


def test_weeks_ended_name_the_quarter_and_the_year_to_date():
    """"12 weeks ended" (a 12-week quarter) and "24 weeks ended" (its half year), as the
    filer's facts place those end dates."""
    doc = DocumentMeta(doc_id="bev", file_name="bev-q1.pdf", company="Fizz Co",
                       form_type="unknown", period="unknown", period_end="")
    store = FactStore([
        fact("bev", "Net Revenue", 17_846, 2023, "income", end="2023-03-25", months=3,
             fiscal_period="Q1"),
        fact("bev", "Net Revenue", 35_000, 2023, "income", end="2023-06-17", months=6,
             fiscal_period="H1")], [doc])
    found = dated_periods("in the 12 weeks ended March 25, 2023 and the twenty-four weeks "
                          "ended June 17, 2023", [doc], store)
    assert [label for _, _, label in found] == ["FY2023-Q1", "FY2023-H1"]
