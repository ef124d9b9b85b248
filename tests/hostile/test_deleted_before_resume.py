"""A paused plan whose filing is deleted before it is approved (issue 38 item 11): its
figure look-up said "no FY2023 revenue in the filings loaded" (or that the filing holds no
financial statements), as if the company had none. Now the step and the answer say the
filing was deleted after the plan was made, as search steps already did. Questions from
slots: measure, order of the companies, which company's filing goes."""

from __future__ import annotations

import json

import pytest

from core.foundation.config import Settings
from core.store.corpus_store import CorpusStore
from testkit.fakes.embedder import HashEmbedder
from testkit.scenarios import service

FILES = ("nvda-10k-fy2023.html", "amd-10k-fy2025.htm")
NAMES = {"NVIDIA": "NVIDIA CORP", "AMD": "ADVANCED MICRO DEVICES"}


@pytest.mark.parametrize(("measure", "first", "second", "gone"), [
    ("revenue", "NVIDIA", "AMD", "AMD"),
    ("net income", "AMD", "NVIDIA", "AMD"),
    ("revenue", "AMD", "NVIDIA", "NVIDIA"),
])
def test_a_filing_deleted_before_approval_is_said_deleted(tmp_path, ingested_store, measure,
                                                          first, second, gone):
    dest = ingested_store(tmp_path / "store", *FILES)
    settings = Settings(data_dir=dest, cache_enabled=False, _env_file=None)
    embedder = HashEmbedder()
    store = CorpusStore(settings, embedder)
    try:
        svc = service(settings, store, embedder)
        thread, plan, _ = svc.start(f"Which had the higher {measure} in fiscal 2023, {first} "
                                    f"or {second}?")
        doc = next(d.doc_id for d in store.documents() if NAMES[gone] in d.company.upper())
        store.delete(doc)  # while the plan waits for review
        record = svc.resume(thread, json.dumps([s.model_dump() for s in plan])).run()
    finally:
        store.close()
    assert record.status == "done"
    text = record.answer.text
    assert "deleted after the plan was made" in text, text
    assert f"{measure} in the filings loaded" not in text, text
    assert "holds no financial statements" not in text
    found = [e for e in record.events if e.type == "facts_found" and e.missing]
    assert found and all("deleted after the plan was made" in m for e in found
                         for m in e.missing), [e.missing for e in found]
