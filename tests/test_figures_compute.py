"""Looking up and computing figures over facts copied from real 10-K statements.

The store is a small in-memory stand-in with the corpus store's ``facts(...)`` read; the
facts are rows as printed in the filings (3M FY2018, Amazon FY2017, Adobe FY2015/FY2016),
in base units with the sign printed.
"""

from __future__ import annotations

import pytest

from core.figures.compute import answer_figure, compute, lookup
from core.figures.model import FigureRequest
from core.foundation.types import DocumentMeta, Fact

M = 1e6


class FactStore:
    """The read side of the corpus store's facts, over a list."""

    def __init__(self, facts: list[Fact], documents: list[DocumentMeta] = ()):
        self._facts, self._docs = facts, list(documents)

    def facts(self, doc_ids=None, *, metric=None, fiscal_years=None, concept=None,
              statement=None) -> list[Fact]:
        return [f for f in self._facts
                if (doc_ids is None or f.doc_id in doc_ids)
                and (metric is None or f.metric == metric)
                and (fiscal_years is None or f.fiscal_year in fiscal_years)
                and (concept is None or f.concept == concept)
                and (statement is None or f.statement == statement)]

    def documents(self) -> list[DocumentMeta]:
        return self._docs


_N = iter(range(100000))


def fact(doc: str, label: str, millions: float, year: int, statement: str | None, *,
         instant: bool = False, end: str | None = None, source: str = "table",
         concept: str | None = None, chunk: str | None = "auto", page: int | None = 50,
         dims: str = "", unit: str = "USD", metric: str | None = None, months: int = 12,
         fiscal_period: str | None = None) -> Fact:
    n = next(_N)
    return Fact(
        fact_id=f"{doc}-f{n:05d}", doc_id=doc, source=source, label=label, metric=metric,
        concept=concept, statement=statement,
        period_type="instant" if instant else "duration", fiscal_year=year,
        fiscal_period=("" if instant else "FY") if fiscal_period is None else fiscal_period,
        months=None if instant else months, end=end or f"{year}-12-31",
        value=millions * M if unit == "USD" else millions, unit=unit, scale=6,
        dims=dims, chunk_id=f"{doc}-{page:04d}" if chunk == "auto" else chunk, page=page,
        row=f"{label} | {millions:,.0f}", printed=f"({abs(millions):,.0f})"
        if millions < 0 else f"{millions:,.0f}")


MMM = "mmm18"
MMM_FACTS = [
    # Cash flows from investing activities (Millions) | 2018 | 2017 | 2016
    *(fact(MMM, "Purchases of property, plant and equipment (PP&E)", v, y, "cash_flow",
           page=60) for v, y in ((-1577, 2018), (-1373, 2017), (-1420, 2016))),
    *(fact(MMM, "Proceeds from sale of PP&E and other assets", v, y, "cash_flow", page=60)
      for v, y in ((262, 2018), (49, 2017))),
    # Consolidated balance sheet, December 31, 2018 | 2017
    *(fact(MMM, label, v, y, "balance", instant=True, page=58)
      for label, pairs in (
          ("Property, plant and equipment", ((24873, 2018), (24914, 2017))),
          ("Less: Accumulated depreciation", ((-16135, 2018), (-16048, 2017))),
          ("Property, plant and equipment \u2014 net", ((8738, 2018), (8866, 2017))),
          ("Total inventories", ((4366, 2018), (4034, 2017))),
          ("Total current assets", ((13709, 2018), (14277, 2017))))
      for v, y in pairs),
    # Inventories as a change in the cash-flow statement: never the balance.
    fact(MMM, "Inventories", -509, 2018, "cash_flow", page=60),
    # Selected financial data (Item 6), net sales by year; and a segment table.
    *(fact(MMM, "Net sales", v, y, None, page=20)
      for v, y in ((32765, 2018), (31657, 2017), (30109, 2016))),
    fact(MMM, "Net sales", 32765, 2018, "income", page=56),
    fact(MMM, "Net sales", 12267, 2018, None, page=90, dims="segment=Industrial"),
]

AMZN = "amzn17"
AMZN_FACTS = [
    *(fact(AMZN, "Total net sales", v, y, "income", page=38)
      for v, y in ((107006, 2015), (135987, 2016), (177866, 2017))),
    *(fact(AMZN, "Cost of sales", v, y, "income", page=38)
      for v, y in ((71651, 2015), (88265, 2016), (111934, 2017))),
    *(fact(AMZN, "Accounts payable", v, y, "balance", instant=True, page=40)
      for v, y in ((25309, 2016), (34616, 2017))),
    *(fact(AMZN, "Inventories", v, y, "balance", instant=True, page=40)
      for v, y in ((11461, 2016), (16047, 2017))),
    fact(AMZN, "Inventories", -3583, 2017, "cash_flow", page=37),
    fact(AMZN, "Accounts payable", 7175, 2017, "cash_flow", page=37),
    # A percent-of-sales table in MD&A: the same label, not an amount.
    fact(AMZN, "Cost of sales", 62.9, 2017, None, page=27, unit="percent"),
]

ADBE15, ADBE16 = "adbe15", "adbe16"
ADBE_FACTS = [
    fact(ADBE15, "Operating income", 903.1, 2015, "income", page=60),
    fact(ADBE15, "Operating income", 412.7, 2014, "income", page=60),
    # The FY2016 10-K prints FY2015 restated (a made-up restatement, to test the choice).
    fact(ADBE16, "Operating income", 1493.6, 2016, "income", page=58),
    fact(ADBE16, "Operating income", 910.0, 2015, "income", page=58),
]

DOCS = [DocumentMeta(doc_id=MMM, file_name="3M_2018_10K.pdf", company="3M COMPANY",
                     period="FY2018"),
        DocumentMeta(doc_id=AMZN, file_name="AMAZON_2017_10K.pdf", company="AMAZON.COM",
                     period="FY2017"),
        DocumentMeta(doc_id=ADBE15, file_name="ADOBE_2015_10K.pdf", period="FY2015"),
        DocumentMeta(doc_id=ADBE16, file_name="ADOBE_2016_10K.pdf", period="FY2016"),
        DocumentMeta(doc_id="amzn8k", file_name="AMAZON_8K.pdf", form_type="8-K")]
STORE = FactStore(MMM_FACTS + AMZN_FACTS + ADBE_FACTS, DOCS)


def req(formula: str, **kw) -> FigureRequest:
    base = {"name": kw.pop("name", "figure"), "formula": formula}
    return FigureRequest(**base, **kw)


def test_capex_is_stated_positive_though_printed_negative():
    found = lookup(STORE, "capex", "FY2018", [MMM])
    assert found.value == 1577 * M and found.fact.value == -1577 * M
    assert "printed negative ((1,577))" in found.sign_note
    result = answer_figure(req("capex[FY2018]", metric="capex", periods=["FY2018"],
                               unit="USD millions", decimals=0, doc_ids=[MMM]), STORE)
    assert result.ok and result.value == 1577 and result.display == "$1,577 million"
    assert result.rows[0].chunk_id == "mmm18-0060" and result.rows[0].page == 60
    # looked up, not computed: no arithmetic to show, the input row is the figure
    assert result.work == "" and len(result.rows) == 1


def test_net_ppe_at_year_end_not_the_gross_line():
    result = answer_figure(req("ppe_net[FY2018]", metric="ppe_net", unit="USD billions",
                               decimals=2, doc_ids=[MMM], periods=["FY2018"]), STORE)
    assert result.value == 8.74 and result.display == "$8.74 billion"
    assert "net" in result.inputs[0].fact.label


def test_a_balance_is_never_read_from_the_cash_flow_statement():
    found = lookup(STORE, "inventory", "FY2018", [MMM])
    assert found.value == 4366 * M and found.fact.statement == "balance"


def test_entity_total_and_statement_before_segment_and_notes():
    found = lookup(STORE, "revenue", "FY2018", [MMM])
    assert found.value == 32765 * M and found.fact.dims == ""
    assert found.fact.statement == "income"


def test_days_payable_outstanding_from_two_statements():
    formula = ("365 * avg(accounts_payable[FY2016], accounts_payable[FY2017]) / "
               "(cogs[FY2017] + (inventory[FY2017] - inventory[FY2016]))")
    result = answer_figure(req(formula, name="days payable outstanding", unit="days",
                               decimals=2, doc_ids=[AMZN], periods=["FY2017"]), STORE)
    assert result.value == 93.86, result.work
    assert result.display == "93.86 days"
    assert [i.value / M for i in result.inputs] == [25309, 34616, 111934, 16047, 11461]
    assert "365 * avg(25,309, 34,616)" in result.work
    assert "Every period read from one filing, AMAZON_2017_10K.pdf" in " ".join(result.notes)


def test_missing_input_is_said_never_guessed():
    result = answer_figure(req("revenue[FY2018] / avg(ppe_net[FY2016], ppe_net[FY2018])",
                               name="fixed asset turnover ratio", unit="ratio", decimals=2,
                               doc_ids=[MMM], periods=["FY2018"]), STORE)
    assert result.value is None and not result.ok and result.display == ""
    assert result.missing == ["no FY2016 net PP&E in the filings loaded"]


def test_single_period_prefers_its_own_filing_and_shows_the_restated_one():
    found = lookup(STORE, "operating_income", "FY2015", [ADBE15, ADBE16])
    assert found.fact.doc_id == ADBE15 and found.value == 903.1 * M
    assert [a.value for a in found.alternatives] == [910.0 * M]
    assert "its own filing" in found.note and "910" in found.note


def test_change_across_periods_reads_one_filing_covering_both():
    result = answer_figure(req(
        "(operating_income[FY2016] - operating_income[FY2015]) / operating_income[FY2015]",
        name="operating income", aggregate="pct_change", unit="percent", decimals=1,
        doc_ids=[ADBE15, ADBE16], periods=["FY2015", "FY2016"]), STORE)
    assert {i.fact.doc_id for i in result.inputs} == {ADBE16}
    assert result.value == pytest.approx(64.1)


def test_percent_tables_are_not_amounts():
    found = lookup(STORE, "cogs", "FY2017", [AMZN])
    assert found.value == 111934 * M and found.unit == "USD"


def test_average_of_a_ratio_per_year_and_cagr():
    result = answer_figure(req(
        "avg(cogs[FY2015] / revenue[FY2015], cogs[FY2016] / revenue[FY2016], "
        "cogs[FY2017] / revenue[FY2017])", name="COGS as a % of revenue",
        aggregate="average", unit="percent", decimals=1, doc_ids=[AMZN],
        periods=["FY2015", "FY2016", "FY2017"]), STORE)
    expected = (71651 / 107006 + 88265 / 135987 + 111934 / 177866) / 3 * 100
    assert result.value == round(expected, 1)
    cagr = answer_figure(req("(revenue[FY2017] / revenue[FY2015]) ^ (1 / 2) - 1",
                             aggregate="cagr", unit="percent", decimals=1, doc_ids=[AMZN],
                             periods=["FY2015", "FY2017"]), STORE)
    assert cagr.value == round(((177866 / 107006) ** 0.5 - 1) * 100, 1)


def test_fallback_formula_when_a_line_is_not_printed():
    result = answer_figure(req("gross_profit[FY2017]", metric="gross_profit",
                               unit="USD millions", decimals=0, doc_ids=[AMZN]), STORE)
    assert result.value == 177866 - 111934
    assert any("computed as revenue - cost of goods sold" in n for n in result.notes)


def test_xbrl_fact_preferred_and_linked_to_the_printed_chunk():
    doc = "nvda23"
    store = FactStore([
        fact(doc, "Revenues", 26974, 2023, None, source="xbrl", concept="us-gaap:Revenues",
             chunk=None, page=None),
        fact(doc, "Revenue", 26974, 2023, "income", page=52),
        fact(doc, "Revenue", 26914, 2022, "income", page=52),
        fact(doc, "Revenues", 26914, 2022, None, source="xbrl", concept="us-gaap:Revenues",
             chunk=None, page=None),
    ])
    found = lookup(store, "revenue", "FY2023", [doc])
    assert found.fact.source == "xbrl" and found.fact.chunk_id == "nvda23-0052"


def test_quarter_is_not_the_year_to_date():
    doc = "q10"
    store = FactStore([
        fact(doc, "Net cash provided by operating activities", 400, 2024, "cash_flow",
             months=3, fiscal_period="Q1"),
        fact(doc, "Net cash provided by operating activities", 1200, 2024, "cash_flow",
             months=9, fiscal_period="9M"),
    ])
    assert lookup(store, "operating_cash_flow", "FY2024-Q1", [doc]).value == 400 * M
    assert lookup(store, "operating_cash_flow", "FY2024", [doc]).value is None


def test_a_filing_without_statements_is_named():
    result = answer_figure(req("revenue[FY2023]", metric="revenue", doc_ids=["amzn8k"]),
                           STORE)
    assert not result.ok and result.no_statements == ["AMAZON_8K.pdf"]


def test_compute_without_store():
    found = lookup(STORE, "capex", "FY2017", [MMM])
    result = compute(req("capex[FY2017]", unit="USD billions", decimals=1), [found])
    assert result.value == 1.4 and result.display == "$1.4 billion"


def test_a_10q_cash_flow_is_read_year_to_date():
    doc = "q3"
    store = FactStore([
        fact(doc, "Net cash provided by operating activities", 7700, 2022, "cash_flow",
             months=9, fiscal_period="9M"),
        fact(doc, "Net revenue", 15338, 2022, "income", months=3, fiscal_period="Q3"),
    ])
    found = lookup(store, "operating_cash_flow", "FY2022-Q3", [doc])
    assert found.value == 7700 * M and "year to date (9 months)" in found.note


def test_a_quarter_asked_of_one_10q_is_its_own_fiscal_quarter():
    doc = "nvq1"
    store = FactStore([fact(doc, "Revenue", 7192, 2024, "income", months=3,
                            fiscal_period="Q1", end="2023-04-30")])
    result = answer_figure(req("revenue[FY2023-Q1]", metric="revenue", doc_ids=[doc],
                               unit="USD millions", decimals=0), store)
    assert result.value == 7192
    assert "FY2023-Q1 read as the filing's own fiscal quarter, FY2024-Q1." in result.notes


def test_no_company_in_scope_among_several_is_not_guessed():
    result = answer_figure(req("revenue[FY2017]", metric="revenue", unit="USD millions"),
                           STORE)
    assert result.value is None and "names no company" in result.missing[0]


def test_a_quarter_end_balance_is_that_quarters():
    doc = "q2"
    store = FactStore([
        fact(doc, "Total current assets", 900, 2024, "balance", instant=True,
             end="2023-07-30"),
        fact(doc, "Total current assets", 800, 2024, "balance", instant=True,
             end="2023-04-30"),
        fact(doc, "Revenue", 7192, 2024, "income", months=3, fiscal_period="Q1",
             end="2023-04-30"),
        fact(doc, "Revenue", 13507, 2024, "income", months=3, fiscal_period="Q2",
             end="2023-07-30"),
    ])
    assert lookup(store, "current_assets", "FY2024-Q1", [doc]).value == 800 * M
    assert lookup(store, "current_assets", "FY2024-Q2", [doc]).value == 900 * M


def test_untagged_statements_the_recurring_total_beats_segment_totals():
    doc = "nke18"
    store = FactStore([
        *(fact(doc, "TOTAL REVENUES", v, 2018, None, page=p)
          for v, p in ((14855, 29), (9242, 30), (5134, 31), (5166, 32))),
        fact(doc, "Revenues", 36397, 2018, None, page=20),
        fact(doc, "Revenues", 36397, 2018, None, page=23),
        fact(doc, "TOTAL NIKE, INC. REVENUES", 36397, 2018, None, page=73),
    ])
    found = lookup(store, "revenue", "FY2018", [doc])
    assert found.value == 36397 * M
    assert sorted(a.value / M for a in found.alternatives)[-1] == 14855


def test_an_edited_formula_may_name_derived_metrics():
    result = answer_figure(req("dpo[FY2017]", name="DPO", unit="days", decimals=1,
                               doc_ids=[AMZN]), STORE)
    assert result.value == round(365 * (25309 + 34616) / 2 / 111934, 1)
    assert len(result.inputs) == 3


def test_a_quarter_named_by_the_calendar_is_the_filings_own():
    doc = "nv24q1"
    facts = [fact(doc, "Revenue", 7192, 2024, "income", months=3, fiscal_period="Q1",
                  end="2023-04-30"),
             fact(doc, "Revenue", 8288, 2023, "income", months=3, fiscal_period="Q1",
                  end="2022-05-01")]
    named = FactStore(facts, [DocumentMeta(doc_id=doc, file_name="2023 Q1 NVDA.pdf",
                                           period="2023-04-30", period_end="2023-04-30")])
    asked = req("revenue[FY2023-Q1]", metric="revenue", doc_ids=[doc], unit="USD millions",
                decimals=0)
    assert answer_figure(asked, named).value == 7192       # the file's own quarter
    fiscal = FactStore(facts, [DocumentMeta(doc_id=doc, file_name="nvda-10q-2024q1.htm",
                                            period="2024-Q1", period_end="2023-04-30")])
    assert answer_figure(asked, fiscal).value == 8288      # the comparative it prints
    # "Q1 FY2023" names the fiscal quarter: the comparative, whatever the file is called
    told = asked.model_copy(update={"fiscal_quarters": True})
    assert answer_figure(told, named).value == 8288


def test_a_question_says_whether_its_quarters_are_fiscal():
    from core.figures.question import fiscal_quarters

    assert fiscal_quarters("What was NVIDIA's revenue in Q1 FY2023?")
    assert fiscal_quarters("the first quarter of fiscal 2024")
    assert not fiscal_quarters("What was NVIDIA's revenue in Q1 2023?")
    assert not fiscal_quarters("What was NVIDIA's revenue in fiscal 2023?")  # no quarter
    # a plan step's formula label says nothing of how the question named the quarter
    assert not fiscal_quarters("Look up revenue for FY2023-Q1.")
    assert fiscal_quarters("Look up revenue for Q1 FY2023.")


def test_income_tax_printed_negative_like_every_expense_is_an_expense():
    """A filer that prints every expense in parentheses ("Cost of sales (11,969)", "Income
    tax expense (193)"): the tax rate is positive. Where expenses print positive, a negative
    tax line is a benefit and stays negative."""
    neg, pos = "pkg23", "pharma23"
    store = FactStore([
        fact(neg, "Cost of sales", -11_969, 2023, "income", metric="cogs"),
        fact(neg, "Income before income taxes", 1_251, 2023, "income", metric="pretax_income"),
        fact(neg, "Income tax expense", -193, 2023, "income", metric="income_tax"),
        fact(pos, "Cost of sales", 8_122, 2023, "income", metric="cogs"),
        fact(pos, "Income before income taxes", 2_269, 2023, "income", metric="pretax_income"),
        fact(pos, "Provision/(benefit) for taxes on income", -71, 2023, "income",
             metric="income_tax"),
    ])
    rate = req("income_tax[FY2023] / pretax_income[FY2023]", periods=["FY2023"],
               unit="percent", decimals=1)
    assert answer_figure(rate.model_copy(update={"doc_ids": [neg]}), store).value == 15.4
    assert "like every expense" in lookup(store, "income_tax", "FY2023", [neg]).sign_note
    assert answer_figure(rate.model_copy(update={"doc_ids": [pos]}), store).value == -3.1


def test_a_quarter_and_a_year_to_date_are_never_combined():
    """The quarter's pretax income beside a tax line printed only year to date (cash-flow
    statement, nine months): the tax rate is not computed from them, and says why."""
    doc = "chip23q3"
    store = FactStore([
        fact(doc, "Income (loss) before taxes", -52, 2023, "income", months=3,
             fiscal_period="Q3", end="2023-09-30"),
        fact(doc, "Income taxes", -2_676, 2023, "cash_flow", months=9, fiscal_period="9M",
             end="2023-09-30", metric="income_tax"),
    ])
    rate = req("income_tax[FY2023-Q3] / pretax_income[FY2023-Q3]", periods=["FY2023-Q3"],
               unit="percent", decimals=1, doc_ids=[doc])
    result = answer_figure(rate, store)
    assert result.value is None and result.display in ("", None)
    assert any("cannot combine" in m and "9 months" in m and "3 months" in m
               for m in result.missing), result.missing


def test_a_table_cell_no_tag_prints_gives_way_to_the_tagged_fact():
    """A balance sheet column misread (the prior year's figure read as this year's): the
    iXBRL filing tags every statement figure, so a cell no tag prints is not the figure;
    the filing's tagged fact of the metric for that period is used, the cell shown beside."""
    doc = "ko24"
    misread = fact(doc, "Total Assets", 97_703, 2024, "balance", instant=True, page=66)
    tagged = [fact(doc, "Assets", v, y, None, instant=True, source="xbrl",
                   concept="us-gaap:Assets", chunk=None) for v, y in
              ((100_549, 2024), (97_703, 2023))]
    found = lookup(FactStore([misread, *tagged]), "total_assets", "FY2024", [doc])
    assert found.value == 100_549 * M and found.fact.source == "xbrl"
    assert [a.value for a in found.alternatives] == [97_703 * M]
    # a cell the tags print (linked: it carries the concept) stays the figure
    linked = misread.model_copy(update={"value": 100_549 * M, "concept": "us-gaap:Assets"})
    again = lookup(FactStore([linked, *tagged]), "total_assets", "FY2024", [doc])
    assert again.value == 100_549 * M and again.fact.chunk_id == linked.chunk_id


def test_one_filing_for_every_period_is_chosen_the_same_way_whatever_the_set_order():
    """Two filings of one fiscal year both print the pair of quarters (one of them under a
    wrong quarter label, as a PDF read can): the filing whose latest figure ends last is
    read, in every order the filings come in."""
    import itertools

    def docs_facts(doc, end_now, end_before, now, before):
        return [fact(doc, "Total net sales", now, 2023, "income", end=end_now, months=3,
                     fiscal_period="Q3"),
                fact(doc, "Total net sales", before, 2022, "income", end=end_before,
                     months=3, fiscal_period="Q3")]

    # five earlier filings labelled Q3 by mistake (a set's order once picked one of them);
    # ids of several spellings, so that no one hash order can pass by chance
    for tag in "abcdefgh":
        ids = [f"{tag}-q1-{k}" for k in range(5)] + [f"{tag}-q3"]
        decoys = [docs_facts(d, f"2023-0{k + 1}-28", f"2022-0{k + 1}-28", 127, 116)
                  for k, d in enumerate(ids[:5])]
        right = docs_facts(ids[5], "2023-09-30", "2022-09-30", 143, 127)
        metas = [DocumentMeta(doc_id=d, file_name=f"{d}.pdf", company="X", form_type="10-Q",
                              period=e, period_end=e) for d, e in zip(ids, [
                                  "2023-03-31"] * 5 + ["2023-09-30"], strict=True)]
        order = itertools.permutations([*decoys, right])
        store = FactStore([f for part in next(itertools.islice(order, 7, None)) for f in part],
                          metas)
        got = answer_figure(req("revenue[FY2023-Q3] - revenue[FY2022-Q3]",
                                periods=["FY2022-Q3", "FY2023-Q3"], aggregate="change",
                                doc_ids=ids), store)
        assert got.value == 16.0, (got.display, got.notes)  # 143 - 127, the Q3 filing's
