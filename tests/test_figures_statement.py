"""Stating figures: the first sentence in the unit asked, cited; missing inputs said."""

from core.figures.compute import answer_figure
from core.figures.question import parse_figure_question
from core.figures.statement import figure_sentence, missing_sentence, work_lines
from core.foundation.types import DocumentMeta
from tests.test_figures_compute import ADBE16, DOCS, STORE, FactStore, fact

MARKS: dict[str, str] = {}


def cite(chunk_id: str) -> str:
    return MARKS.setdefault(chunk_id, f"[{len(MARKS) + 1}]")


def answer(question: str, store=STORE, docs=DOCS):
    MARKS.clear()
    request = parse_figure_question(question, docs)
    assert request is not None
    return answer_figure(request, store)


def test_capex_sentence():
    result = answer("What is the FY2018 capital expenditure amount (in USD millions) for 3M?")
    assert figure_sentence(result, "3M", cite) == \
        "3M's FY2018 capital expenditure was $1,577 million [1]."


def test_balance_sentence_says_year_end():
    result = answer("What is the year end FY2018 net PP&E for 3M? Answer in USD billions.")
    assert figure_sentence(result, "3M", cite) == \
        "3M's net PP&E at the end of FY2018 was $8.74 billion [1]."


def test_change_states_the_change_first():
    result = answer("What is Adobe's year-over-year change in operating income from FY2015 "
                    "to FY2016 (in units of percents and round to one decimal place)?",
                    docs=DOCS + [DocumentMeta(doc_id=ADBE16, file_name="ADOBE_2016_10K.pdf",
                                              company="Adobe", period="FY2016")])
    text = figure_sentence(result, "Adobe", cite)
    assert text == ("The year-over-year change in Adobe's operating income from FY2015 to "
                    "FY2016 was 64.1% ($910 million to $1,494 million) [1].")


def test_value_with_comparison_sentence():
    doc = "nvda23"
    store = FactStore([fact(doc, "Revenue", 26974, 2023, "income", page=52),
                       fact(doc, "Revenue", 26914, 2022, "income", page=52),
                       fact(doc, "Revenue", 16675, 2021, "income", page=52)])
    docs = [DocumentMeta(doc_id=doc, file_name="nvda-10k-fy2023.html", company="NVIDIA",
                         period="FY2023")]
    result = answer("What was NVIDIA's total revenue in fiscal 2023 and how did it change "
                    "from fiscal 2022?", store, docs)
    assert figure_sentence(result, "NVIDIA", cite) == (
        "NVIDIA's revenue was $26,974 million in FY2023, about flat from $26,914 million in "
        "FY2022 (+0.2%) [1].")


def test_ratio_sentence_cites_every_input_once():
    result = answer("What is Amazon's FY2017 days payable outstanding (DPO)? DPO is defined "
                    "as: 365 * (average accounts payable between FY2016 and FY2017) / (FY2017 "
                    "COGS + change in inventory between FY2016 and FY2017). Round your answer "
                    "to two decimal places.")
    assert figure_sentence(result, "Amazon", cite) == \
        "Amazon's FY2017 days payable outstanding was 93.86 days [1][2]."
    lines = work_lines(result, cite)
    assert lines[0].startswith("- Accounts payable, FY2016: $25,309 million (table row")
    assert any(line.startswith("- Computed: 365 * avg(accounts payable FY2016") for line in lines)


def test_missing_sentence_names_the_input_and_states_no_number():
    result = answer("What is 3M's FY2018 fixed asset turnover ratio? Fixed asset turnover "
                    "ratio is defined as: FY2018 revenue / (average PP&E between FY2016 and "
                    "FY2018).")
    text = figure_sentence(result, "3M", cite)
    assert text == missing_sentence(result)
    assert text == ("I could not compute FY2018 fixed asset turnover ratio: no FY2016 net "
                    "PP&E in the filings loaded.")
    assert not any(ch.isdigit() for ch in text.replace("FY2018", "").replace("FY2016", ""))


def test_a_filing_without_statements_is_said():
    docs = [DocumentMeta(doc_id="amzn8k", file_name="AMAZON_8K.pdf", company="AMAZON.COM",
                         form_type="8-K", period="FY2023")]
    result = answer("What was Amazon's revenue in FY2023?", docs=docs)
    assert missing_sentence(result) == ("I could not compute FY2023 revenue: no FY2023 "
                                        "revenue in the filings loaded (AMAZON_8K.pdf holds "
                                        "no financial statements).")



def test_a_series_is_stated_in_the_quarters_read():
    docs = [DocumentMeta(doc_id=d, file_name=f"{name} NVDA.pdf", company="NVIDIA",
                         period=end, period_end=end)
            for d, name, end in (("q3a", "2022 Q3", "2022-10-30"), ("q3b", "2023 Q3",
                                                                    "2023-10-29"))]
    store = FactStore([
        fact("q3a", "Revenue", 5931, 2023, "income", months=3, fiscal_period="Q3",
             end="2022-10-30", page=3),
        fact("q3b", "Revenue", 18120, 2024, "income", months=3, fiscal_period="Q3",
             end="2023-10-29", page=3),
        fact("q3b", "Revenue", 5931, 2023, "income", months=3, fiscal_period="Q3",
             end="2022-10-30", page=3)], docs)
    result = answer("How has NVIDIA's total revenue trended over time?", store, docs)
    assert figure_sentence(result, "NVIDIA", cite) == (
        "NVIDIA's revenue was $18,120 million in FY2024-Q3, up from $5,931 million in "
        "FY2023-Q3 (+205.5%) [1].")
