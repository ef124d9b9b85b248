"""CorpusStore: registry, Chroma vectors, BM25 — against a local folder and a real Chroma server."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import numpy as np
import pytest

from core.foundation.config import Settings
from core.foundation.errors import StoreError
from core.store import corpus_store
from core.store.corpus_store import CorpusStore
from testkit.corpus import amd_10k, make_doc, nvda_10k, nvda_10q
from testkit.fakes.embedder import HashEmbedder
from tests.waiting import CEILING_S, GATE_S

ROOT = Path(__file__).resolve().parent.parent
CHROMA = Path(sys.executable).parent / "chroma"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory):
    """A real `chroma run` on 127.0.0.1, stopped afterwards."""
    port = _free_port()
    log = tmp_path_factory.mktemp("chroma-log") / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(CHROMA), "run", "--path", str(tmp_path_factory.mktemp("chroma-srv")),
             "--host", "127.0.0.1", "--port", str(port)],
            stdout=out, stderr=subprocess.STDOUT,
            env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + CEILING_S  # a bound on waiting for it to answer
        while True:
            try:
                if httpx.get(f"{url}/api/v2/heartbeat", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None:
                pytest.fail(f"chroma server exited: {log.read_text()[-2000:]}")
            if time.monotonic() > deadline:
                pytest.fail(f"chroma server did not answer within {CEILING_S:g} s")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(params=["local", pytest.param("server", marks=pytest.mark.slow)])
def mode(request):
    return request.param


@pytest.fixture
def make_settings(mode, tmp_path, request):
    """Settings factory for the mode: a local Chroma folder or the Chroma server."""
    url = request.getfixturevalue("chroma_server") if mode == "server" else None

    def make(name: str = "store") -> Settings:
        return Settings(data_dir=tmp_path / name, chroma_url=url, _env_file=None)

    return make


@pytest.fixture
def store(make_settings, hash_embedder):
    s = CorpusStore(make_settings(), hash_embedder)
    yield s
    s.close()


def test_add_list_get_and_reingest_is_idempotent(store):
    meta, chunks = nvda_10k()
    saved, added = store.add(meta, chunks)
    assert added and saved.n_chunks == len(chunks)
    again, added_again = store.add(meta, chunks)
    assert not added_again and again == saved
    assert [d.doc_id for d in store.documents()] == [meta.doc_id]
    assert store.vectors.count() == len(chunks)
    stored = store.chunks(meta.doc_id)
    assert [c.chunk_id for c in stored] == [c.chunk_id for c in chunks]
    assert stored[2].text == chunks[2].text and stored[2].page == 3
    ids = [chunks[4].chunk_id, "missing-00001", chunks[0].chunk_id]
    assert [c.chunk_id for c in store.get_chunks(ids)] == [ids[0], ids[2]]
    assert store.sections()[meta.doc_id] == [
        "Item 1. Business", "Item 1A. Risk Factors",
        "Item 7. Management's Discussion and Analysis", "Item 8. Financial Statements",
    ]
    assert [c.index for c in store.chunks(meta.doc_id, "Item 1A. Risk Factors")] == [2, 3]
    assert store.get_document(meta.doc_id).file_name == "nvda-10k.htm"


def test_many_filings_and_delete(store):
    for meta, chunks in (nvda_10k(), nvda_10q(), amd_10k()):
        store.add(meta, chunks)
    nvda, amd = nvda_10k()[0].doc_id, amd_10k()[0].doc_id
    assert len(store.documents()) == 3
    assert any(cid.startswith(amd) for cid, _ in store.keyword_search("Intel Nvidia", 10))
    store.delete(amd)
    store.delete("no-such-doc")  # no-op
    assert [d.doc_id for d in store.documents()] == [nvda, nvda_10q()[0].doc_id]
    assert store.chunks(amd) == [] and store.get_document(amd) is None
    assert store.vectors.count() == len(nvda_10k()[1]) + len(nvda_10q()[1])
    assert not any(cid.startswith(amd) for cid, _ in store.keyword_search("Intel Nvidia", 10))
    vec = store.embedder.encode(["Intel and Nvidia compete with us"])[0]
    assert not any(cid.startswith(amd) for cid, _ in store.vector_search(vec, 20))
    store.add(*amd_10k())  # re-ingest after delete works
    assert len(store.documents()) == 3


def test_filters_apply_inside_each_index(store):
    for meta, chunks in (nvda_10k(), amd_10k()):
        store.add(meta, chunks)
    nvda = nvda_10k()[0].doc_id
    # The best BM25 match for "revenue" lies outside Item 1A; with the section filter and
    # k=1 a risk-factor chunk still comes back (filtered before the cut, not after).
    best = store.keyword_search("revenue", 1, doc_ids=[nvda])
    assert store.get_chunks([best[0][0]])[0].section != "Item 1A. Risk Factors"
    risk = store.keyword_search("revenue", 1, sections=["Item 1A. Risk Factors"], doc_ids=[nvda])
    assert [cid for cid, _ in risk] in ([f"{nvda}-00002"], [f"{nvda}-00003"])
    only = store.keyword_search("revenue competition", 10, sections=["Item 1A. Risk Factors"])
    assert only and all(store.get_chunks([cid])[0].section == "Item 1A. Risk Factors"
                        for cid, _ in only)
    vec = store.embedder.encode(["revenue"])[0]
    hits = store.vector_search(vec, 10, doc_ids=[nvda], sections=["Item 8. Financial Statements"])
    assert [cid for cid, _ in hits] == [f"{nvda}-00005"]
    assert store.vector_search(vec, 10, doc_ids=[]) == []


def test_vectors_are_kept_and_returned(store, hash_embedder):
    meta, chunks = nvda_10k()
    store.add(meta, chunks)
    got = store.get_vectors([chunks[1].chunk_id, chunks[3].chunk_id])
    from core.store.index_text import index_text

    # What is embedded is the chunk under its context header (company, form, section...).
    want = hash_embedder.encode([index_text(chunks[1], meta), index_text(chunks[3], meta)])
    assert np.allclose(got[chunks[1].chunk_id], want[0], atol=1e-6)
    assert np.allclose(got[chunks[3].chunk_id], want[1], atol=1e-6)


def test_failure_mid_add_leaves_nothing_visible(store, monkeypatch):
    store.add(*amd_10k())
    meta, chunks = nvda_10k()
    real_add = store.vectors.add

    def half_then_fail(chs, vecs):
        real_add(chs[:3], vecs[:3])  # some vectors reach Chroma, then the "crash"
        raise RuntimeError("disk full")

    monkeypatch.setattr(store.vectors, "add", half_then_fail)
    store.keyword_search("revenue", 5)  # index built before the failed add
    with pytest.raises(StoreError, match="disk full"):
        store.add(meta, chunks)
    assert [d.doc_id for d in store.documents()] == [amd_10k()[0].doc_id]
    assert store.chunks(meta.doc_id) == [] and store.registry.status(meta.doc_id) is None
    assert store.vectors.count() == len(amd_10k()[1])
    assert all(not cid.startswith(meta.doc_id) for cid, _ in store.keyword_search("revenue", 20))
    monkeypatch.setattr(store.vectors, "add", real_add)
    assert store.add(meta, chunks)[1] is True


def test_vector_search_never_returns_chunks_of_pending_documents(store, monkeypatch):
    store.add(*amd_10k())
    amd = amd_10k()[0].doc_id
    text = "Intel and Nvidia compete with us aggressively; competition could reduce revenue."
    vec = store.embedder.encode([text])[0]
    rng = np.random.default_rng(0)
    filtered_calls = []
    real_query = store.vectors.query
    monkeypatch.setattr(store.vectors, "query",
                        lambda *a, **kw: filtered_calls.append(a) or real_query(*a, **kw))
    # Few pending hits: dropped from a slightly over-fetched query; more: from a wider one;
    # more than the widest over-fetch (_OPEN_MAX): the query listing the ready doc ids.
    for step, (n_pending, open_max, expect_clause) in enumerate(
            ((4, 1000, False), (40, 1000, False), (30, 20, True))):
        monkeypatch.setattr(corpus_store, "_OPEN_MAX", open_max)
        rows = [("Item 1A. Risk Factors", f"{text} ({i})") for i in range(n_pending)]
        meta, chunks = make_doc(f"pending-{step}.htm", rows)
        # Closer to the query than any ready chunk, yet apart from each other: near-identical
        # vectors make Chroma's HNSW graph lose nodes (even filtered queries miss ready ones).
        near = vec + rng.normal(0, 0.2 / np.sqrt(vec.size), (n_pending, vec.size))
        near /= np.linalg.norm(near, axis=1, keepdims=True)
        store.registry.write_pending(meta, chunks)  # half-added: vectors in, never marked ready
        store.vectors.add(chunks, near.astype(np.float32))
        filtered_calls.clear()
        for k in (1, 3, 5):
            hits = store.vector_search(vec, k)
            assert [cid.rsplit("-", 1)[0] for cid, _ in hits] == [amd] * min(k, 3)
            assert hits[0][0] == f"{amd}-00001"  # the closest ready chunk comes first
        assert bool(filtered_calls) is expect_clause
        assert store.vector_search(vec, 5, doc_ids=[meta.doc_id]) == []
        risk = store.vector_search(vec, 5, sections=["Item 1A. Risk Factors"])
        assert [cid for cid, _ in risk] == [f"{amd}-00001"]
    assert len(store.vector_search(vec, 2, doc_ids=[amd])) == 2


def test_killed_process_mid_add_is_purged_on_open(make_settings, hash_embedder):
    settings = make_settings("killed")
    script = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from pathlib import Path
        from core.foundation.config import Settings
        from testkit.fakes.embedder import HashEmbedder
        from core.store.corpus_store import CorpusStore
        from testkit.corpus import nvda_10k
        s = Settings(data_dir=Path({str(settings.data_dir)!r}), chroma_url={settings.chroma_url!r},
                     _env_file=None)
        store = CorpusStore(s, HashEmbedder())
        real_add = store.vectors.add
        def add_then_hang(chunks, vectors):
            real_add(chunks, vectors)
            print("VECTORS-WRITTEN", flush=True)
            time.sleep(120)
        store.vectors.add = add_then_hang
        store.add(*nvda_10k())
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                            cwd=ROOT)
    try:
        line = proc.stdout.readline()
        assert "VECTORS-WRITTEN" in line, line
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    meta, chunks = nvda_10k()
    store = CorpusStore(settings, hash_embedder)
    try:
        assert store.documents() == [] and store.chunks() == []
        assert store.registry.status(meta.doc_id) is None  # the pending row was purged
        assert store.vectors.count() == 0  # and so were its vectors
        assert store.add(meta, chunks)[1] is True
    finally:
        store.close()


def test_two_data_dirs_stay_apart(make_settings, hash_embedder):
    a = CorpusStore(make_settings("a"), hash_embedder)
    b = CorpusStore(make_settings("b"), hash_embedder)
    try:
        a.add(*nvda_10k())
        b.add(*amd_10k())
        assert [d.file_name for d in a.documents()] == ["nvda-10k.htm"]
        assert [d.file_name for d in b.documents()] == ["amd-10k.htm"]
        assert a.vectors.count() == 6 and b.vectors.count() == 3
        assert all(c.startswith(amd_10k()[0].doc_id) for c, _ in b.keyword_search("revenue", 9))
        assert (a.settings.data_dir / "registry.sqlite").exists()
    finally:
        a.close()
        b.close()


def test_reopen_keeps_corpus_and_rebuilds_keyword_index(make_settings, hash_embedder):
    settings = make_settings("reopen")
    first = CorpusStore(settings, hash_embedder)
    first.add(*nvda_10k())
    first.close()
    again = CorpusStore(settings, hash_embedder)
    try:
        assert len(again.documents()) == 1
        top = again.keyword_search("26,974 revenue", 1)
        assert top and top[0][0].endswith("-00005")
    finally:
        again.close()


def test_another_writer_changes_are_seen_by_sections_and_keyword(make_settings, hash_embedder):
    settings = make_settings("shared")
    a, b = CorpusStore(settings, hash_embedder), CorpusStore(settings, hash_embedder)
    nvda, amd = nvda_10k()[0].doc_id, amd_10k()[0].doc_id
    try:
        a.add(*nvda_10k())
        assert list(a.sections()) == [nvda] and a.keyword_search("Intel Nvidia", 5)
        assert [d.doc_id for d in a.documents()] == [nvda]  # parsed once, then cached
        b.add(*amd_10k())  # another writer (another process would be the same to the registry)
        assert [d.doc_id for d in a.documents()] == [nvda, amd]
        assert list(a.sections()) == [nvda, amd]
        assert a.sections()[amd] == ["Item 1. Business", "Item 1A. Risk Factors",
                                     "Item 8. Financial Statements"]
        assert any(cid.startswith(amd) for cid, _ in a.keyword_search("Intel Nvidia", 5))
        b.delete(nvda)
        assert [d.doc_id for d in a.documents()] == [amd]
        assert list(a.sections()) == [amd]
        assert all(cid.startswith(amd) for cid, _ in a.keyword_search("revenue", 9))
        a.sections()[amd].append("changed by a caller")
        assert "changed by a caller" not in a.sections()[amd]
    finally:
        a.close()
        b.close()


def test_bad_input_is_refused(store, make_settings):
    meta, chunks = nvda_10k()
    other, _ = amd_10k()
    with pytest.raises(StoreError, match="do not belong"):
        store.add(other, chunks)
    store.add(meta, chunks)
    with pytest.raises(StoreError, match="embedder"):
        CorpusStore(make_settings(), HashEmbedder(dim=64))


def test_empty_document_and_empty_corpus(store):
    meta, _ = make_doc("empty.htm", [])
    assert store.keyword_search("anything", 5) == []
    store.add(meta, [])
    assert store.get_document(meta.doc_id).n_chunks == 0
    assert store.keyword_search("anything", 5) == []


def test_reads_go_on_while_another_document_is_embedded(store, hash_embedder):
    """Embedding a long filing takes minutes: it must not hold the store's lock, or the
    Research page (sections, search) waits for the whole ingest."""
    import threading

    first_meta, first_chunks = nvda_10k()
    store.add(first_meta, first_chunks)
    entered, release = threading.Event(), threading.Event()
    real_encode = store.embedder.encode

    class Blocking:
        name, dim = hash_embedder.name, hash_embedder.dim

        def encode(self, texts):
            entered.set()
            assert release.wait(GATE_S), "the test never released the embedder"
            return real_encode(texts)

    store.embedder = Blocking()
    meta, chunks = amd_10k()
    result: list = []
    writer = threading.Thread(target=lambda: result.append(store.add(meta, chunks)))
    writer.start()
    try:
        assert entered.wait(CEILING_S)
        reads: list = []
        reader = threading.Thread(target=lambda: reads.append((
            store.sections(), store.keyword_search("competition", k=3), store.documents())))
        reader.start()
        reader.join(CEILING_S)  # held behind the embedding, it would wait for the gate
        assert not reader.is_alive(), "reads waited for the embedding of another document"
        sections, hits, docs = reads[0]
        assert list(sections) == [first_meta.doc_id] and hits
        assert [d.doc_id for d in docs] == [first_meta.doc_id]
    finally:
        release.set()
        writer.join(CEILING_S)
    assert result and result[0][1]
    assert {d.doc_id for d in store.documents()} == {first_meta.doc_id, meta.doc_id}


def test_both_registries_keep_the_one_registry_contract():
    """The SQLite and PostgreSQL registries implement every method of the protocol."""
    from core.store.documents import SqliteRegistry
    from core.store.documents_pg import PgRegistry
    from core.store.registry_api import Registry

    wanted = {n for n in vars(Registry) if not n.startswith("_")}
    assert len(wanted) >= 17
    for impl in (SqliteRegistry, PgRegistry):
        assert wanted <= {n for n in dir(impl) if callable(getattr(impl, n))}, impl


def test_the_storage_gives_a_registry(settings):
    from core.store.registry_api import Registry
    from core.store.storage import storage_for

    registry = storage_for(settings).registry()
    assert isinstance(registry, Registry)
    registry.close()
