"""Fault 4: no question-shaped rules in the offline connect paragraph (two-company corpus)."""

from __future__ import annotations

from core.agent.roles.connect import build_link, is_connect, link_text
from core.agent.roles.reflect import offline_link_finding
from core.agent.roles.sentences import query_terms
from core.agent.state import Evidence, StepRecord
from tests.answer_fakes import two_company_info


def _records():
    revenue = ("Net sales for fiscal 2024 were $2,184.6 million, an increase of 43%, driven by "
               "pricing in the snacks segment.")
    cost = "Commodity price increases for wheat and cocoa could reduce our gross margin."
    recs = [
        StepRecord(step=0, sub_question="What drove Borealis's net sales in fiscal 2024?",
                   tool="filing_search", query="q", evidence_ids=["bore-00001"],
                   coverage="answered", context=f"- {revenue} [bore-00001]"),
        StepRecord(step=1, sub_question="What does Borealis say about commodity costs?",
                   tool="filing_search", query="q", evidence_ids=["bore-00000"],
                   coverage="answered", context=f"- {cost} [bore-00000]"),
        StepRecord(step=2, sub_question="Explain how the pricing affects Borealis's gross "
                   "margin.", tool="filing_search", query="q", evidence_ids=[],
                   coverage="none", context=""),
    ]
    ev = {"bore-00001": Evidence(id="bore-00001", kind="chunk", text=revenue, doc_id="bore"),
          "bore-00000": Evidence(id="bore-00000", kind="chunk", text=cost, doc_id="bore")}
    return recs, ev


def test_connect_paragraph_on_a_revenue_question_claims_no_risk_and_no_relation():
    recs, ev = _records()
    link = build_link(recs[2], recs[:2], ev, two_company_info(), "a revenue question")
    assert link is not None
    text = link_text(link, lambda i: f"[{i}]")
    assert "risk" not in text.lower() and "directly" not in text
    assert "Beside it, BOREALIS's filing states:" in text or "Beside it, the filing" in text
    assert "[bore-00001]" in text and "[bore-00000]" in text


def test_juxtaposition_does_not_raise_the_steps_coverage():
    recs, ev = _records()
    finding, coverage = offline_link_finding(recs[2], recs, ev, two_company_info(), "q")
    assert finding.startswith("Juxtaposed (offline):") and coverage == "none"


def test_a_bare_change_question_is_not_a_connect_clause():
    assert not is_connect("How did revenue increase?")
    assert not is_connect("Results of operations: what drove revenue?")
    assert is_connect("How does the acquisition affect Acme's margins?")
    assert is_connect("Explain how this new strategy exacerbates one of Acme's stated risks.")


def test_the_questions_own_words_are_not_stopwords():
    kept = query_terms("Does the plan directly address or exacerbate the stated margin risk?")
    assert {"direct", "addres", "exacer"} <= {t[:6] for t in kept}
