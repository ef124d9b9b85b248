"""The answer shows a self-check mark after each checked sentence, the verdict on hover."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from components.cite_text import answer_blocks, blocks_text

CHECKS = [
    {"sentence": "Rivals compete [1].", "citations": [1], "verdict": "supported",
     "reason": "figures found; 100% of its terms in the cited text", "kept": True},
    {"sentence": "AMD pushes MI325X [2].", "citations": [2], "verdict": "supported",
     "reason": "stated in [2]", "kept": True, "judge": "llm"},
    {"sentence": "Sales were $9 billion [1].", "citations": [1], "verdict": "unsupported",
     "reason": "figure(s) 9 not in the cited text", "kept": False},
]
ANSWER = "Rivals compete [1]. AMD pushes MI325X [2]."


def test_each_kept_checked_sentence_gets_a_mark_with_its_verdict():
    blocks = answer_blocks(ANSWER, CHECKS)
    marks = [r for b in blocks for r in b["runs"] if "v" in r]
    assert [(m["v"], m["mark"]) for m in marks] == [("supported", "✓"), ("supported", "✓")]
    assert marks[1]["why"] == "stated in [2]"
    assert blocks_text(blocks) == "Rivals compete [1].✓ AMD pushes MI325X [2].✓"
    assert blocks_text(answer_blocks(ANSWER)) == ANSWER  # no checks: no marks


def _app():
    from components.run_view import RunView
    from core.agent import events as ev
    from tests.test_answer_checks_ui import ANSWER, CHECKS

    view = RunView(key="t", open_citation=lambda c: None)
    view.add_all([ev.AnswerReady(
        node="synthesize", answer=ANSWER, stop_reason="completed", stop_message="done",
        source="llm", checks=CHECKS,
        citations=[{"n": 1, "evidence_id": "d1-00003", "kind": "chunk", "label": "A"},
                   {"n": 2, "evidence_id": "d1-00004", "kind": "chunk", "label": "B"}])])


def test_the_answer_view_shows_marks_and_the_self_check_summary():
    import json

    at = AppTest.from_function(_app, default_timeout=120).run()
    assert not at.exception, at.exception
    shown = [blocks_text(json.loads(e.proto.json)["blocks"]) for e in at.get("bidi_component")]
    assert any("compete [1].✓" in s for s in shown), shown
    captions = [c.value for c in at.caption]
    assert any(c.startswith("Self-check (LLM): 2 of 3 sentence(s) supported") and "1 removed"
               in c and "not in the cited text" in c for c in captions), captions
