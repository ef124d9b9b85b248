"""Analysis questions in the words analysts use beyond the first ones read: a change between
two years named, a margin's move in points, "exceed" / "fall short of", a period written
beside the companies ("in FY2024, Acme or Birch"), a plural measure, curly apostrophes, a
name ending in "s", regions by their printed names, and a line a filer does not print
counted as zero inside a ratio. Fictional filers (tests/test_analysis)."""

from __future__ import annotations

from core.analysis.combine import answer_analysis
from core.analysis.question import parse_analysis
from core.figures.compute import answer_figure
from core.figures.model import FigureRequest
from core.figures.segments import members
from core.foundation.types import DocumentMeta
from core.ingest.facts.members import is_place
from tests.test_analysis import ask
from tests.test_figures_compute import FactStore, M, fact


def test_a_change_between_two_years_named_compares_those_years():
    plan, result = ask("Did Acme's operating margin improve from 2022 to 2024?")
    assert [r.periods for r in plan.requests] == [["FY2022"], ["FY2024"]]
    assert result.verdict == "No"  # 30.0% in 2022, 25.0% in 2024 (2023's 22.2% in between)
    assert result.lead == ("No. Acme's operating margin fell from 30.0% in fiscal 2022 to "
                           "25.0% in fiscal 2024 (-5.0 points).")
    plan, result = ask("Did Acme's revenue grow between 2022 and 2024?")
    assert result.verdict == "Yes" and result.lead.endswith("(+25.0%).")


def test_a_margins_growth_is_its_move_in_points_from_the_year_before():
    plan, result = ask("Did Acme's operating margin grow in FY2024?")
    assert [r.periods for r in plan.requests] == [["FY2023"], ["FY2024"]]
    assert result.verdict == "Yes"  # 22.2% -> 25.0%, not the margin's own growth rate
    assert result.lead == ("Yes. Acme's operating margin rose from 22.2% in fiscal 2023 to "
                           "25.0% in fiscal 2024 (+2.8 points).")
    _, either = ask("Did Acme's operating margin improve or decline in FY2023?")
    assert either.lead.startswith("It fell. Acme's operating margin fell from 30.0%")


def test_exceed_and_fall_short_of_relate_two_measures():
    _, result = ask("Did Acme's R&D expense exceed its capex in FY2024?")
    assert (result.spec.test, result.verdict) == ("more", "No")  # 90 against 120
    _, result = ask("Did Acme's capex exceed its R&D expense in FY2024?")
    assert result.verdict == "Yes"
    _, result = ask("Did Acme's R&D expense fall short of its capex in FY2024?")
    assert (result.spec.test, result.verdict) == ("less", "Yes")


def test_a_period_written_beside_the_companies_is_no_company():
    plan, result = ask("Which had the higher operating margin in FY2024, Acme or Birch?")
    assert plan.spec.absent == [] and len(result.rows) == 2
    assert result.verdict == "Acme"  # 25.0% against Birch's FY2024 15.7%
    assert result.lead.startswith("Acme had the higher operating margin: 25.0% in fiscal 2024 "
                                  "against Birch's 15.7% in fiscal 2024")


def test_a_plural_measure_is_named_once_and_curly_apostrophes_read():
    _, result = ask("Compare the operating margins of Acme and Cobalt.")
    assert result.spec.name == "operating margin"
    assert "operating margins" not in result.lead
    assert "Acme's operating margin was 25.0%" in result.lead
    _, curly = ask("Was Acme’s net income positive in 2024?")
    assert curly.verdict == "Yes"


def test_a_name_ending_in_s_takes_an_apostrophe_alone():
    doc = "halfway24"
    store = FactStore([fact(doc, "Net income", 412.5, 2024, "income")],
                      [DocumentMeta(doc_id=doc, file_name="halfway-10k-2024.htm",
                                    company="HALFWAY WIDGETS INC", form_type="10-K",
                                    period="FY2024", period_end="2024-12-31")])
    plan = parse_analysis("Was Halfway Widgets' net income in fiscal 2024 above $400 million?",
                          store.documents(), store)
    assert plan is not None and plan.questions == [
        "What was Halfway Widgets' net income in FY2024?"]
    result = answer_analysis(plan, store)
    assert result.lead.startswith("Yes. Halfway Widgets' net income in fiscal 2024 was")
    assert "''" not in result.lead and "'s'" not in result.lead


def test_regions_are_the_members_named_as_places_whatever_their_table_says():
    assert all(is_place(n) for n in ("North America", "Europe, Middle East & Africa",
                                     "Greater China", "Asia Pacific & Latin America",
                                     "International", "United States"))
    assert not any(is_place(n) for n in ("Global Brand Divisions", "Footwear", "Converse",
                                         "Digital Media", "Data Center"))
    doc = "stride23"
    rows = [fact(doc, "Revenues", v, 2023, None, dims=f"product={name}")
            for name, v in (("North America", 21_608), ("Greater China", 7_248),
                            ("Global Brand Divisions", 58))]
    store = FactStore([*rows, fact(doc, "Total revenues", 28_914, 2023, "income")])
    found = members(store, [doc], "revenue", "FY2023", kind="geography")
    assert [(m.name, i.value / M) for m, i in found] == \
        [("North America", 21_608), ("Greater China", 7_248)]


def test_a_line_not_printed_counts_as_zero_inside_a_ratio_only():
    doc = "ledger23"
    store = FactStore([fact(doc, label, v, 2023, "balance", instant=True)
                       for label, v in (("Cash and cash equivalents", 1874),
                                        ("Receivables, net", 1141),
                                        ("Total current liabilities", 8979))])
    quick = answer_figure(FigureRequest(name="quick ratio", metric="quick_ratio",
                                        formula="quick_ratio[FY2023]", periods=["FY2023"],
                                        unit="ratio", doc_ids=[doc]), store)
    assert quick.value == round((1874 + 1141) / 8979, 2)
    assert any("short-term investments FY2023 is not printed: counted as 0" in n
               for n in quick.notes)
    alone = answer_figure(FigureRequest(name="short-term investments",
                                        metric="short_term_investments",
                                        formula="short_term_investments[FY2023]",
                                        periods=["FY2023"], unit="USD millions",
                                        doc_ids=[doc]), store)
    assert alone.value is None  # never "$0" for the line asked itself


def test_comparative_judgements_compare_by_the_criterions_measure_and_say_so():
    _, result = ask("Is Acme more profitable than Birch?")
    assert (result.spec.name, result.verdict) == ("net margin", "Yes")  # 18.0% against 13.0%
    assert result.notes[0] == ("Compared by net margin (the catalogue's measure for "
                               "profitable): the higher figure is the answer.")
    _, result = ask("Which is less capital-intensive, Acme or Birch?")
    assert (result.spec.kind, result.spec.direction, result.verdict) == \
        ("compare", "lower", "Acme")  # capex / revenue 12.0% against 20.0%


def test_growing_faster_compares_growth_not_size():
    _, result = ask("Did Acme's revenue grow faster than Birch's?")
    assert (result.spec.name, result.verdict) == ("revenue growth", "Yes")  # 11.1% vs -4.8%
    assert "11.1%" in result.lead and "-4.8%" in result.lead
    _, result = ask("Which grew revenue faster, Birch or Acme?")
    assert (result.spec.kind, result.verdict) == ("compare", "Acme")
    _, result = ask("Which company is growing faster, Acme or Birch?")
    assert result.verdict == "Acme" and result.notes[0].startswith("Compared by revenue growth")


def test_which_of_two_measures_is_larger():
    _, result = ask("Which was larger in fiscal 2024, Acme's R&D spend or its capital "
                    "expenditures?")
    assert result.verdict == "capital expenditures"  # 120 against 90
    assert result.lead.startswith("capital expenditures was the larger: ")


def test_a_country_code_member_is_named_only_as_printed():
    from core.figures.segments import Member, match_member

    india = Member(axis="srt:StatementGeographicalAxis", kind="geography", member="country:IN",
                   name="IN")
    assert match_member("Corporate operating income in FY2024", [india]) is None
    assert match_member("revenue from IN in FY2024", [india]) == india


def test_a_ratio_of_two_measures_is_one_measure():
    plan, result = ask("Which company spends more on R&D as a share of revenue, Acme or Birch?")
    assert plan.questions[0] == "What was Acme's R&D as a % of revenue in FY2024?"
    assert result.verdict == "Acme"  # 9.0% against 7.5%
    plan, result = ask("What was the ratio of R&D to revenue at Acme and Birch, and which is "
                       "higher?")
    assert result.spec.name == "ratio of R&D to revenue" and result.verdict == "Acme"


def test_a_yes_no_superlative_says_yes_or_no_before_the_ranking():
    _, result = ask("Among Acme, Birch and Cobalt, was Birch the most profitable?")
    assert result.verdict == "No" and result.lead.startswith("No. Acme had the highest net "
                                                             "margin: 18.0%")
    _, result = ask("Did Acme have the highest operating margin of Acme and Birch?")
    assert result.verdict == "Yes" and result.spec.expect == "Acme"


def test_sga_is_selling_plus_administrative_when_no_line_combines_them():
    doc = "quill24"
    store = FactStore([fact(doc, "Sales and marketing", 5764, 2024, "income"),
                       fact(doc, "General and administrative", 1529, 2024, "income"),
                       fact(doc, "Total revenue", 21505, 2024, "income")])
    sga = answer_figure(FigureRequest(name="SG&A", metric="sga", formula="sga[FY2024]",
                                      periods=["FY2024"], unit="USD millions", doc_ids=[doc]),
                        store)
    assert sga.value == 5764 + 1529
    assert "SG&A FY2024 is not printed: computed as sales and marketing + general and " \
        "administrative." in sga.notes


def test_one_measure_in_two_periods_named_with_than():
    plan, result = ask("Was Acme's revenue in 2024 higher than in 2023?")
    assert [r.periods for r in plan.requests] == [["FY2024"], ["FY2023"]]
    assert result.lead == ("Yes. Acme's revenue in fiscal 2024 ($1,000 million) was higher "
                           "than in fiscal 2023 ($900 million).")
    _, result = ask("Was Acme's operating margin lower in 2023 than in 2022?")
    assert result.verdict == "Yes"  # 22.2% against 30.0%


def test_by_how_much_states_the_gap():
    _, result = ask("By how much did Birch's operating margin exceed Acme's?")
    assert result.lead.startswith("Acme's operating margin was 10.0 points higher than "
                                  "Birch's: 25.0% in fiscal 2024 against 15.0% in fiscal 2025.")
    _, result = ask("What is the difference between Acme's and Birch's net income?")
    assert result.lead.startswith("Birch's net income was $80 million higher than Acme's: "
                                  "$260 million in fiscal 2025")  # 180 against 260
    _, plain = ask("Which had the higher operating margin, Acme or Birch?")
    assert "points" not in plain.lead


def test_debt_with_no_short_term_line_is_the_long_term_debt():
    doc = "skyline22"
    store = FactStore([fact(doc, label, v, 2022, "balance", instant=True)
                       for label, v in (("Long-term debt, net", 15_429),
                                        ("Total stockholders' equity", 9_266))])
    ratio = answer_figure(FigureRequest(name="debt to equity", metric="debt_to_equity",
                                        formula="debt_to_equity[FY2022]", periods=["FY2022"],
                                        unit="ratio", doc_ids=[doc]), store)
    assert ratio.value == round(15_429 / 9_266, 2)
    assert "short-term debt FY2022 is not printed: counted as 0." in ratio.notes


def test_a_company_named_after_than_that_is_not_loaded_is_said():
    _, result = ask("Is Acme more profitable than Zenith?")
    assert result.verdict == "" and "no filing of Zenith is loaded" in result.lead
    _, result = ask("Was Acme's operating margin higher than Zenith's?")
    assert "no filing of Zenith is loaded" in result.lead


def test_two_segments_growth_related():
    doc = "orbit24"
    facts = [fact(doc, "Revenue", v, y, None, dims=f"segment={name}")
             for name, y, v in (("Cloud", 2024, 700), ("Cloud", 2023, 500),
                                ("Devices", 2024, 330), ("Devices", 2023, 300))]
    facts += [fact(doc, "Total revenue", v, y, "income") for y, v in ((2024, 1030), (2023, 800))]
    store = FactStore(facts, [DocumentMeta(doc_id=doc, file_name="orbit-10k-2024.htm",
                                           company="ORBIT SOFTWARE INC", form_type="10-K",
                                           period="FY2024", period_end="2024-12-31")])
    plan = parse_analysis("Did Orbit's Cloud revenue grow faster than its Devices revenue in "
                          "2024?", store.documents(), store)
    assert plan is not None and [r.member for r in plan.requests] == ["Cloud", "Devices"]
    result = answer_analysis(plan, store)
    assert result.verdict == "Yes"  # 40.0% against 10.0%
    assert result.lead == ("Yes. Orbit's Cloud revenue growth in fiscal 2024 (40.0%) was more "
                           "than its Devices revenue growth (10.0%).")
    plan = parse_analysis("Did Orbit's Devices revenue exceed its Cloud revenue in 2024?",
                          store.documents(), store)
    assert plan is not None and plan.spec.name == "revenue"
    assert answer_analysis(plan, store).verdict == "No"  # 330 against 700
    plan = parse_analysis("Rank Orbit's segments by revenue in 2024.", store.documents(), store)
    assert plan is not None and plan.spec.kind == "rank"
    assert answer_analysis(plan, store).verdict == "Cloud, Devices"
    plan = parse_analysis("Which of Orbit's segments grew fastest in 2024?", store.documents(),
                          store)
    assert plan is not None and plan.spec.name == "revenue growth"


def test_more_than_a_multiple_is_tested_and_the_ratio_said():
    _, result = ask("Was Birch's revenue more than twice Acme's?")
    assert (result.spec.factor, result.verdict) == (2.0, "No")  # 2,000 against 1,000: 2.0x
    assert "2.0 times Acme's" in result.lead
    _, result = ask("Was Acme's capex more than three times its R&D expense in 2024?")
    assert result.verdict == "No"  # 120 against 90
