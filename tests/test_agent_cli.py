"""The terminal front end: streamed event lines, plan review (y/n/edit, --plan-file), compare."""

from __future__ import annotations

import io
import json
from pathlib import Path

from core.app.runs import load_run
from core.cli.agent import ask, compare, format_event
from core.retrieval.web import SnapshotWebSearch
from testkit.agent_fakes import QUESTION, make_service

ROOT = Path(__file__).resolve().parent.parent


def _inputs(*answers, on_edit=None):
    queue = list(answers)

    def fake_input(prompt: str) -> str:
        if prompt.startswith("Edit ") and on_edit:
            on_edit(Path(prompt.split()[1].rstrip(",")))
        if not queue:
            raise EOFError
        return queue.pop(0)

    return fake_input


def test_ask_with_approve_streams_events_and_prints_cited_answer(settings):
    out = io.StringIO()
    record = ask(QUESTION, settings=settings, approve=True, service=make_service(settings),
                 out=out)
    text = out.getvalue()
    assert "plan proposed (offline, 3 steps)" in text
    assert "▶ step 1:" in text and "  strategy: " in text and "  policy: " in text
    assert "=== Answer (deep, offline engine) ===" in text and "Sources:" in text
    assert "[1] Acme Chips Inc. 10-K FY2023 — Item 1A. Risk Factors" in text
    assert f"run id {record.id}" in text and "LLM calls 0" in text


def test_declining_leaves_the_run_paused_then_resume(settings):
    svc = make_service(settings)
    out = io.StringIO()
    assert ask(QUESTION, settings=settings, service=svc, out=out, input_fn=_inputs("n")) is None
    paused = svc.paused_runs()
    assert len(paused) == 1 and f"--resume {paused[0].id}" in out.getvalue()
    record = ask(None, settings=settings, resume=paused[0].id, service=svc, out=io.StringIO(),
                 input_fn=_inputs("y"))
    assert record.status == "done" and svc.paused_runs() == []


def test_interactive_edit_with_a_bad_then_a_good_plan(settings):
    svc = make_service(settings)
    edits = iter([
        [{"sub_question": "", "tool": "filing_search"}],
        [{"sub_question": "What did Rival announce?", "tool": "web_search",
          "keywords": ["Rival"]}],
    ])

    def edit(path: Path) -> None:
        path.write_text(json.dumps(next(edits)))

    out = io.StringIO()
    record = ask(QUESTION, settings=settings, service=svc, out=out,
                 input_fn=_inputs("e", "", "e", "", on_edit=edit))
    assert "The edited plan has problems" in out.getvalue()
    assert "step 1: the sub-question is empty" in out.getvalue()
    assert [s.sub_question for s in record.plan] == ["What did Rival announce?"]


def test_plan_file(settings, tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"steps": [{"sub_question": "Revenue growth?",
                                           "tool": "filing_search", "keywords": ["revenue"],
                                           "section": "Item 7"}]}))
    record = ask("How did revenue change?", settings=settings, plan_file=str(plan),
                 service=make_service(settings), out=io.StringIO())
    assert [s.section for s in record.plan] == ["Item 7. Management's Discussion and Analysis"]
    assert "$2.4 billion" in record.answer.text


def test_compare_prints_both_runs_with_costs(settings, hash_embedder):
    from core.app.corpus import Corpus
    from core.app.research import ResearchService

    corpus = Corpus(settings, embedder=hash_embedder)
    corpus.ingest_path(ROOT / "data" / "sample" / "northwind-10k-fy2024.htm")
    svc = ResearchService.from_corpus(settings, corpus,
                                      web=SnapshotWebSearch(ROOT / "data" / "web_snapshot"))
    out = io.StringIO()
    base, deep = compare("What are Northwind's key competition risks?", settings=settings,
                         service=svc, corpus=corpus, out=out)
    text = out.getvalue()
    assert "=== Answer (baseline," in text and "=== Answer (deep," in text
    assert "time (s)  LLM calls  tokens  citations" in text
    assert load_run(settings, base.id).kind == "baseline" and load_run(settings, deep.id)


def test_every_event_type_has_a_line_or_is_the_answer(settings):
    record = make_service(settings).ask(QUESTION)
    for ev in record.events:
        line = format_event(ev)
        assert (line is None) == (ev.type == "answer_ready")
