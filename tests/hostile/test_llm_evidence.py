"""LLM replies that cite evidence the run does not hold (issue 32), through the whole graph
with a scripted chat model: a distiller whose context lines cite chunk ids that were never
retrieved (main kept them in the step's distilled context, shown and handed on as if
cited), an answer whose markers point nowhere, and self-check verdicts for sentences that
do not exist. What cites nothing real is dropped and named; the rest of the run stands."""

from __future__ import annotations

import pytest

from testkit.agent_fakes import make_service
from testkit.fakes.chat_model import FakeChatModel

KNOWN = "doc1-00001"  # the fake corpus's Item 1A chunk on competition
INVENTED = ["deadbeefdeadbeef-00042", "doc9-00042", "E7", "https://evil.example/a"]
PLAN = {"steps": [{"sub_question": "What competition risks does Acme state?",
                   "justification": "j", "tool": "filing_search", "keywords": ["competition"],
                   "section": "Item 1A", "doc_ids": ["doc1"]}]}
REWRITE = {"query": "competition larger chip vendors", "strategy": "keyword",
           "justification": "j"}


def _ask(settings, distilled: dict, answer: str, verdicts: list[dict]):
    llm = FakeChatModel()
    llm.enqueue(PLAN, REWRITE, distilled, {"answer": answer, "not_found": []},
                {"verdicts": verdicts})
    settings = settings.model_copy(update={"parallel_steps": 1})
    record = make_service(settings, llm=llm).ask("What competition risks does Acme state?")
    assert llm.pending == 0 and record.status == "done"
    return record


def _distilled(*lines: str, coverage: str = "answered") -> dict:
    return {"context": "\n".join(lines), "finding": "Acme faces intense competition.",
            "coverage": coverage, "missing": ""}


@pytest.mark.parametrize("invented", INVENTED)
def test_context_lines_citing_evidence_never_retrieved_are_dropped_and_named(settings,
                                                                            invented):
    record = _ask(settings, _distilled(f"- Intense competition from larger vendors [{KNOWN}]",
                                       f"- Acme's revenue doubled to $9 billion [{invented}]"),
                  "Acme faces intense competition from larger vendors [1].",
                  [{"index": 1, "supported": True}])
    (step,) = record.history
    assert step.context == f"- Intense competition from larger vendors [{KNOWN}]"
    assert step.evidence_ids == [KNOWN]
    shown = [e.context for e in record.events if e.type == "context_distilled"]
    assert shown == [step.context]  # the step card shows what the run kept
    said = [w for w in record.warnings if "not retrieved" in w]
    assert len(said) == 1 and f"[{invented}]" in said[0], record.warnings
    assert "dropped 1 context line(s)" in said[0]
    assert record.usage["distiller"].fallbacks == 0  # the rest of the reply was used


def test_a_context_citing_only_invented_evidence_falls_back_to_the_offline_rule(settings):
    record = _ask(settings, _distilled(*(f"- Revenue doubled [{i}]" for i in INVENTED)),
                  "Acme faces intense competition from larger chip vendors [1].",
                  [{"index": 1, "supported": True}])
    (step,) = record.history
    assert "Revenue doubled" not in step.context and step.evidence_ids
    assert set(step.evidence_ids) <= {KNOWN, "doc1-00002", "doc1-00003", "doc1-00004"}
    assert record.usage["distiller"].fallbacks == 1
    assert any("cited no evidence id; used the offline rule" in w for w in record.warnings)


@pytest.mark.parametrize("markers", ["[2]", "[99]", "[0]", "[deadbeefdeadbeef-00042]",
                                     "[1, 99]", "[3-5]"])
def test_answer_markers_that_point_nowhere_are_removed_and_named(settings, markers):
    record = _ask(settings, _distilled(f"- Intense competition from larger vendors [{KNOWN}]"),
                  f"Acme faces intense competition from larger vendors [1]. Acme may lose "
                  f"share to rivals with better products {markers}.",
                  [{"index": 1, "supported": True}, {"index": 2, "supported": True}])
    answer = record.answer
    assert answer.invalid_markers and all(m not in answer.text for m in answer.invalid_markers)
    assert {c.evidence_id for c in answer.citations} == {KNOWN}
    assert any("citation marker(s) not in the run's evidence" in w for w in record.warnings)
    assert answer.text.startswith("Acme faces intense competition from larger vendors [1].")


def test_verdicts_for_sentences_that_do_not_exist_change_nothing(settings):
    verdicts = [{"index": 99, "supported": False}, {"index": -1, "supported": False},
                {"index": 0, "supported": False}, {"index": 1, "supported": True}]
    record = _ask(settings, _distilled(f"- Intense competition from larger vendors [{KNOWN}]"),
                  "Acme faces intense competition from larger vendors [1].", verdicts)
    assert record.answer.text == "Acme faces intense competition from larger vendors [1]."
    assert [(c.verdict, c.judge, c.kept) for c in record.answer.checks] == \
        [("supported", "llm", True)]
