"""Issue 22: ``python -m core doctor`` finds what is missing, orphaned or corrupt in a data
folder and ``--repair`` mends what can be mended without losing data (vectors come back from
the registry's chunk texts: no filing is parsed again); search says when vectors are lost."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from core.app.corpus import Corpus
from core.app.doctor import examine, repair
from core.app.runs import list_runs
from core.foundation.errors import StoreError
from core.store.vectors import get_client, reopen_client
from testkit.agent_fakes import make_service

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample" / "northwind-10k-fy2024.htm"


@pytest.fixture
def damaged(settings, hash_embedder):
    """A data folder with its chroma/ deleted, a truncated run record and an orphan."""
    corpus = Corpus(settings, embedder=hash_embedder)
    doc = corpus.ingest_path(SAMPLE).meta
    record = make_service(settings).ask("What drove Acme's revenue in fiscal 2023?")
    corpus.store.close()
    shutil.rmtree(settings.chroma_dir)
    reopen_client(settings, get_client(settings))  # as the next process opens it
    run = settings.runs_dir / f"{record.id}.json"
    run.write_text(run.read_text()[:200])
    orphan = settings.data_dir / "originals" / ("cd" * 8 + ".pdf")
    orphan.write_bytes(b"%PDF-1.7 left by a killed ingest")
    return doc, record.id, orphan


def _open(settings, embedder):
    return lambda: Corpus(settings, embedder=embedder, sweep=False).store


def test_the_doctor_reports_lost_vectors_a_truncated_record_and_an_orphan(
        settings, hash_embedder, damaged, monkeypatch):
    doc, run_id, orphan = damaged
    from core.ingest import pipeline

    monkeypatch.setattr(pipeline, "prepare", lambda *a, **k: pytest.fail("parsed again"))
    report = examine(settings, _open(settings, hash_embedder))
    lines = [f.line() for f in report.findings]
    assert any(line.startswith("vectors: 35 chunk(s) of 1 filing(s) have no vector")
               for line in lines)
    assert any(line.startswith(f"run record: {run_id} cannot be read") for line in lines)
    assert any(line.startswith(f"original: {orphan.name} belongs to no document")
               for line in lines)
    assert not report.ok and orphan.exists()  # examining changes nothing

    corpus = Corpus(settings, embedder=hash_embedder, sweep=False)
    result = corpus.search("Northwind revenue", strategy="hybrid", k=3)
    assert result.hits and "keyword-only" in result.warnings[0]
    assert all("vector" not in h.stages for h in result.hits)
    corpus.store.close()

    fixed = repair(examine(settings, _open(settings, hash_embedder)))
    assert fixed.ok and len(fixed.findings) == 3
    assert not orphan.exists()
    assert (settings.runs_dir / "quarantine" / f"{run_id}.json").exists()
    assert list_runs(settings) == []  # the unreadable record is kept aside, not listed
    assert examine(settings, _open(settings, hash_embedder)).findings == []
    again = Corpus(settings, embedder=hash_embedder)
    vec = again.search("Northwind revenue", strategy="vector", k=3)
    assert vec.hits and vec.warnings == [] and all("vector" in h.stages for h in vec.hits)
    assert vec.hits[0].chunk.doc_id == doc.doc_id


def test_corrupt_sqlite_files_are_named_and_moved_aside_not_read_as_tracebacks(
        settings, hash_embedder):
    from core.app.checkpointing import open_checkpointer

    Corpus(settings, embedder=hash_embedder).ingest_path(SAMPLE)
    for name in ("checkpoints.sqlite", "cache.sqlite"):
        (settings.data_dir / name).write_bytes(b"not a database " * 100)
    with pytest.raises(StoreError, match="checkpoints file .* cannot be read"):
        open_checkpointer(settings)
    report = examine(settings, _open(settings, hash_embedder))
    assert {f.what for f in report.findings} == {"checkpoints", "cache"}
    repair(report)
    assert (settings.data_dir / "checkpoints.sqlite.corrupt").exists()
    assert open_checkpointer(settings) is not None  # a fresh file


def test_a_corrupt_registry_is_reported_never_touched(settings, hash_embedder, capsys):
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    settings.registry_path.write_bytes(b"garbage " * 512)
    with pytest.raises(StoreError, match="The registry .* cannot be read"):
        Corpus(settings, embedder=hash_embedder)
    report = repair(examine(settings, _open(settings, hash_embedder)))
    [finding] = [f for f in report.findings if f.what == "registry"]
    assert not finding.repaired and "restore it from a backup" in finding.problem
    assert settings.registry_path.read_bytes() == b"garbage " * 512
    with pytest.raises(sqlite3.DatabaseError):
        sqlite3.connect(settings.registry_path).execute("SELECT 1 FROM documents")
