"""Issue 22: a filing deleted while a run researches it. The run must not answer that
company's question from another company's filing: the step names the deleted filing and
finds nothing (its revisions never widen it to the other filings)."""

from __future__ import annotations

import json

import pytest

from core.foundation.config import Settings
from core.store.corpus_store import CorpusStore
from testkit.corpus import amd_10k, nvda_10k
from testkit.scenarios import QUESTION, service, two_step_plan


@pytest.fixture
def store(tmp_path, hash_embedder):
    s = CorpusStore(Settings(data_dir=tmp_path / "store", _env_file=None), hash_embedder)
    for meta, chunks in (nvda_10k(), amd_10k()):
        s.add(meta, chunks)
    yield s
    s.close()


def test_a_filing_deleted_during_the_run_is_never_replaced_by_another_companys(
        tmp_path, store, hash_embedder):
    settings = Settings(data_dir=tmp_path / "store", cache_enabled=False, max_revisions=4,
                        _env_file=None)
    svc = service(settings, store, hash_embedder)  # offline engine (no LLM configured)
    steps = two_step_plan(store)["steps"]  # step 1: NVIDIA's filing, step 2: AMD's
    amd = steps[1]["doc_ids"][0]
    thread_id, _, _ = svc.start(QUESTION)
    store.delete(amd)  # deleted while the run waits at review (after planning)
    record = svc.resume(thread_id, json.dumps(steps)).run()
    assert record.status == "done"
    amd_step = [h for h in record.history if h.step == 1]
    assert amd_step, record.history
    # main: "drop documents" widened step 2 to NVIDIA's filing and quoted it for AMD
    assert all(not h.evidence_ids for h in amd_step), [h.evidence_ids for h in amd_step]
    assert not [r for r in record.revisions if r.change.startswith("drop documents")]
    notes = [e.message for e in record.events if e.type == "warning"]
    assert any("AMD 10-K (amd-10k.htm) was deleted from the corpus during the run" in m
               and "not widened to other filings" in m for m in notes), notes
    nvda_step = [h for h in record.history if h.step == 0]
    assert nvda_step[-1].evidence_ids  # the other company's step is researched as before
