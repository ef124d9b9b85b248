"""Ingest in the background: per-file stages, chunks embedded so far, an estimate of the time
left, one failing file reported while the others go in (HashEmbedder, real corpus)."""

from __future__ import annotations

import threading

import numpy as np

from core.app import jobs
from core.app.corpus import Corpus
from core.app.ingest_jobs import SLICE, BatchProgress, FileProgress, ProgressEmbedder, start_batch
from tests.waiting import CEILING_S, GATE_S

BODY = "".join(f"Risk {i}: competition from larger rivals may reduce our margins and share. " * 6
               + "\n\n" for i in range(60))
TEXT = ("ACME Corp Form 10-K Annual Report\n\nItem 1A. Risk Factors\n\n" + BODY).encode()


class Recording:
    """Wraps an embedder and records the size of each encode call."""

    def __init__(self, inner):
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.calls: list[int] = []

    def encode(self, texts):
        self.calls.append(len(texts))
        return self.inner.encode(texts)


def test_progress_embedder_reports_slices_only_inside_an_ingest(hash_embedder):
    from core.app import ingest_jobs

    inner = Recording(hash_embedder)
    emb = ProgressEmbedder(inner)
    texts = [f"text {i}" for i in range(SLICE * 2 + 5)]
    whole = emb.encode(texts)  # a search elsewhere: one call, no reports
    assert inner.calls == [len(texts)]
    seen = []
    token = ingest_jobs._report.set(lambda done, total: seen.append((done, total)))
    try:
        sliced = emb.encode(texts)
    finally:
        ingest_jobs._report.reset(token)
    assert np.allclose(whole, sliced)
    assert seen == [(0, 261), (128, 261), (256, 261), (261, 261)]
    assert emb.name == hash_embedder.name and emb.dim == hash_embedder.dim


def test_a_batch_ingests_in_the_background_and_reports_each_file(settings, hash_embedder):
    corpus = Corpus(settings, embedder=ProgressEmbedder(hash_embedder))
    gate = threading.Event()
    snapshots: list[tuple[str, int, int]] = []

    def first(on_stage):
        gate.wait(GATE_S)  # the page is free meanwhile
        return corpus.ingest_bytes(TEXT, "acme-10k.txt", on_stage=on_stage)

    def broken(on_stage):
        on_stage("parsing")
        return corpus.ingest_bytes(b"", "empty.txt", on_stage=on_stage)

    job = start_batch("ingest-test", [("acme-10k.txt", len(TEXT), first),
                                      ("empty.txt", 0, broken)])
    progress: BatchProgress = job.progress
    assert not job.done and jobs.active("ingest") == [job]
    assert progress.line().startswith("File 1 of 2 · acme-10k.txt")
    gate.set()
    while not job.done:
        cur = progress.current
        if cur is not None:
            snapshots.append((cur.stage, cur.chunks_done, cur.chunks_total))
    assert job.error is None
    ok, bad = progress.files
    assert ok.ok and ok.added and ok.meta.n_chunks == ok.chunks_total > 0
    assert ok.chunks_done == ok.chunks_total and ok.stage == "done"
    assert not bad.ok and "empty" in bad.error.lower() and bad.stage == "failed"
    assert progress.finished == 2 and progress.fraction() == 1.0
    assert len(corpus.documents()) == 1
    jobs.forget("ingest-test")
    corpus.close()


def test_time_left_comes_from_the_embedding_rate_then_from_finished_files():
    import time

    now = time.perf_counter()
    cur = FileProgress("a.htm", size=1000, stage="embedding", started=now - 10,
                       embed_started=now - 4, chunks_done=100, chunks_total=300)
    waiting = FileProgress("b.htm", size=2000)
    progress = BatchProgress([cur, waiting])
    # nothing finished yet: the current file's own pace (10 s so far + ~8.5 s left for 1000
    # bytes) stands for the waiting file's 2000 bytes, so a number shows within the first file
    first = progress.eta_s()
    assert first is not None and 43 < first < 48
    assert "about" in progress.line() and "estimating" not in progress.line()
    parsing = FileProgress("a.htm", size=1000, stage="parse", started=now - 3)
    assert BatchProgress([parsing, waiting]).eta_s() is None  # no rate to read yet
    done = FileProgress("c.htm", size=1000, started=now - 20, finished=now - 10, ok=True)
    progress = BatchProgress([done, cur, waiting])
    eta = progress.eta_s()
    # ~8 s of embedding left + ~1% overhead, then 2000 bytes at 10 s per 1000 bytes
    assert 27 < eta < 30
    assert "embedding 100 of 300 chunks · about" in progress.line()
    assert 0.3 < progress.fraction() < 0.7


def test_a_batch_thread_yields_the_cpu_to_the_pages():
    """The ingest job's thread runs at a lower priority (nice 10); the server's other
    threads, which draw the pages, keep theirs."""
    import os
    import threading

    from core.app.ingest_jobs import BACKGROUND_NICE, yield_cpu

    mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    seen: dict[str, int] = {}

    def background() -> None:
        seen["ok"] = yield_cpu()
        seen["nice"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    t = threading.Thread(target=background)
    t.start()
    t.join()
    assert seen == {"ok": True, "nice": max(mine, BACKGROUND_NICE)}
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == mine


class Gated:
    """An embedder whose first encode waits until released (a long filing embedding)."""

    def __init__(self, inner):
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.embedding, self.release = threading.Event(), threading.Event()

    def encode(self, texts):
        if not self.release.is_set():
            self.embedding.set()
            assert self.release.wait(GATE_S), "never released"
        return self.inner.encode(texts)


def _filing(n: int) -> bytes:
    return TEXT.replace(b"ACME Corp", f"Company {n} Corp".encode()) + f"\n\nEnd {n}.".encode()


def test_the_next_file_parses_while_one_embeds_and_two_at_most_are_in_flight(settings,
                                                                              hash_embedder):
    emb = Gated(hash_embedder)
    corpus = Corpus(settings, embedder=ProgressEmbedder(emb))
    began = [threading.Event() for _ in range(3)]
    done_order: list[int] = []

    def loader(i):
        def load(on_stage):
            began[i].set()
            return corpus.ingest_bytes(_filing(i), f"filing-{i}.txt", on_stage=on_stage)
        return load

    from core.app.ingest_jobs import run_batch

    items = [(f"filing-{i}.txt", 1000, loader(i)) for i in range(3)]
    progress = BatchProgress([FileProgress(name, size) for name, size, _ in items])
    runner = threading.Thread(target=run_batch, args=(items, progress),
                              kwargs={"on_file": done_order.append})
    runner.start()
    assert emb.embedding.wait(CEILING_S)  # the first filing is embedding (held there)
    assert began[1].wait(CEILING_S)  # ... and the second one started meanwhile
    assert progress.files[0].finished is None
    assert not began[2].is_set()  # never a third in flight while the first is not done
    emb.release.set()
    runner.join(CEILING_S)
    assert not runner.is_alive()
    assert all(began[i].is_set() for i in range(3))
    assert [f.ok for f in progress.files] == [True, True, True]
    assert done_order == [0, 1, 2]  # reported in order
    assert {d.file_name for d in corpus.documents()} == {f"filing-{i}.txt" for i in range(3)}
    corpus.close()


def test_only_the_apps_background_batches_lower_their_cpu_priority():
    import os

    from core.app.ingest_jobs import run_batch

    seen: list[int] = []

    def load(on_stage):
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        raise ValueError("not a filing")

    own = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    for background in (False, True):
        progress = BatchProgress([FileProgress("a.txt")])
        run_batch([("a.txt", 0, load)], progress, background=background)
        assert progress.files[0].ok is False and "ValueError" in progress.files[0].error
    assert seen[0] == own  # a CLI ingest runs at the terminal's priority (its PDF workers too)
    assert seen[1] >= 10


def test_each_file_of_a_batch_gives_its_freed_memory_back(monkeypatch):
    """When a file ends, well or not, the memory its work freed is returned to the OS before
    the next one is reported (a long batch's RSS does not climb to each filing's peak)."""
    import core.app.ingest_jobs as ingest_jobs
    from core.app.ingest_jobs import run_batch

    events: list[str] = []
    monkeypatch.setattr(ingest_jobs, "release_free_memory", lambda: events.append("release"))

    def good(on_stage):
        from types import SimpleNamespace

        events.append("load")
        return SimpleNamespace(added=True, meta=None, timings={})

    def bad(on_stage):
        events.append("load")
        raise ValueError("not a filing")

    progress = BatchProgress([FileProgress("a.txt"), FileProgress("b.txt")])
    run_batch([("a.txt", 0, good), ("b.txt", 0, bad)], progress,
              on_file=lambda i: events.append(f"done {i}"))
    assert [f.ok for f in progress.files] == [True, False]
    assert events == ["load", "release", "done 0", "load", "release", "done 1"]


def test_freed_memory_goes_back_to_the_os_where_the_c_library_can():
    import sys

    from core.foundation.memory import release_free_memory

    released = release_free_memory()
    assert released is (sys.platform.startswith("linux") and _glibc())


def _glibc() -> bool:
    import platform

    return platform.libc_ver()[0] == "glibc"
