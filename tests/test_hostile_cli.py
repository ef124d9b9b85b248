"""Issue 22: faults a user can cause from the command line and the environment end in one
line that says what to do, a non-zero exit, and the data folder as it was; a deleted filing
leaves nothing behind."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.app.corpus import Corpus
from core.app.runs import list_runs, load_run, save_run, unreadable_runs
from core.cli.agent import ask, compare
from core.foundation.config import SettingsError, load_settings
from core.foundation.errors import AppError, IngestError
from core.store.files import originals_dir
from testkit.agent_fakes import make_service

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample" / "northwind-10k-fy2024.htm"


def _cli(*args: str, data_dir: Path, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("DTR_")}
    full.update(DTR_DATA_DIR=str(data_dir), HF_HUB_OFFLINE="1", **(env or {}))
    return subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, env=full,
                          capture_output=True, text=True, timeout=300)


BAD_SETTINGS = {
    "DTR_MAX_FILE_MB=inf": ({"DTR_MAX_FILE_MB": "inf"}, "DTR_MAX_FILE_MB"),
    "overlap over size": ({"DTR_CHUNK_SIZE": "500", "DTR_CHUNK_OVERLAP": "800"},
                          "DTR_CHUNK_OVERLAP (800) must be smaller than DTR_CHUNK_SIZE (500)"),
    "javascript: LLM URL": ({"DTR_LLM_BASE_URL": "javascript:alert(1)"},
                            "DTR_LLM_BASE_URL='javascript:alert(1)' is not valid: expected an "
                            "http:// or https:// URL"),
    "missing model folder": ({"DTR_EMBEDDING_MODEL": "/nonexistent/model"},
                             "DTR_EMBEDDING_MODEL='/nonexistent/model' is not valid: no model"),
    "model name not cached": ({"DTR_EMBEDDING_MODEL": "hash-256"},
                              "DTR_EMBEDDING_MODEL='hash-256' is not valid: no model folder of "
                              "that name"),
    "hub model not cached": ({"DTR_EMBEDDING_MODEL": "acme/no-such-model"},
                             "it is not in the local model cache"),
    "unknown bundled model": ({"DTR_EMBEDDING_MODEL": "bundled:all-mpnet-base-v2"},
                              "the only bundled model is all-MiniLM-L6-v2"),
}


@pytest.mark.parametrize("case", sorted(BAD_SETTINGS))
def test_a_bad_setting_is_one_line_naming_it(monkeypatch, tmp_path, case):
    env, words = BAD_SETTINGS[case]
    monkeypatch.setenv("DTR_DATA_DIR", str(tmp_path / "store"))
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(SettingsError) as err:
        load_settings(_env_file=None)
    assert words in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(("where", "words"), [
    ("/etc/passwd", "DTR_DATA_DIR='/etc/passwd' is not a folder"),
    ("/proc/nope/store", "DTR_DATA_DIR='/proc/nope/store' cannot be created"),
])
def test_a_data_folder_that_cannot_be_one_is_named_not_a_traceback(tmp_path, where, words):
    out = _cli("docs", data_dir=Path(where))
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert words in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_urls_of_any_case_or_scheme_are_not_read_as_local_paths(tmp_path):
    out = _cli("ingest", "file:///etc/passwd", "HTTP://127.0.0.1:9/x.htm", data_dir=tmp_path)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "Only http(s) URLs can be ingested, not 'file'" in out.stderr
    assert "File not found" not in out.stderr  # HTTP:// went to the fetcher, not the disk
    assert not (tmp_path / "originals").exists()


def test_a_pipe_or_device_is_not_called_a_folder(settings, hash_embedder, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    corpus = Corpus(settings, embedder=hash_embedder)
    for path in (fifo, Path("/dev/zero")):
        with pytest.raises(IngestError, match="not a regular file"):
            corpus.ingest_path(path)
    with pytest.raises(IngestError, match="is a folder"):
        corpus.ingest_path(tmp_path)


def test_compare_refuses_an_empty_question_before_running_anything(settings):
    svc = make_service(settings)
    with pytest.raises(AppError, match="The question is empty"):
        compare("  ", settings=settings, service=svc, corpus=object(), out=io.StringIO())
    assert list_runs(settings) == []


def test_resuming_a_run_that_does_not_exist_fails(settings):
    with pytest.raises(AppError, match="No run nope-123"):
        ask(None, settings=settings, resume="nope-123", service=make_service(settings),
            out=io.StringIO())


def test_a_truncated_run_record_is_reported_not_hidden(settings, capsys):
    from core.cli.agent import cmd_runs

    record = make_service(settings).ask("What drove Acme's revenue in fiscal 2023?")
    path = settings.runs_dir / f"{record.id}.json"
    body = path.read_text()
    path.write_text(body[: len(body) // 2])
    with pytest.raises(AppError, match=f"The record of run {record.id} .* cannot be read"):
        load_run(settings, record.id)
    assert unreadable_runs(settings) == [record.id]
    args = type("A", (), {"show": None, "export": None, "delete": None, "format": "md"})()
    assert cmd_runs(args, settings) == 0
    assert f"1 run record(s) cannot be read and are not listed: {record.id}" in \
        capsys.readouterr().err
    assert path.read_text() == body[: len(body) // 2]  # left as it was


def test_deleting_a_filing_removes_its_original_and_baseline_pieces(settings, hash_embedder):
    from core.baseline.index import build_doc, missing

    corpus = Corpus(settings, embedder=hash_embedder)
    doc = corpus.ingest_path(SAMPLE).meta
    assert list(originals_dir(settings).glob(f"{doc.doc_id}.*"))
    build_doc(corpus.store, hash_embedder, doc, settings)
    assert missing(settings, hash_embedder, [doc]) == []
    corpus.delete(doc.doc_id)
    assert list(originals_dir(settings).glob(f"{doc.doc_id}.*")) == []
    assert list((settings.data_dir / "baseline" / "docs").glob("*")) == []


def test_the_cli_delete_removes_the_original(tmp_path):
    assert _cli("ingest", str(SAMPLE), data_dir=tmp_path).returncode == 0
    [original] = list((tmp_path / "originals").iterdir())
    doc_id = original.name.split(".")[0]
    out = _cli("delete", doc_id, data_dir=tmp_path)
    assert out.returncode == 0 and f"deleted {doc_id}" in out.stdout
    assert list((tmp_path / "originals").iterdir()) == []


def test_an_ingest_that_fails_while_storing_leaves_no_original(settings, hash_embedder,
                                                               monkeypatch):
    corpus = Corpus(settings, embedder=hash_embedder)

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # what a kill during embedding looks like to this process

    monkeypatch.setattr(corpus.store, "add", killed)
    with pytest.raises(KeyboardInterrupt):
        corpus.ingest_path(SAMPLE)
    assert not originals_dir(settings).exists() or list(originals_dir(settings).iterdir()) == []


def test_opening_the_corpus_sweeps_originals_no_document_owns(settings, hash_embedder):
    corpus = Corpus(settings, embedder=hash_embedder)
    kept = corpus.ingest_path(SAMPLE).meta
    orphan = originals_dir(settings) / ("ab" * 8 + ".pdf")  # left by a killed ingest
    orphan.write_bytes(b"%PDF-1.7 confidential")
    stray = originals_dir(settings) / "notes.txt"  # not ours: never touched
    stray.write_text("x")
    Corpus(settings, embedder=hash_embedder)  # the next start
    assert not orphan.exists() and stray.exists()
    assert list(originals_dir(settings).glob(f"{kept.doc_id}.*"))


def test_a_file_over_the_limit_is_measured_in_mib(settings, hash_embedder, tmp_path):
    big = tmp_path / "big.htm"
    big.write_bytes(b"<html>" + b"x" * (3 * 1024 * 1024) + b"</html>")
    corpus = Corpus(settings.model_copy(update={"max_file_mb": 2.0}), embedder=hash_embedder)
    with pytest.raises(IngestError, match=r"big.htm is 3.0 MiB, over the 2 MiB limit"):
        corpus.ingest_path(big)


def test_re_ingesting_with_other_metadata_corrects_it_and_says_so(tmp_path):
    assert _cli("ingest", str(SAMPLE), data_dir=tmp_path).returncode == 0
    out = _cli("ingest", str(SAMPLE), "--company", "Northwind Holdings", "--period", "FY2025",
               data_dir=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "already in the corpus; corrected company, period: Northwind Holdings 10-K FY2025" \
        in out.stdout
    docs = _cli("docs", data_dir=tmp_path)
    assert "Northwind Holdings" in docs.stdout and "FY2025" in docs.stdout


def test_a_team_database_never_reached_is_not_called_lost():
    from core.store.pg import DatabaseUnavailable, get_pool

    with pytest.raises(DatabaseUnavailable) as err:
        get_pool("postgresql://analyst:secret@127.0.0.1:9/filings")
    message = str(err.value)
    assert message.startswith("Cannot reach the team database at 127.0.0.1:9")
    assert "Lost" not in message and "secret" not in message and "\n" not in message


def test_a_run_whose_process_died_is_listed_as_interrupted(settings, capsys):
    from core.app.runs import shown_status
    from core.cli.agent import cmd_runs

    record = make_service(settings).ask("What drove Acme's revenue in fiscal 2023?")
    killed = record.model_copy(update={"id": record.id[:-4] + "dead", "status": "running",
                                       "created": "2026-01-01T09:00:00+00:00"})
    live = record.model_copy(update={"id": record.id[:-4] + "live", "status": "running"})
    for r in (killed, live):
        save_run(r, settings)
    assert shown_status(killed, settings) == "interrupted"
    assert shown_status(live, settings) == "running"  # started just now: may be running
    args = type("A", (), {"show": None, "export": None, "delete": None, "format": "md"})()
    cmd_runs(args, settings)
    out = capsys.readouterr().out
    assert f"{killed.id}  deep     interrupted" in out and f"{live.id}  deep     running" in out
