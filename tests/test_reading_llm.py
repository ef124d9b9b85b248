"""The LLM's reading (core.reading.llm): the planner's one call fills the same slots, checked
against the corpus and the catalogue; the grammar's reading keeps the plan and the LLM's is
shown beside it when it asks something else; the LLM's is the run's when the grammar read
no figures; nothing that does not exist is ever taken (scripted chat model, two real 10-Ks)."""

from __future__ import annotations

from core.app.research import ResearchService
from core.reading.llm import ReadingSlots, differs, validated
from testkit.fakes.chat_model import FakeChatModel
from tests.test_agent_analysis import two  # noqa: F401 (a fixture)

Q = "Which had the higher operating margin, NVIDIA or AMD?"


def _proposal(two, question: str, reading: dict | None):  # noqa: F811
    settings, corpus, ids = two
    llm = FakeChatModel()
    step = {"sub_question": question, "justification": "", "tool": "filing_search",
            "keywords": ["margin"], "section": None, "doc_ids": [], "depends_on": []}
    llm.enqueue({"steps": [step], **({"reading": reading} if reading else {})})
    service = ResearchService.from_corpus(settings, corpus, llm=llm)
    _, _, events = service.start(question, review="always")
    proposal = next(e for e in events if e.type == "plan_proposed")
    return proposal, llm


def test_the_planner_is_asked_for_the_reading_and_an_agreeing_one_adds_nothing(two):  # noqa: F811
    slots = {"kind": "compare", "companies": ["NVIDIA CORP", "AMD"],
             "metrics": ["operating_margin"], "direction": "higher"}
    proposal, llm = _proposal(two, Q, slots)
    assert "fill \"reading\"" in llm.history[0][0].content
    assert proposal.reading.kind == "compare" and proposal.reading.source == "grammar"
    assert proposal.reading.alternative is None


def test_a_different_reading_is_shown_beside_the_grammars(two):  # noqa: F811
    slots = {"kind": "rank", "companies": ["nvda", "Advanced Micro Devices"],
             "metrics": ["net_margin"], "direction": "lower"}
    proposal, _ = _proposal(two, Q, slots)
    reading = proposal.reading
    assert reading.source == "grammar" and reading.kind == "compare"
    other = reading.alternative
    assert other is not None and other.source == "llm"
    assert [c.name for c in other.companies] == ["NVIDIA CORP", "ADVANCED MICRO DEVICES, INC."]
    assert other.summary().startswith("Read as (by the LLM): a ranking (lowest first) · net "
                                      "profit margin")


def test_what_does_not_exist_is_never_taken_and_is_said(two):  # noqa: F811
    slots = {"kind": "compare", "companies": ["Zenith Corp", "NVIDIA CORP"],
             "metrics": ["operating_margin", "happiness_ratio"], "periods": ["2024", "FY2023"],
             "threshold": float("nan")}
    proposal, _ = _proposal(two, Q, slots)
    notes = " ".join(proposal.notes)
    assert "the LLM named 'Zenith Corp', which no loaded filing is of" in notes
    assert "the metric 'happiness_ratio', which the catalogue lacks" in notes
    assert "the period '2024', not a fiscal period" in notes
    other = proposal.reading.alternative
    assert other is not None and [c.name for c in other.companies] == ["NVIDIA CORP"]
    assert other.periods == ["FY2023"] and other.threshold is None


def test_the_llms_reading_is_the_runs_when_the_grammar_read_no_figures(two):  # noqa: F811
    question = "How did the chip makers fare on profitability from operations?"
    slots = {"kind": "compare", "companies": ["NVDA", "AMD"], "metrics": ["operating_margin"]}
    proposal, _ = _proposal(two, question, slots)
    assert proposal.reading.source == "llm" and proposal.reading.kind == "compare"
    assert proposal.reading.summary().startswith("Read as (by the LLM): which is higher")


def test_validation_and_difference_are_pure_rules(two):  # noqa: F811
    _, corpus, _ = two
    docs = corpus.documents()
    a, problems = validated(ReadingSlots(kind="compare", companies=["NVDA", "AMD"],
                                         metrics=["operating_margin"]), Q, docs)
    assert problems == [] and a is not None
    b, _ = validated(ReadingSlots(kind="compare", companies=["amd", "nvidia"],
                                  metrics=["operating_margin"], direction="higher"), Q, docs)
    assert not differs(a, b)  # the same companies in another order and case
    for change in ({"kind": "rank"}, {"metrics": ["net_margin"]}, {"direction": "lower"},
                   {"periods": ["FY2023"]}, {"companies": ["NVDA"]}):
        c, _ = validated(ReadingSlots(**{"kind": "compare", "companies": ["NVDA", "AMD"],
                                         "metrics": ["operating_margin"], **change}), Q, docs)
        assert c is not None and differs(a, c), change
    none, problems = validated(ReadingSlots(kind="compare", companies=["Zenith"],
                                            metrics=["operating_margin"]), Q, docs)
    assert none is None and problems[-1].endswith("no company or metric that exists")
