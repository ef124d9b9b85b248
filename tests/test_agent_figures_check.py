"""The self-check's figure rules: a stated figure must be the asked metric and period.

Facts and results are built by hand (as ``core.figures.compute`` returns them); the
metric catalogue is the real one."""

from __future__ import annotations

from core.agent.roles.figure_check import FigureKnowledge, amounts, check_figures
from core.agent.roles.selfcheck import check_answer
from core.agent.state import Evidence
from tests.test_agent_figures_plumbing import _result

INCOME = ("Consolidated Statements of Income (In millions) | Year Ended Jan 29, 2023 | "
          "Jan 30, 2022\nRevenue | $26,974 | $26,914\nCost of revenue | 11,618 | 9,439")
SBC = ("Stock-based compensation expense (In millions) | Jan 29, 2023 | Jan 30, 2022 | Jan "
       "31, 2021\nCost of revenue | $138 | $141\n"
       "Research and development | 1,892 | 1,298\nTotal | $2,710 | $2,004 | $1,397")


def _numbered() -> dict[int, Evidence]:
    return {1: Evidence(id="d1-00042", kind="chunk", text=INCOME, label="NVIDIA 10-K p. 50"),
            2: Evidence(id="d1-00077", kind="chunk", text=SBC, label="NVIDIA 10-K p. 80")}


def _know(weak: bool = True) -> FigureKnowledge:
    return FigureKnowledge(results=[_result()],
                           step_metric={"d1-00077": "revenue"} if weak else {})


def test_a_quoted_line_under_a_figure_step_must_be_the_metric_asked():
    """Today's fault: "Total: $2,710" passed as revenue. Under a revenue step's weak
    evidence it is unsupported; the same line under a text step is judged as before."""
    text = ("Only weak evidence — the nearest lines in the text for revenue FY2023:\n"
            "- Total: $2,710 (Jan 29, 2023); $2,004 (Jan 30, 2022) — Stock-based "
            "compensation expense, in millions [2]")
    checks, _ = check_answer(text, _numbered(), figures=_know())
    assert [c.verdict for c in checks] == ["unsupported"]
    assert "'Total' is not revenue" in checks[0].reason
    plain, _ = check_answer(text, _numbered(), figures=_know(weak=False))
    assert plain[0].verdict == "supported"  # the text rule alone finds the figures


def test_a_common_size_row_is_not_the_amount_asked():
    numbered = {1: Evidence(id="d1-00060", kind="chunk",
                            text="Revenue | 100.0% | 100.0%\nGross margin | 56.9% | 64.9%")}
    know = FigureKnowledge(results=[_result()], step_metric={"d1-00060": "revenue"})
    checks, _ = check_answer("- Revenue: 100.0% (January 29, 2023); 100.0% (January 30, "
                             "2022) [1]", numbered, figures=know)
    assert checks[0].verdict == "unsupported" and "percentage" in checks[0].reason


def test_a_stated_figure_must_agree_with_a_fact_of_that_metric_and_period():
    numbered = _numbered()
    good = ("NVIDIA's revenue was $26,974 million in fiscal 2023, about flat from "
            "$26,914 million in fiscal 2022 (+0.2%) [1].")
    wrong_period = "NVIDIA's revenue was $26,914 million in fiscal 2023 [1]."
    wrong_value = "NVIDIA's revenue in fiscal 2023 was $27.9 billion [1]."
    other = "Cost of revenue was $11,618 million in fiscal 2023 [1]."
    checks, _ = check_answer("\n\n".join([good, wrong_period, wrong_value, other]),
                             numbered, figures=_know())
    verdicts = {c.sentence: c for c in checks}
    assert verdicts[good].verdict == "supported"  # +0.2% is the computed change
    assert "facts and results of revenue" in verdicts[good].reason
    assert verdicts[wrong_period].verdict == "unsupported"
    assert "26,914 agree with no reported or computed revenue for FY2023" in \
        verdicts[wrong_period].reason
    assert verdicts[wrong_value].verdict == "unsupported"
    # the text rule finds 26,914 in the cited table: only the figure rule catches it
    plain, _ = check_answer(wrong_period, numbered)
    assert plain[0].verdict == "supported"
    # a metric the run did not look up is left to the text rule
    assert verdicts[other].verdict == "supported" and "terms" in verdicts[other].reason


def test_scales_and_signs_agree_and_years_are_not_amounts():
    assert amounts("in fiscal 2023 it was $2,004 and (1,577) or 26.97 billion") == \
        [(2004.0, 0), (1577.0, 0), (26.97, 2)]
    assert amounts("3M's 8-K and 10-Q, p. 54: 16.2%") == [(16.2, 1)]  # names are not amounts
    know = _know()
    sentence = "NVIDIA's revenue was $26.97 billion in fiscal 2023 [1]."
    checks = check_figures(check_answer(sentence, _numbered())[0], _numbered(), know)
    assert checks[0].verdict == "supported"


def test_an_llm_verdict_stands_unless_a_figure_rule_finds_a_fault():
    from core.agent.state import SentenceCheck

    numbered = _numbered()
    wrong = "NVIDIA's revenue was $26,914 million in fiscal 2023 [1]."
    good = "NVIDIA's revenue was $26,974 million in fiscal 2023 [1]."
    llm = [SentenceCheck(sentence=s, citations=[1], verdict=v, judge="llm", reason="judge")
           for s, v in ((wrong, "supported"), (good, "unsupported"))]
    out = check_figures(llm, numbered, _know())
    assert (out[0].verdict, out[0].judge) == ("unsupported", "offline")
    assert (out[1].verdict, out[1].judge) == ("unsupported", "llm")


def test_an_input_line_quoting_its_printed_row_is_judged_by_its_own_figure():
    """An input line quotes the row it was read from, with the other years' figures: those
    are the source, not stated figures (they used to make the line unsupported, and the
    answer lost its inputs)."""
    line = ("- Revenue, FY2023: $26,974 million (table row: Revenue | $26,974 | $26,914, "
            "p. 50) [1]")
    checks, _ = check_answer(line, _numbered(), figures=_know())
    assert checks[0].verdict == "supported"
    wrong = line.replace("$26,974 million", "$26,914 million")
    checks, _ = check_answer(wrong, _numbered(), figures=_know())
    assert checks[0].verdict == "unsupported"  # its own figure still has to agree


def test_a_row_that_names_its_xbrl_concept_is_judged_by_the_concepts_metric():
    """A peer row "NVIDIA, fiscal 2023: $26,974 million; XBRL us-gaap:RevenueFromContract..."
    names no measure in words: its concept says it is revenue, so the figure rule judges it
    (the text rule dropped it: the concept's long name is no term of the cited table)."""
    concept = "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax"
    row = f"- NVIDIA, fiscal 2023 (ended 2023-01-29): $26,974 million; XBRL {concept} [1]"
    checks, _ = check_answer(row, _numbered(), figures=_know(weak=False))
    assert checks[0].verdict == "supported", checks[0].reason
    wrong = row.replace("$26,974", "$29,974")
    checks, _ = check_answer(wrong, _numbered(), figures=_know(weak=False))
    assert checks[0].verdict == "unsupported" and "29,974" in checks[0].reason
