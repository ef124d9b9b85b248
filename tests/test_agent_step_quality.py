"""Quality dimensions per step (relevance, coverage, consistency between sources), on the
two-company corpus: computed by rule, stored on the step record, used by the policy."""

from __future__ import annotations

from core.agent.policy import decide
from core.agent.quality import LOW_RELEVANCE, step_quality
from core.agent.state import PlanStep, StepRecord, StepWork
from tests.answer_fakes import question_service

ROW_A = "Net sales | $ 2,184.6 | $ 1,527.3 (Fiscal 2024 | Fiscal 2023; in millions)"
ROW_B = "Net sales | $ 2,148.6 | $ 1,527.3 (Fiscal 2024 | Fiscal 2023; in millions)"


def test_consistency_flags_two_sources_that_disagree_on_a_line_item():
    q = step_quality("What were Borealis's net sales in fiscal 2024?",
                     f"- {ROW_A} [bore-00002]\n- {ROW_B} [bore-00009]")
    assert q.consistency == 0.0 and "2184.6 [bore-00002] vs 2148.6 [bore-00009]" in q.notes[0]
    same = step_quality("What were Borealis's net sales in fiscal 2024?",
                        f"- {ROW_A} [bore-00002]\n- {ROW_A} [bore-00009]")
    assert same.consistency == 1.0 and same.notes == []
    one = step_quality("Net sales?", f"- {ROW_A} [bore-00002]")
    assert one.consistency is None  # nothing to compare


def test_relevance_and_coverage_measure_what_the_lines_are_about():
    on = step_quality("What drove Borealis's net sales growth?",
                      "- Net sales growth was driven by pricing in the snacks segment. [b-1]")
    off = step_quality("What drove Borealis's net sales growth?",
                       "- Commodity price increases for wheat could reduce margins. [b-0]")
    assert on.relevance > 0.5 and on.coverage > 0.5
    assert off.relevance < LOW_RELEVANCE and off.notes[0].startswith("kept evidence is mostly")


def _state(quality_context: str, coverage: str):
    from core.foundation.types import Chunk, Hit

    step = PlanStep(sub_question="What drove Borealis's net sales growth?")
    rec = StepRecord(step=0, sub_question=step.sub_question, tool="filing_search", query="q",
                     context=quality_context, coverage=coverage,
                     quality=step_quality(step.sub_question, quality_context))
    hit = Hit(chunk=Chunk(chunk_id="b-0", doc_id="bore", index=0, text="t", section="Item 7",
                          start=0, end=1))
    return {"plan": [step, step], "step_index": 0, "history": [rec], "revisions": [],
            "steps_run": 1, "work": StepWork(coverage=coverage, reranked=[hit])}


def test_policy_revises_a_partly_answered_step_whose_evidence_is_off_the_question(settings):
    deps = question_service(settings).deps
    off = _state("- Commodity price increases for wheat could reduce margins. [b-0]", "partial")
    d = decide(off, deps)
    assert d.decision == "REVISE" and "relevance" in d.reason
    on = _state("- Net sales growth was driven by pricing in snacks. [b-0]", "partial")
    assert decide(on, deps).decision == "CONTINUE"


def test_the_run_stores_quality_on_each_step_and_its_event(settings):
    record = question_service(settings).ask("What were Borealis's net sales in fiscal 2024?")
    assert all(h.quality is not None for h in record.history)
    reflected = [e for e in record.events if e.type == "step_reflected"]
    assert reflected and all(e.quality and 0 <= e.quality["relevance"] <= 1 for e in reflected)
    assert record.history[0].quality.relevance > LOW_RELEVANCE


def test_the_step_card_line_shows_the_three_dimensions():
    from components.step_card import quality_line

    q = step_quality("Net sales?", f"- {ROW_A} [bore-00002]\n- {ROW_B} [bore-00009]")
    line = quality_line(q.model_dump()).replace("\\", "")  # shown markdown-escaped
    assert line.startswith("Quality: relevance 1.00 · coverage 1.00 · consistency 0.00")
    assert "disagree" in line
    assert "consistency n/a" in quality_line({"relevance": 0.5, "coverage": 0.5})
