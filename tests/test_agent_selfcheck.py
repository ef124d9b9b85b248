"""Self-check of the answer and fault 9 (an uncited LLM synthesis), on the two-company
corpus, with the real ChatOpenAI against the local fake OpenAI-compatible server."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from core.agent.roles.selfcheck import Claim, apply_checks, check_answer, claims, offline_verdict
from core.agent.state import Evidence
from core.llm.factory import make_chat_model
from testkit.fakes.fixtures import llm_settings
from testkit.fakes.openai_server import Behaviour, FakeOpenAIServer
from tests.answer_fakes import BOREALIS_TEXTS, question_service

NET_SALES = BOREALIS_TEXTS[1][1]
EV = {1: Evidence(id="bore-00001", kind="chunk", text=NET_SALES, doc_id="bore",
                  label="borealis-10k-2024.htm · Item 7"),
      2: Evidence(id="bore-00002", kind="chunk", text=BOREALIS_TEXTS[2][1], doc_id="bore")}
QUESTION = "What were Borealis's net sales in fiscal 2024?"


class RoleServer(FakeOpenAIServer):
    """Answers each structured call by its schema's name from per-schema queues (the last
    reply of a queue repeats), so the test does not depend on how many roles run first."""

    def __init__(self, replies: dict[str, list[Behaviour]]):
        super().__init__()
        self.replies = replies

    def handle(self, method: str, path: str, body: Any):
        if method == "POST" and path.endswith("/chat/completions"):
            name = json.dumps(body.get("response_format") or body.get("tools") or "")
            for schema, queue in self.replies.items():
                if schema in name:
                    self.enqueue(queue.pop(0) if len(queue) > 1 else queue[0])
                    break
        return super().handle(method, path, body)

    def requests_for(self, schema: str) -> list[dict]:
        return [r for r in self.chat_requests if schema in json.dumps(
            r.get("response_format") or r.get("tools") or "")]


def _replies(*answers: dict, checks: dict | None = None) -> dict[str, list[Behaviour]]:
    plan = {"steps": [{"sub_question": QUESTION, "tool": "filing_search",
                       "keywords": ["net sales"], "doc_ids": ["bore"]}]}
    out = {"PlannerOutput": [Behaviour.json(plan)],
           "RewriteOutput": [Behaviour.json({"query": "net sales fiscal 2024",
                                             "strategy": "hybrid", "justification": "x"})],
           "DistillOutput": [Behaviour.json({
               "context": f"- {NET_SALES} [bore-00001]", "finding": "Net sales were $2,184.6 "
               "million.", "coverage": "answered", "missing": ""})],
           "SynthesisOutput": [Behaviour.json(a) for a in answers]}
    if checks is not None:
        out["SelfCheckOutput"] = [Behaviour.json(checks)]
    return out


def _run(tmp_path, replies):
    with RoleServer(replies) as server:
        settings = llm_settings(server, tmp_path)
        record = question_service(settings, llm=make_chat_model(settings)).ask(QUESTION)
    return server, record


# --- the offline rule -------------------------------------------------------------------

def test_offline_rule_flags_a_figure_absent_from_the_cited_text():
    wrong = offline_verdict(Claim("Borealis's net sales were $1.54 billion [1].", [1]), EV)
    assert wrong.verdict == "unsupported" and "1.54" in wrong.reason
    right = offline_verdict(Claim("Borealis's net sales were $2.18 billion in fiscal 2024, up "
                                  "43% [1].", [1]), EV)
    assert right.verdict == "supported"  # 2,184.6 million rounded at another scale
    off = offline_verdict(Claim("Borealis opened forty new bakeries across Europe [1].", [1]), EV)
    assert off.verdict == "unsupported" and "terms" in off.reason
    assert offline_verdict(Claim("Net sales rose sharply this year.", []), EV).verdict == \
        "uncited"


def test_unsupported_sentences_are_removed_and_their_verdicts_kept():
    text = ("Net sales\n- Net sales for fiscal 2024 were $2,184.6 million [1].\n"
            "- Net sales were $1.54 billion [1].")
    checks, call = check_answer(text, EV)
    assert call is None and [c.verdict for c in checks] == ["supported", "unsupported"]
    kept, checks = apply_checks(text, checks)
    assert "1.54" not in kept and "$2,184.6 million [1]" in kept
    assert [c.kept for c in checks] == [True, False]
    assert [c.text for c in claims(kept)] == ["Net sales for fiscal 2024 were $2,184.6 "
                                              "million [1]."]


# --- fault 9 and the LLM self-check, through the real HTTP path --------------------------

def test_uncited_llm_answer_is_reasked_once_then_replaced_by_the_brief(tmp_path):
    uncited = {"answer": "Borealis's revenue in fiscal 2024 was $1.54 billion, driven by "
               "strong demand across all of its segments.", "not_found": []}
    server, record = _run(tmp_path, _replies(uncited, uncited))
    synth = server.requests_for("SynthesisOutput")
    assert len(synth) == 2
    retry = synth[1]["messages"][-1]["content"]
    assert "rejected" in retry and "cites no evidence" in retry
    answer = record.answer
    assert answer.source == "offline" and "1.54" not in answer.text
    assert [c.evidence_id for c in answer.citations] == ["bore-00001"]  # evidence kept
    assert answer.checks and all(c.verdict == "supported" for c in answer.checks)
    assert any("replaced by the extractive brief" in w for w in record.warnings)
    assert server.requests_for("SelfCheckOutput") == []  # nothing cited: no LLM check needed


def test_cited_llm_answer_is_checked_in_one_call_and_a_bad_sentence_removed(tmp_path):
    answer = {"answer": "Borealis's net sales were $2,184.6 million in fiscal 2024 [1]. "
              "Growth came from pricing in the snacks segment [1]. "
              "Net sales were $1.54 billion in the quarter [1].", "not_found": []}
    verdicts = {"verdicts": [
        {"index": 1, "supported": True, "reason": "figure in [1]"},
        {"index": 2, "supported": True, "reason": "stated in [1]"},
        {"index": 3, "supported": False, "reason": "$1.54 billion is not in [1]"}]}
    server, record = _run(tmp_path, _replies(answer, checks=verdicts))
    assert len(server.requests_for("SynthesisOutput")) == 1
    assert len(server.requests_for("SelfCheckOutput")) == 1
    assert record.usage["selfcheck"].calls == 1
    a = record.answer
    assert a.source == "llm" and "1.54" not in a.text and "$2,184.6 million" in a.text
    assert [(c.verdict, c.kept, c.judge) for c in a.checks] == [
        ("supported", True, "llm"), ("supported", True, "llm"), ("unsupported", False, "llm")]
    assert "not in [1]" in a.checks[2].reason


def test_evaluation_counts_the_share_of_supported_claims():
    from core.agent.state import Answer, SentenceCheck
    from core.evaluation.self_check import self_check_share

    checks = [SentenceCheck(sentence="a [1]", citations=[1], verdict="supported"),
              SentenceCheck(sentence="b [1]", citations=[1], verdict="unsupported", kept=False)]
    score = self_check_share(Answer(text="a [1]", checks=checks))
    assert score.value == 0.5 and score.details["removed"] == 1
    baseline = Answer(text="Net sales for fiscal 2024 were $2,184.6 million [1]. Net sales were "
                      "$1.54 billion [1].", evidence=[EV[1]])  # no verdicts: the rule
    score = self_check_share(baseline)
    assert score.value == 0.5 and score.details["verdicts"] == "offline rule"


def _pick(label: str, value: float, chunk: str):
    from core.analysis.model import AnalysisResult, AnalysisSpec, PeerRow
    from core.figures.units import amount

    row = PeerRow(label=label, company="Acme", period="FY2024", period_end="2024-12-31",
                  value=value, unit="USD millions", display=amount(value * 1e6),
                  inputs=f"table row: {label} | {value:,.0f} | {value * 0.9:,.0f}",
                  chunk_ids=[chunk], rank=1)
    return AnalysisResult(spec=AnalysisSpec(kind="pick", name="largest asset"), rows=[row])


ROW_LABELS = ["Goodwill", "Cash and cash equivalents", "Property and equipment, net",
              "Accrued expenses and other current liabilities", "Long-term debt"]


@pytest.mark.parametrize(("label", "value", "year"), itertools.product(
    ROW_LABELS, [782.0, 12_788.0, 51_228.0], [2019, 2024]))
def test_a_row_the_analysis_read_is_supported_by_its_own_chunk(label, value, year):
    """A pick's line ('Goodwill, fiscal 2024 (ended ...): $12,788 million; table row: ...')
    cites the chunk its fact is printed in: its framing words and the year (printed in
    another chunk's heading) are no reason to remove it; a wrong figure or another chunk
    is."""
    from core.agent.roles.analysis_answer import row_line
    from core.agent.roles.figure_check import row_verdict

    result = _pick(label, value, "d-7")
    row = result.rows[0].model_copy(update={"period": f"FY{year}",
                                            "period_end": f"{year}-12-31"})
    result.rows[0] = row
    line = row_line(row, lambda _r: " [1]").removeprefix("- ")
    printed = f"{label} {value:,.0f} {value * 0.9:,.0f}"
    numbered = {1: Evidence(id="d-7", kind="chunk", text=printed, label="Acme 10-K, p. 5")}
    assert offline_verdict(Claim(line, [1]), numbered).verdict == "unsupported"  # the text rule
    got = row_verdict(line, [1], numbered, [result])
    assert got is not None and got.verdict == "supported", line
    other = {1: numbered[1].model_copy(update={"id": "d-8"})}
    assert row_verdict(line, [1], other, [result]) is None
    wrong = line.replace(f"{value:,.0f} million", f"{value + 7:,.0f} million", 1)
    assert row_verdict(wrong, [1], numbered, [result]) is None
