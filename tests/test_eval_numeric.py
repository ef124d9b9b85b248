"""Numeric correctness: the answer's first stated figure (and any figure) against the reference.

Answers are shaped like the ones the systems write (the offline engine's extractive brief
with quoted table rows and [n] markers, the figure sentence of the figures layer, LLM prose)
and references like FinanceBench's ("$1577.00", "0.66", "65.4%", "-3.7", "$8.70" asked in
billions) or sentences ("The FY2018 capex was $1,577 million").
"""

from __future__ import annotations

import pytest

from core.evaluation.judge import EvalSample
from core.evaluation.numeric_correctness import (
    ANYWHERE_KEY,
    KEY,
    judge_figures,
    numeric_scores,
    same_figure,
)
from core.evaluation.stated_figures import asked_scale, stated_figures

BANNER = ("Extractive brief (offline engine): for each part of the question, the best line of "
          "each source found, quoted with its citation; no analysis across sources. Configure "
          "an LLM for an analytical synthesis.")


def texts(text: str) -> list[str]:
    return [f.text for f in stated_figures(text)]


# --- what counts as a stated figure -----------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("3M's FY2018 capital expenditure was $1,577 million [1].", ["$1,577 million"]),
    ("NVIDIA's revenue was $26,974 million in fiscal 2023, about flat from $26,914 million in "
     "fiscal 2022 (+0.2%) [1].", ["$26,974 million", "$26,914 million", "+0.2%"]),
    ("[2] In FY2019 (page 52, Note 5, Item 7) the ratio was 0.66 [3].", ["0.66"]),
    ("1. Revenue rose 43% in 2024 [2]\n2. Net income was $457.3 million [4]",
     ["43%", "$457.3 million"]),
    ("Q2 2023 and 2Q23 and FY 2023-Q1 and Q2'23: sales of $1.6B", ["$1.6B"]),
    ("For the 12 months ended January 28, 2023, the 3 year average margin was 2.8%.", ["2.8%"]),
    ("3M's 10-K and Form 8-K; COVID-19 costs; H100 and MI325X; 5G: $8.7 billion",
     ["$8.7 billion"]),
    ("Capital leases: 143; Purchases of PP&E: $(1,577) (2018); (1,373) (2017) [3]",
     ["143", "$(1,577)", "(1,373)"]),
    ("Amcor's Adj. EBITDA was $2,018mn; USD 8.7 billion; US$3.2bn; 1.5x", [
        "$2,018mn", "USD 8.7 billion", "US$3.2bn", "1.5x"]),
    ("DSO ranged 2.8%-3.1%; CCC was -3.7 days; 24.8 percent", ["2.8%", "3.1%", "-3.7",
                                                                "24.8 percent"]),
    ("On 1st July 2022 and 2023-01-29 and 12/31/2022 nothing was stated.", []),
    ("The answer is 2,019 million shares, not the year 2019.", ["2,019 million"]),
    ("Operating leases: right of use assets $ 829 $ 858; liabilities $ 146 $ 127",
     ["$ 829", "$ 858", "$ 146", "$ 127"]),
    ("What is the FY2015 - FY2017 3 year average net profit margin (as a %) for Best Buy?, "
     "Answer in units of percents.\n- Operating income (3): 372; 289 [2]", ["372", "289"]),
    ("Is a 5.1% capex ratio high? It was 5.1% in FY2022 [1].", ["5.1%"]),
])
def test_stated_figures_skip_labels_and_keep_amounts(text, expected):
    assert texts(text) == expected


def test_figures_carry_sign_scale_percent_and_rounding():
    capex, prior = stated_figures("Purchases of PP&E: $(1,577) million; $(1,373) million")
    assert capex.value == -1577.0 and capex.scale == 6 and capex.currency
    assert capex.base == -1_577_000_000.0 and prior.value == -1373.0
    (ccc,) = stated_figures("The cash conversion cycle was -3.66 days.")
    assert ccc.value == -3.66 and ccc.decimals == 2 and ccc.scale is None
    (pct,) = stated_figures("Operating income grew 65.4% year over year.")
    assert pct.percent and pct.value == 65.4 and pct.decimals == 1
    (b,) = stated_figures("$4.60 billion")
    assert b.scale == 9 and b.decimals == 2


def test_a_lines_in_millions_caption_scales_its_figures():
    line = ("Net income: $457.3 (Fiscal Year Ended December 28, 2024); $181.0 (December 30, "
            "2023) — Consolidated Statements of Income, in millions [2]\nHeadcount: 1,200")
    first, second, heads = stated_figures(line)
    assert (first.text, first.scale, second.scale) == ("$457.3", 6, 6)
    assert heads.scale is None  # the next line has no caption


@pytest.mark.parametrize("question, scale", [
    ("What is the FY2018 capital expenditure amount (in USD millions) for 3M?", 6),
    ("What is the year end FY2018 net PPNE for 3M? Answer in USD billions.", 9),
    ("What is Amazon's FY2019 net income attributable to shareholders (in USD millions)?", 6),
    ("Answer in USD thousands.", 3),
    ("What is Adobe's change in operating income (in units of percents)?", None),
    ("What was NVIDIA's total revenue in fiscal 2023?", None),
])
def test_asked_scale(question, scale):
    assert asked_scale(question) == scale


# --- matching ---------------------------------------------------------------------------

def one(text: str):
    (f,) = stated_figures(text)
    return f


@pytest.mark.parametrize("answer, reference, asked, ok", [
    ("$1,577 million", "$1577.00", 6, True),
    ("$1.577 billion", "$1577.00", 6, True),
    ("$1.58 billion", "$1577.00", 6, True),  # 0.2% off
    ("1,577", "$1577.00", 6, True),  # a quoted table cell, no scale word
    ("$(1,577)", "$1577.00", 6, True),  # printed negative, asked positive
    ("$1,373 million", "$1577.00", 6, False),
    ("$8,700 million", "$8.70", 9, True),
    ("$8.7 billion", "$8.70", 9, True),
    ("$8,738 million", "$8.70", 9, True),  # within 1%
    ("$9.1 billion", "$8.70", 9, False),
    ("$8.70 million", "$8.70", 9, False),  # both scales known: a thousand times too small
    ("0.66", "0.66", None, True),
    ("0.664", "0.66", None, True),  # the reference's rounding
    ("0.70", "0.66", None, False),
    ("$660 million", "0.66", None, False),  # an amount is not a ratio
    ("66%", "0.66", None, True),  # the percentage a fraction means
    ("65.4%", "65.4%", None, True),
    ("65.38%", "65.4%", None, True),
    ("0.654", "65.4%", None, True),
    ("$65.4 million", "65.4%", None, False),
    ("64.0%", "65.4%", None, False),
    ("0.43%", "0.4%", None, True),  # half a unit of the reference's last decimal
    ("0.5%", "0.4%", None, False),
    ("-3.7 days", "-3.7", None, True),
    ("3.66 days", "-3.7", None, True),  # sign tolerated, 1%
    ("-4.1 days", "-3.7", None, False),
    ("93.9 days", "93.86", None, True),
    ("$11,588 million", "$11588.00", 6, True),
    ("$11.6 billion", "$11588.00", 6, True),
    ("$4.6 billion", "$4.60", 9, True),
    ("$4,625 million", "$4.60", 9, True),
    ("$5 billion", "$4.60", 9, False),
    ("2.8%", "2.8%", None, True),
    ("$0.01", "0.01$ per share", None, True),
])
def test_same_figure(answer, reference, asked, ok):
    assert same_figure(one(answer), one(reference), asked) is ok


# --- the verdicts on whole answers ------------------------------------------------------

CAPEX_Q = ("What is the FY2018 capital expenditure amount (in USD millions) for 3M? Give a "
           "response to the question by relying on the details shown in the cash flow statement.")
PPNE_Q = ("Assume that you are a public equities analyst. Answer the following question by "
          "primarily using information that is shown in the balance sheet: what is the year end "
          "FY2018 net PPNE for 3M? Answer in USD billions.")
NVDA_Q = ("What was NVIDIA's total revenue in fiscal 2023 and how did it change from fiscal "
          "2022?")


@pytest.mark.parametrize("answer, reference, question, first, anywhere", [
    # the figures layer's sentence, then its work
    ("3M's FY2018 capital expenditure was $1,577 million [1].\n\nWork: purchases of property, "
     "plant and equipment (PP&E), FY2018: $(1,577) million [1].", "$1577.00", CAPEX_Q,
     True, True),
    # today's extractive brief: the right figure quoted after a wrong one
    (BANNER + "\n\nImpairment of long-lived assets is reviewed annually [2]. Capital leases: "
     "143 [3]. Purchases of property, plant and equipment (PP&E): $(1,577) (2018); $(1,373) "
     "(2017); $(1,420) (2016) — Consolidated Statement of Cash Flows, in millions [4]",
     "$1577.00", CAPEX_Q, False, True),
    # nothing right
    (BANNER + "\n\nTotal: $2,710; $2,004; $1,397 [3]", "$1577.00", CAPEX_Q, False, False),
    ("3M's net property, plant and equipment was $8,738 million at year end FY2018 [1].",
     "$8.70", PPNE_Q, True, True),
    ("NVIDIA's revenue was $26,974 million in fiscal 2023, about flat from $26,914 million in "
     "fiscal 2022 (+0.2%) [1].", "Revenue was $26,974 million in fiscal 2023, flat from "
     "$26,914 million.", NVDA_Q, True, True),
    ("Revenue: 100.0% (January 29, 2023) [2]. Total: $26,974; $26,914; $60 —% [6]",
     "Revenue was $26,974 million in fiscal 2023.", NVDA_Q, False, True),
    ("The FY2019 fixed asset turnover ratio is 0.66 (revenue $6,489 million / average PP&E "
     "$9,829 million) [1][2].", "0.66", "", True, True),
    ("Adobe's operating income grew 65.4% from FY2015 to FY2016 [1].", "65.4%", "", True, True),
    ("General Mills' FY2019 cash conversion cycle was -3.7 days (DIO 47.3 + DSO 28.8 - DPO "
     "79.8) [1][2][3].", "-3.7", "", True, True),
    ("The FY2017 operating cash flow ratio was 0.80 [1]; cash from operations of $2,913 "
     "million.", "0.83", "", False, False),
    ("The FY2018 capex was $1,577 million [1].", "The FY2018 capex was $1,577 million",
     CAPEX_Q, True, True),
])
def test_whole_answers(answer, reference, question, first, anywhere):
    v = judge_figures(answer, reference, question)
    assert (v.first, v.anywhere) == (first, anywhere), v.details()


def test_not_applicable_without_a_reference_figure():
    for reference in ("Yes, change in PPNE was positive year over year",
                      "Trillium, Array, and Therachon", ""):
        scores = numeric_scores(EvalSample("q", "Revenue was $5 million [1].",
                                           ground_truth=reference))
        assert [s.value for s in scores] == [None, None]
        assert all(s.note for s in scores)


def test_scores_are_rule_metrics_with_details():
    first, anywhere = numeric_scores(EvalSample(
        CAPEX_Q, "Capital leases: 143 [3]. Purchases of PP&E: $(1,577) (2018) [4]",
        ground_truth="$1577.00"))
    assert (first.key, first.value, first.judge) == (KEY, 0.0, "rule")
    assert (anywhere.key, anywhere.value) == (ANYWHERE_KEY, 1.0)
    assert first.details["first_figure"] == "143"
    assert first.details["matched"] == "$(1,577)" and first.details["sign_agrees"] is False
    assert first.details["asked_scale"] == 6


def test_an_answer_without_figures_scores_zero():
    (first, anywhere) = numeric_scores(EvalSample("q", "I could not find the capex [1].",
                                                  ground_truth="$1577.00"))
    assert (first.value, anywhere.value) == (0.0, 0.0)
    assert first.note == "the answer states no figure"


# --- scripts/eval_financebench.py --------------------------------------------------------

def _script():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "scripts" / "eval_financebench.py"
    spec = importlib.util.spec_from_file_location("eval_financebench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_financebench_script_keeps_question_types_and_scores_figures(tmp_path):
    import json

    from core.evaluation.results import QuestionResult

    rows = [{"id": "financebench_id_1", "company": "3M", "doc": "3M_2018_10K",
             "question_type": "metrics-generated", "question": CAPEX_Q, "answer": "$1577.00",
             "justification": "", "evidence": [{"page_index": 59, "text": "PP&E (1,577)"}]},
            {"id": "financebench_id_2", "company": "3M", "doc": "3M_2018_10K",
             "question_type": "domain-relevant", "question": "Is 3M capital-intensive?",
             "answer": "No, CAPEX/Revenue Ratio: 5.1%", "evidence": []}]
    (tmp_path / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    script = _script()
    qset = script.load_set(tmp_path)
    first, second = qset.questions
    assert (first.id, first.tags, second.tags) == ("fb1", ["metrics-generated"],
                                                   ["domain-relevant"])
    assert first.gold[0].page == 60  # page_index is 0-based
    # a result saved before the metric existed is scored from its answer text
    old = QuestionResult(question_id="fb1", system="deep", fingerprint="x", question=CAPEX_Q,
                         answer="Capital leases: 143 [1]. Purchases of PP&E: (1,577) [2]")
    assert script.figure_verdicts(old, first) == (False, True)
    scored = old.model_copy(update={"metrics": {s.key: s for s in numeric_scores(
        EvalSample(CAPEX_Q, "$1,577 million [1]", ground_truth="$1577.00"))}})
    assert script.figure_verdicts(scored, first) == (True, True)
    assert script._share([True, False, None]) == "1/2" and script._share([None]) == "-"
