"""Team mode (issue 12): registry, run records and checkpoints in a real PostgreSQL, vectors
on a real `chroma run`, both started on 127.0.0.1 by the fixtures below.

Each test gets a fresh database (and so its own Chroma collection). The other "app
process" is the CLI (`python -m core ...`) with its own, empty data folder: everything it
shares with this process goes through PostgreSQL and the Chroma server.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.foundation.config import Settings
from tests.pg_server import PgServer
from tests.test_chroma_outage import ChromaServer

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample" / "northwind-10k-fy2024.htm"  # Northwind Semiconductor
BOLT = ROOT / "tests" / "fixtures" / "ingest" / "paged_10k.htm"  # Bolt Fasteners


@pytest.fixture(scope="module")
def pg():
    server = PgServer()
    server.start()
    yield server
    from core.store.pg import close_pools

    close_pools()
    server.destroy()


@pytest.fixture(scope="module")
def chroma(tmp_path_factory):
    folder = tmp_path_factory.mktemp("chroma-team")
    server = ChromaServer(folder / "data", folder / "chroma.log")
    server.start()
    yield server
    server.kill()


@pytest.fixture
def team(pg, chroma, tmp_path) -> Settings:
    return Settings(data_dir=tmp_path / "here", database_url=pg.new_database(),
                    chroma_url=chroma.url, web_provider="none", _env_file=None)


def _cli(team: Settings, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, DTR_DATA_DIR=str(tmp_path / "other-process"), HF_HUB_OFFLINE="1",
               DTR_DATABASE_URL=str(team.database_url), DTR_CHROMA_URL=str(team.chroma_url),
               DTR_WEB_PROVIDER="none")
    out = subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stdout[-1500:] + out.stderr[-2000:]
    return out


def test_team_storage_keeps_runs_notes_and_registry_in_postgres(team):
    from core.app.run_index import load_note, set_tags, summaries
    from core.app.runs import RunRecord, delete_run, list_runs, load_run, save_run
    from core.store.storage import storage_for

    assert storage_for(team).kind == "team"
    record = RunRecord(question="What changed?", status="done")
    save_run(record, team)
    set_tags(team, record.id, ["board"])
    elsewhere = team.model_copy(update={"data_dir": team.data_dir.parent / "elsewhere"})
    assert load_run(elsewhere, record.id).question == "What changed?"
    assert [r.id for r in list_runs(elsewhere)] == [record.id]
    assert load_note(elsewhere, record.id).tags == ["board"]
    assert summaries(elsewhere)[0].tags == ["board"]
    assert not (team.data_dir / "runs").exists()  # nothing written locally
    assert delete_run(elsewhere, record.id) and list_runs(team) == []


def test_keyword_search_is_the_same_in_both_modes(team, settings, hash_embedder):
    from core.app.corpus import Corpus

    results = []
    for s in (settings, team):
        corpus = Corpus(s, embedder=hash_embedder)
        try:
            corpus.ingest_path(SAMPLE)
            hits = corpus.search("competition export controls", strategy="keyword", k=8,
                                 scope="all", rerank=False).hits
            results.append([(h.chunk.chunk_id, round(h.score, 6)) for h in hits])
        finally:
            corpus.close()
    assert results[0] and results[0] == results[1]


@pytest.mark.slow
def test_two_processes_share_one_team_corpus_and_its_runs(team, real_embedder, tmp_path):
    from core.app.corpus import Corpus
    from core.app.research import ResearchService
    from core.app.runs import list_runs, load_run

    corpus = Corpus(team, embedder=real_embedder)  # this process: one Corpus, as the app holds
    try:
        north = corpus.ingest_path(SAMPLE).meta.doc_id
        _cli(team, tmp_path, "ingest", str(BOLT))  # the other process adds a filing
        bolt = next(d.doc_id for d in corpus.documents() if d.doc_id != north)
        for strategy in ("vector", "keyword", "hybrid"):
            hits = corpus.search("aerospace fasteners rivets", strategy=strategy, k=8,
                                 scope="all", rerank=False).hits
            assert bolt in {h.chunk.doc_id for h in hits}, strategy

        _cli(team, tmp_path, "delete", north)  # ... and deletes the one this process added
        for strategy in ("vector", "keyword", "hybrid"):
            hits = corpus.search("aerospace fasteners and semiconductors", strategy=strategy, k=8,
                                 scope="all", rerank=False).hits
            assert {h.chunk.doc_id for h in hits} == {bolt}, strategy

        # A plan paused here is approved and finished by the other process.
        service = ResearchService.from_corpus(team, corpus)
        run_id, plan, _ = service.start("What are Bolt Fasteners' main risks?")
        assert plan
        listed = _cli(team, tmp_path, "runs")
        assert run_id in listed.stdout
        done = _cli(team, tmp_path, "ask", "--resume", run_id, "--approve")
        assert "Error finding id" not in done.stdout + done.stderr
        record = load_run(team, run_id)
        assert record.status == "done" and record.answer is not None
        assert record.evidence and {e.doc_id for e in record.evidence} == {bolt}
        assert run_id in [r.id for r in list_runs(team)]
        assert not service._waiting(run_id)
    finally:
        corpus.close()


@pytest.mark.slow
def test_postgres_restart_mid_run_gives_one_line_and_the_run_continues(
        team, pg, hash_embedder, capfd):
    from core.app.corpus import Corpus
    from core.app.research import ResearchService
    from core.app.run_index import summaries
    from core.app.runs import load_run

    corpus = Corpus(team, embedder=hash_embedder)
    corpus.ingest_path(SAMPLE)
    service = ResearchService.from_corpus(team, corpus)
    run_id, _, _ = service.start("What are Northwind's key competition risks?")
    search, calls = corpus.retriever.search, []

    def search_then_lose_postgres(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            pg.stop("fast")  # PostgreSQL goes away in the middle of the run
        return search(*args, **kwargs)

    corpus.retriever.search = search_then_lose_postgres
    try:
        failed = service.resume(run_id).run()
    finally:
        if calls:
            pg.start()
    assert failed.status == "failed"
    assert failed.error.startswith(f"Lost the team database at 127.0.0.1:{pg.port}/")
    assert "\n" not in failed.error and "dtr@" not in failed.error
    assert "Traceback" not in capfd.readouterr().err

    waiting = {r.id for r in service.paused_runs()}  # PostgreSQL is back: the run is listed
    assert summaries(team, waiting=waiting)[0].status == "interrupted"
    record = service.continue_run(run_id).run()
    assert record.status == "done" and record.answer is not None and record.answer.text
    assert load_run(team, run_id).status == "done"
    corpus.close()


def test_team_settings_are_checked_in_one_line_without_the_password():
    from core.foundation.config import SettingsError, load_settings

    with pytest.raises(SettingsError, match="needs the shared Chroma server too"):
        load_settings(_env_file=None, database_url="postgresql://u:pw@h/db")
    with pytest.raises(SettingsError) as bad:
        load_settings(_env_file=None, database_url="mysql://u:hunter2@h/db",
                      chroma_url="http://127.0.0.1:1")
    assert "DTR_DATABASE_URL" in str(bad.value) and "hunter2" not in str(bad.value)


def test_an_unreachable_database_is_one_line(tmp_path):
    from core.foundation.errors import StoreError
    from core.store.storage import storage_for
    from tests.pg_server import _free_port

    s = Settings(data_dir=tmp_path, database_url=f"postgresql://u:pw@127.0.0.1:{_free_port()}/x",
                 chroma_url="http://127.0.0.1:1", _env_file=None)
    with pytest.raises(StoreError) as lost:
        storage_for(s).runs()
    assert str(lost.value).startswith("Lost the team database at 127.0.0.1:")
    assert "\n" not in str(lost.value) and "pw" not in str(lost.value)


def test_a_document_left_pending_by_a_dead_writer_is_purged(team, hash_embedder):
    import psycopg

    from core.app.corpus import Corpus
    from core.store.documents_pg import PgRegistry
    from testkit.corpus import nvda_10k

    PgRegistry(str(team.database_url))  # tables
    meta, chunks = nvda_10k()
    writer = psycopg.connect(str(team.database_url))  # another machine's process, then it dies
    with writer.transaction():
        writer.execute("INSERT INTO documents (doc_id, meta, status, pid, seq) VALUES "
                       "(%s, %s, 'pending', pg_backend_pid(), 1)",
                       (meta.doc_id, meta.model_dump_json()))
    writer.close()
    corpus = Corpus(team, embedder=hash_embedder)
    try:
        assert corpus.store.registry.status(meta.doc_id) is None
        assert corpus.documents() == []
    finally:
        corpus.close()
