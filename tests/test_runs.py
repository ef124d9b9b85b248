"""Run records: save, list, load, delete, export; keys never leak."""

from __future__ import annotations

import json

import pytest

from core.app.runs import (
    RunRecord,
    delete_run,
    export_json,
    export_markdown,
    list_runs,
    load_run,
    save_run,
)
from core.foundation.errors import AppError
from core.store.checkpoints import checkpoint_path
from testkit.agent_fakes import QUESTION, make_service
from testkit.fakes.chat_model import FakeChatModel

KEY = "sk-live-SECRET-0123456789abcdef"


def test_save_list_load_delete(settings):
    a = RunRecord(question="first", created="2026-01-01T00:00:00+00:00")
    b = RunRecord(question="second", kind="baseline", created="2026-01-02T00:00:00+00:00")
    for r in (a, b):
        save_run(r, settings)
    assert [r.question for r in list_runs(settings)] == ["second", "first"]
    assert [r.question for r in list_runs(settings, status="done")] == ["second", "first"]
    assert load_run(settings, a.id) == a
    assert delete_run(settings, a.id) and not delete_run(settings, a.id)
    with pytest.raises(AppError, match="No saved run"):
        load_run(settings, a.id)
    with pytest.raises(AppError, match="Invalid run id"):
        load_run(settings, "../../etc/passwd")


def test_a_deep_run_round_trips_with_typed_events(settings):
    record = make_service(settings).ask(QUESTION)
    loaded = load_run(settings, record.id)
    assert loaded == record
    assert [type(e).__name__ for e in loaded.events][:3] == \
        ["RouteChosen", "PlanProposed", "PlanApproved"]
    md = export_markdown(loaded, settings)
    assert md.startswith(f"# {QUESTION}") and "## Sources" in md and "[1]" in md
    assert "## Plan" in md and "Item 1A. Risk Factors" in md
    data = json.loads(export_json(loaded, settings))
    assert data["kind"] == "deep" and data["answer"]["citations"]


def test_keys_never_appear_in_records_exports_or_checkpoints(settings):
    s = settings.model_copy(update={"llm_api_key": KEY, "tavily_api_key": "tvly-SECRETKEY42"})
    llm = FakeChatModel()
    # every call fails with an error that quotes the key (as some SDK errors do)
    llm.default = RuntimeError(f"401 Unauthorized: bad key {KEY} / tvly-SECRETKEY42")
    svc = make_service(s, llm=llm)
    record = svc.ask(QUESTION)
    assert record.status == "done" and record.answer.source == "offline"
    assert any("offline rule" in w for w in record.warnings)
    assert any("***" in w for w in record.warnings)
    texts = [export_json(record, s), export_markdown(record, s),
             (s.runs_dir / f"{record.id}.json").read_text(), record.model_dump_json(),
             repr(s)]
    texts += [checkpoint_path(s).read_bytes().decode("latin-1")]
    for text in texts:
        assert KEY not in text and "tvly-SECRETKEY42" not in text
