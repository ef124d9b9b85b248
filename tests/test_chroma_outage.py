"""Issue 12, fault 3: the Chroma server dies in the middle of an ingest.

A real `chroma run` on 127.0.0.1 is killed after the first batch of a document's vectors went
in. The user gets one short message (no transport traceback on stderr or in the log), nothing
of the document is visible, and the vectors it had written are purged when the corpus is next
opened with the server back.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from core.foundation.config import Settings
from core.foundation.errors import StoreError
from core.store.corpus_store import CorpusStore
from testkit.corpus import amd_10k, nvda_10k
from tests.test_store import _free_port
from tests.waiting import CEILING_S

CHROMA = Path(sys.executable).parent / "chroma"


class ChromaServer:
    """A `chroma run` on 127.0.0.1 that can be killed and started again on its folder."""

    def __init__(self, folder: Path, log: Path):
        self.folder, self.log, self.port = folder, log, _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                [str(CHROMA), "run", "--path", str(self.folder), "--host", "127.0.0.1",
                 "--port", str(self.port)],
                stdout=out, stderr=subprocess.STDOUT,
                env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
            )
        deadline = time.monotonic() + CEILING_S  # a bound on waiting for it to answer
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/api/v2/heartbeat", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None:
                pytest.fail(f"chroma server exited: {self.log.read_text()[-2000:]}")
            time.sleep(0.2)
        pytest.fail(f"chroma server did not answer within {CEILING_S:g} s")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture
def server(tmp_path):
    srv = ChromaServer(tmp_path / "chroma-srv", tmp_path / "chroma.log")
    srv.start()
    yield srv
    srv.kill()


@pytest.mark.slow
def test_server_lost_mid_upsert_gives_a_short_message_and_purges_on_reopen(
        server, tmp_path, hash_embedder, caplog, capfd):
    settings = Settings(data_dir=tmp_path / "store", chroma_url=server.url, _env_file=None)
    store = CorpusStore(settings, hash_embedder)
    store.add(*nvda_10k())
    kept = store.vectors.count()
    amd_meta, amd_chunks = amd_10k()
    store.vectors._batch = 2  # several upserts per document
    upsert = store.vectors.collection.upsert
    calls = []

    def upsert_then_die(**kwargs):
        calls.append(len(kwargs["ids"]))
        if len(calls) == 2:
            server.kill()  # the server dies between two batches of this document
        return upsert(**kwargs)

    store.vectors.collection.upsert = upsert_then_die
    capfd.readouterr()
    with caplog.at_level(logging.DEBUG, logger="core"):
        with pytest.raises(StoreError) as err:
            store.add(amd_meta, amd_chunks)
    msg = str(err.value)
    assert msg.startswith("Could not index amd-10k.htm: the vector store at "
                          f"{server.url} stopped answering (")
    assert "removed when the corpus is next opened" in msg and "\n" not in msg
    assert len(msg) < 400
    printed = capfd.readouterr()
    assert "Traceback" not in printed.err + printed.out
    assert all(r.exc_info is None for r in caplog.records if r.levelno >= logging.INFO)
    assert [d.doc_id for d in store.documents()] == [nvda_10k()[0].doc_id]  # nothing visible
    assert store.registry.status(amd_meta.doc_id) == "pending"  # waiting for its purge
    store.close()

    server.start()  # back, on the same folder: the first batch of AMD vectors is still there
    client = httpx.Client(base_url=server.url)
    assert client.get("/api/v2/heartbeat").status_code == 200
    again = CorpusStore(settings, hash_embedder)
    try:
        assert again.registry.status(amd_meta.doc_id) is None  # purged on open
        assert again.vectors.count() == kept  # the partial vectors are gone
        assert again.vectors.get_vectors([amd_chunks[0].chunk_id]) == {}
        meta, added = again.add(amd_meta, amd_chunks)  # and it can be added again
        assert added and again.vectors.count() == kept + len(amd_chunks)
    finally:
        again.close()
