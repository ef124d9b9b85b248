"""``python -m core doctor`` checks every store against the others and ``--repair`` mends
each without loss (issue 32), on a corpus of three filings (the sample iXBRL 10-K, a
table-only 10-K, and a long filing so that Chroma flushes its vectors into a segment):

* a deleted vector segment (``chroma/<uuid>/``, ``chroma.sqlite3`` kept): main said "nothing
  wrong" while vector search answered from the few vectors Chroma had not flushed;
* a deleted keyword index (the registry's ``chunks`` table: the texts BM25 indexes);
* a deleted facts table;
* a paused run whose checkpoint is gone, and vectors no document owns."""

from __future__ import annotations

import random
import shutil
import sqlite3

import pytest

from core.app.corpus import Corpus
from core.app.doctor import examine, repair
from core.foundation.config import Settings
from core.store.vectors import get_client, reopen_client
from testkit.filings import Filing
from tests.hostile.kit import HALFWAY_10K, SAMPLE

WORDS = ("revenue margin supply competition customers wafer datacenter growth inventory "
         "pricing export foundry").split()


def _long_filing() -> Filing:
    rng = random.Random(7)
    rows = [(f"Item {k % 3 + 1}. Part {k}", " ".join(rng.choice(WORDS) for _ in range(30)))
            for k in range(650)]
    return Filing("gamma-10k-2023.htm", "GAMMA SYSTEMS CORP", "10-K", "2023-12-31", 2023,
                  "FY", rows, cik="0000000033", ticker="GMS")


def _settings(root) -> Settings:
    return Settings(data_dir=root / "store", cache_enabled=False, chunk_size=200,
                    chunk_overlap=0, _env_file=None)


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """The three filings ingested once; each test damages a copy."""
    from testkit.fakes.embedder import HashEmbedder

    root = tmp_path_factory.mktemp("three")
    settings = _settings(root)
    corpus = Corpus(settings, embedder=HashEmbedder())
    corpus.ingest_path(SAMPLE)
    corpus.ingest_bytes(HALFWAY_10K.encode(), "halfway-10k-2024.htm")
    long = _long_filing()
    corpus.ingest_bytes(long.html(), long.file_name)
    corpus.close()
    reopen_client(settings, get_client(settings))
    return root


@pytest.fixture
def copy(template, tmp_path, hash_embedder):
    shutil.copytree(template / "store", tmp_path / "store")
    settings = _settings(tmp_path)
    return settings, lambda: Corpus(settings, embedder=hash_embedder, sweep=False)


def _opened(open_corpus):
    corpus = open_corpus()
    return corpus, lambda: corpus.store


def _state(corpus) -> dict:
    """What the corpus holds, to compare before the damage and after the repair."""
    store = corpus.store
    docs = store.documents()
    ids = [c.chunk_id for c in store.chunks()]
    return {"docs": [(d.doc_id, d.company, d.n_chunks) for d in docs],
            "chunks": [(c.chunk_id, c.text, c.statement) for c in store.chunks()],
            "facts": sorted((f.fact_id, f.value) for f in store.facts()),
            "vectors": len(store.vectors.readable(ids)),
            "keyword": store.keyword_search("revenue margin", k=5)}


def _damaged(copy, *statements: str) -> tuple:
    """(settings, open_corpus, the corpus's state before) once ``statements`` ran on the
    copy's registry (SQL, as a damage or an older release would leave it)."""
    settings, open_corpus = copy
    corpus = open_corpus()
    before = _state(corpus)
    corpus.close()
    with sqlite3.connect(settings.registry_path) as conn:
        conn.executescript(";".join(statements))
    return settings, open_corpus, before


def _lines(report, what=None) -> list[str]:
    return [f.line() for f in report.findings if what is None or f.what == what]


def _repaired_and_clean(settings, open_corpus, before):
    corpus, opener = _opened(open_corpus)
    fixed = repair(examine(settings, opener))
    assert fixed.ok, _lines(fixed)
    corpus.close()
    corpus, opener = _opened(open_corpus)
    assert examine(settings, opener).findings == []
    assert _state(corpus) == before
    return corpus


def test_a_deleted_vector_segment_is_found_warned_and_reembedded(copy, monkeypatch):
    settings, open_corpus = copy
    corpus = open_corpus()
    before = _state(corpus)
    corpus.close()
    reopen_client(settings, get_client(settings))
    segments = [p for p in settings.chroma_dir.iterdir() if p.is_dir()]
    assert len(segments) == 1 and (settings.chroma_dir / "chroma.sqlite3").exists()
    shutil.rmtree(segments[0])
    reopen_client(settings, get_client(settings))  # as the next process opens it

    corpus, opener = _opened(open_corpus)
    assert corpus.store.vectors.count() == sum(d[2] for d in before["docs"])  # Chroma: fine
    report = examine(settings, opener)
    lines = _lines(report, "vectors")
    assert len(lines) == 1 and " have no vector (" in lines[0], _lines(report)
    assert "(--repair: embed the stored chunk texts again (no filing is parsed))" in lines[0]
    result = corpus.search("revenue margin", strategy="hybrid", k=3)
    assert "The vector index has lost the vectors of" in result.warnings[0]
    assert "doctor --repair" in result.warnings[0]
    corpus.close()

    from core.ingest import pipeline

    monkeypatch.setattr(pipeline, "prepare", lambda *a, **k: pytest.fail("parsed again"))
    corpus = _repaired_and_clean(settings, open_corpus, before)
    assert corpus.search("revenue margin", strategy="vector", k=3).warnings == []


def test_a_deleted_keyword_index_is_read_again_from_the_originals(copy):
    settings, open_corpus, before = _damaged(copy, "DROP TABLE chunks")

    corpus, opener = _opened(open_corpus)
    assert corpus.store.keyword_search("revenue margin", k=5) == []  # silently empty
    lines = _lines(examine(settings, opener), "keyword index")
    assert len(lines) == 3 and all(" has 0 of its " in line and "(--repair: read them again "
                                   "from the kept original" in line for line in lines), lines
    corpus.close()
    _repaired_and_clean(settings, open_corpus, before)


def test_a_deleted_facts_table_is_read_again_from_the_originals(copy):
    settings, open_corpus = copy
    corpus = open_corpus()
    before = _state(corpus)
    assert len(before["facts"]) > 50
    corpus.close()
    with sqlite3.connect(settings.registry_path) as conn:
        conn.execute("DROP TABLE facts")

    corpus, opener = _opened(open_corpus)
    assert corpus.store.facts() == []
    lines = _lines(examine(settings, opener), "facts")
    assert len(lines) == 2, lines  # the long filing has no tables: 0 of its 0 facts
    assert all(" facts (figure questions cannot find the others) (--repair: read them again "
               "from the kept original)" in line for line in lines), lines
    corpus.close()
    _repaired_and_clean(settings, open_corpus, before)


def test_a_deleted_facts_index_table_too_is_extracted_again(copy):
    settings, open_corpus, before = _damaged(copy, "DROP TABLE facts", "DROP TABLE fact_docs")
    corpus, opener = _opened(open_corpus)
    lines = _lines(examine(settings, opener), "facts")
    assert len(lines) == 3 and all("has no facts extracted" in line for line in lines), lines
    corpus.close()
    _repaired_and_clean(settings, open_corpus, before)


def test_facts_read_by_another_reader_are_named_and_read_again(copy):
    """Facts kept from another version of the facts reader (a changed catalogue, a newer
    reader) are named with both versions and read again; a registry of a release before the
    reader was kept gets the column, its facts named as read by an older release."""
    from core.ingest.facts import reader_version

    settings, open_corpus, before = _damaged(copy, "UPDATE fact_docs SET reader = '0123abcd4567'")
    corpus, opener = _opened(open_corpus)
    lines = _lines(examine(settings, opener), "facts")
    assert len(lines) == 3 and all(
        f"facts were read by another version of the facts reader (0123abcd4567, this one is "
        f"{reader_version()}); figure answers can miss or mis-state" in line and
        "(--repair: read them again from the kept original)" in line for line in lines), lines
    corpus.close()
    _repaired_and_clean(settings, open_corpus, before).close()

    with sqlite3.connect(settings.registry_path) as conn:  # the table as an older release made it
        conn.executescript("CREATE TABLE old_docs (doc_id TEXT PRIMARY KEY, n INTEGER NOT NULL);"
                           "INSERT INTO old_docs SELECT doc_id, n FROM fact_docs;"
                           "DROP TABLE fact_docs; ALTER TABLE old_docs RENAME TO fact_docs;")
    corpus, opener = _opened(open_corpus)
    assert set(corpus.store.registry.facts_readers().values()) == {""}
    lines = _lines(examine(settings, opener), "facts")
    assert len(lines) == 3 and all("were read by an older release" in line for line in lines)
    corpus.close()
    _repaired_and_clean(settings, open_corpus, before)


def test_vectors_no_document_owns_are_deleted(copy):
    settings, open_corpus = copy
    corpus = open_corpus()
    before = _state(corpus)
    doc = corpus.store.documents()[0]
    stray = [c.model_copy(update={"chunk_id": f"feedfacefeedface-{c.index:05d}",
                                  "doc_id": "feedfacefeedface"})
             for c in corpus.store.chunks(doc.doc_id)[:4]]
    corpus.store.vectors.add(stray, corpus.store._embed([c.text for c in stray]))
    corpus.close()
    corpus, opener = _opened(open_corpus)
    assert _lines(examine(settings, opener), "vectors") == [
        "vectors: 4 vector(s) of 1 document(s) the registry does not hold: no text or filing "
        "goes with them (--repair: delete them)"]
    corpus.close()
    _repaired_and_clean(settings, open_corpus, before)


def test_a_paused_run_whose_checkpoint_is_gone_is_named_and_marked(settings, monkeypatch,
                                                                    capsys):
    from core.app.runs import load_run
    from core.cli.main import main
    from testkit.agent_fakes import make_service

    service = make_service(settings)
    record = service.ask("What drove Acme's revenue in fiscal 2023?", approve=False)
    assert record.status == "paused"
    service.close()
    (settings.data_dir / "checkpoints.sqlite").unlink()
    monkeypatch.setenv("DTR_DATA_DIR", str(settings.data_dir))
    assert main(["runs"]) == 0
    out = capsys.readouterr()
    assert f"{record.id}  deep     lost plan" in out.out
    assert "1 run(s) paused at plan review cannot be resumed" in out.err

    from core.app.doctor_stores import lost_checkpoints

    found = lost_checkpoints(settings)
    assert [f.line() for f in found] == [
        f"run record: {record.id} is paused at plan review but its checkpoint is gone: it "
        "cannot be resumed (--repair: mark it failed, with the reason)"]
    found[0].repair = found[0]._fix()
    kept = load_run(settings, record.id)
    assert kept.status == "failed" and "checkpoint was lost" in kept.error
    assert kept.plan == record.plan  # the record is kept, plan and all
    assert lost_checkpoints(settings) == []


def test_one_repair_mends_a_segment_the_chunks_and_the_facts_lost_together(copy):
    """A repair can uncover what it hid: with the chunk texts gone no vector is missing;
    once they are read again from the originals, the lost segment shows and is embedded."""
    from core.app.doctor import repair_until_sound

    settings, open_corpus = copy
    corpus = open_corpus()
    before = _state(corpus)
    corpus.close()
    reopen_client(settings, get_client(settings))
    shutil.rmtree(next(p for p in settings.chroma_dir.iterdir() if p.is_dir()))
    reopen_client(settings, get_client(settings))
    with sqlite3.connect(settings.registry_path) as conn:
        conn.execute("DROP TABLE chunks")
        conn.execute("DROP TABLE facts")
    corpus, opener = _opened(open_corpus)
    first = examine(settings, opener)
    assert _lines(first, "vectors") == [] and _lines(first, "keyword index")  # hidden
    fixed = repair_until_sound(settings, opener)
    assert fixed.ok and {f.what for f in fixed.findings} >= {"keyword index", "facts",
                                                             "vectors"}
    corpus.close()
    corpus, opener = _opened(open_corpus)
    assert examine(settings, opener).findings == [] and _state(corpus) == before
    corpus.close()
