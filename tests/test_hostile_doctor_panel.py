"""Issue 22: the Library's "Check the corpus" panel runs the doctor: on a data folder with its
chroma/ deleted and a truncated run record it lists both, its Repair button mends them (the
vectors embedded again from the registry, no filing parsed), and a second check finds
nothing; vector search has hits again."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.app.corpus import Corpus
from core.foundation.config import Settings
from core.store.vectors import get_client, reopen_client
from testkit.agent_fakes import make_service
from tests.test_app import APP, TIMEOUT, app_env, ok, texts  # noqa: F401  (fixture)

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "northwind-10k-fy2024.htm"


@pytest.fixture
def damaged(app_env):  # noqa: F811
    from testkit.fakes.embedder import HashEmbedder

    settings = Settings(data_dir=app_env / "store", _env_file=None)
    corpus = Corpus(settings, embedder=HashEmbedder())
    corpus.ingest_path(SAMPLE)
    record = make_service(settings).ask("What drove Acme's revenue in fiscal 2023?")
    corpus.store.close()
    shutil.rmtree(settings.chroma_dir)
    reopen_client(settings, get_client(settings))  # as the app's process opens it
    run = settings.runs_dir / f"{record.id}.json"
    run.write_text(run.read_text()[:200])
    return settings, record.id


def test_the_library_panel_checks_and_repairs_the_corpus(damaged, monkeypatch):
    settings, run_id = damaged
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    ok(at.switch_page("app_pages/library.py").run())
    assert "Check the corpus" in [e.label for e in at.expander]
    ok(at.button(key="lib_doctor_check").click().run())
    shown = texts(at)
    assert "vectors: 35 chunk(s) of 1 filing(s) have no vector" in shown, shown
    assert f"run record: {run_id} cannot be read" in shown
    assert (settings.runs_dir / f"{run_id}.json").exists()  # checking changes nothing

    from core.ingest import pipeline

    monkeypatch.setattr(pipeline, "prepare", lambda *a, **k: pytest.fail("parsed again"))
    ok(at.button(key="lib_doctor_repair").click().run())
    shown = texts(at)
    assert "repaired: 35 chunks of 1 filing(s) embedded again from the registry" in shown
    assert f"repaired: moved to runs/quarantine/{run_id}.json" in shown
    assert "2 problem(s) repaired" in shown
    ok(at.button(key="lib_doctor_check").click().run())
    assert "Nothing wrong (checkpoints, cache, registry, keyword index, vectors, facts, " \
        "originals, run records checked)." in texts(at)

    from testkit.fakes.embedder import HashEmbedder

    vec = Corpus(settings, embedder=HashEmbedder(), sweep=False).search(
        "Northwind revenue", strategy="vector", k=3)
    assert vec.hits and vec.warnings == []


def test_the_library_panel_shows_what_the_keyword_index_is_missing(app_env, monkeypatch):  # noqa: F811
    """Chunks the registry lost (rows deleted by hand) and no kept original to read them
    from: the panel says the filing must be ingested again; nothing here can repair it, so
    no Repair button (with the original, issue 32's doctor reads them again)."""
    import sqlite3

    from testkit.fakes.embedder import HashEmbedder

    settings = Settings(data_dir=app_env / "store", _env_file=None)
    corpus = Corpus(settings, embedder=HashEmbedder())
    doc = corpus.ingest_path(SAMPLE).meta
    corpus.store.close()
    from core.store import files

    files.remove_original(settings, doc.doc_id)  # and its source: no file to read it from
    monkeypatch.setattr(files, "original_path", lambda *a, **k: None)
    with sqlite3.connect(settings.registry_path) as conn:
        conn.execute("DELETE FROM chunks WHERE doc_id = ? AND idx >= 30", (doc.doc_id,))
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    ok(at.switch_page("app_pages/library.py").run())
    ok(at.button(key="lib_doctor_check").click().run())
    assert f"keyword index: northwind-10k-fy2024.htm ({doc.doc_id}) has 30 of its 35 chunks " \
        "in the registry" in texts(at)
    assert "lib_doctor_repair" not in [b.key for b in at.button]


def test_the_library_says_when_figures_were_read_by_an_earlier_reader(app_env):  # noqa: F811
    """Facts kept from an earlier facts reader: the Library says so above the panel, the
    panel's repair reads them again, and the notice goes."""
    import sqlite3

    from testkit.fakes.embedder import HashEmbedder

    settings = Settings(data_dir=app_env / "store", _env_file=None)
    corpus = Corpus(settings, embedder=HashEmbedder())
    corpus.ingest_path(SAMPLE)
    corpus.close()
    with sqlite3.connect(settings.registry_path) as conn:
        conn.execute("UPDATE fact_docs SET reader = ''")
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    ok(at.switch_page("app_pages/library.py").run())
    notice = [w.value.replace("\\", "") for w in at.warning
              if "earlier version of the facts reader" in w.value]
    assert notice and "The figures of 1 filing(s) (northwind-10k-fy2024.htm)" in notice[0]
    ok(at.button(key="lib_doctor_check").click().run())
    assert "were read by an older release" in texts(at)
    ok(at.button(key="lib_doctor_repair").click().run())
    assert "facts read again from the kept original" in texts(at)
    assert not [w for w in at.warning if "earlier version of the facts reader" in w.value]
