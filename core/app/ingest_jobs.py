"""Ingest a batch of files in the background with per-file and per-chunk progress and an
estimate of the time left.

``ProgressEmbedder`` wraps the corpus's embedder: while an ingest reports progress
(in its own thread) it encodes in slices and tells how many chunks are done, so the
Library shows "embedding 240 of 485 chunks · about 20 s left"; searches from other
threads encode as before (and no longer wait behind a whole filing's embedding).
``start_batch`` runs the files one after the other in a ``core.app.jobs`` job whose
``progress`` is a ``BatchProgress``; one failing file is reported and the rest go on.
"""

from __future__ import annotations

import contextvars
import os
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.app import jobs
from core.foundation.errors import AppError
from core.foundation.memory import release_free_memory
from core.foundation.types import DocumentMeta

SLICE = 128  # chunks encoded between two progress reports
_report: contextvars.ContextVar[Callable[[int, int], None] | None] = contextvars.ContextVar(
    "ingest_progress", default=None)


class ProgressEmbedder:
    """An embedder that reports chunk progress to the ingest running in this thread."""

    def __init__(self, inner: Any):
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim

    def encode(self, texts: list[str]) -> np.ndarray:
        report = _report.get()
        if report is None or not texts:
            return self.inner.encode(texts)
        parts = []
        report(0, len(texts))
        for start in range(0, len(texts), SLICE):
            parts.append(np.asarray(self.inner.encode(texts[start:start + SLICE]),
                                    dtype=np.float32))
            report(min(start + SLICE, len(texts)), len(texts))
        return np.concatenate(parts) if parts else self.inner.encode(texts)

    def rewrap(self, inner: Any) -> ProgressEmbedder:
        """The same reporting around another embedder (the corpus's own backend)."""
        return ProgressEmbedder(inner)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@dataclass
class FileProgress:
    """One file of a batch: its stage, chunk counts and outcome."""

    name: str
    size: int = 0
    stage: str = "waiting"
    chunks_done: int = 0
    chunks_total: int = 0
    started: float | None = None
    finished: float | None = None
    embed_started: float | None = None
    ok: bool | None = None
    added: bool = False
    meta: DocumentMeta | None = None
    timings: dict[str, float] = field(default_factory=dict)
    error: str = ""
    report: Any = None
    """The loader's ``IngestReport`` once it succeeded."""

    @property
    def seconds(self) -> float:
        if self.started is None:
            return 0.0
        return (self.finished or time.perf_counter()) - self.started

    def fraction(self) -> float:
        """How far this file is (parsing counts for a quarter, embedding for most of it)."""
        if self.finished is not None:
            return 1.0
        if self.started is None:
            return 0.0
        if self.chunks_total:
            return 0.25 + 0.7 * self.chunks_done / self.chunks_total
        return 0.95 if self.stage.startswith("index") else 0.1

    def embed_left_s(self) -> float | None:
        if not (self.embed_started and self.chunks_total and self.chunks_done):
            return None
        rate = self.chunks_done / max(1e-6, time.perf_counter() - self.embed_started)
        return (self.chunks_total - self.chunks_done) / rate


@dataclass
class BatchProgress:
    """Every file of an ingest batch (see ``start_batch``)."""

    files: list[FileProgress]
    started: float = field(default_factory=time.perf_counter)

    @property
    def current(self) -> FileProgress | None:
        return next((f for f in self.files if f.started and f.finished is None), None)

    @property
    def finished(self) -> int:
        return sum(f.finished is not None for f in self.files)

    def fraction(self) -> float:
        return sum(f.fraction() for f in self.files) / max(1, len(self.files))

    def eta_s(self) -> float | None:
        """Seconds left: the current file's embedding rate, then finished files' speed per
        byte for the files still waiting (before any file finished, the current file's own
        pace: its seconds so far plus its embedding left, per byte); None before anything
        can be estimated (the first file has not started embedding)."""
        done = [f for f in self.files if f.ok and f.size]
        per_byte = sum(f.seconds for f in done) / sum(f.size for f in done) if done else None
        cur = self.current
        left = 0.0
        if cur is not None:
            embed = cur.embed_left_s()
            if embed is not None:
                cur_left = embed + 0.05 * cur.seconds
                if per_byte is None and cur.size:
                    per_byte = (cur.seconds + cur_left) / cur.size
            elif per_byte is not None:
                cur_left = max(0.0, per_byte * cur.size - cur.seconds)
            else:
                return None
            left += cur_left
        waiting = [f for f in self.files if f.started is None]
        if waiting:
            if per_byte is None:
                return None
            left += per_byte * sum(f.size for f in waiting)
        return left

    def line(self) -> str:
        """'File 1 of 2 · nvda.html: embedding 240 of 485 chunks · about 20 s left' (before the
        first file's thread has started: that file, waiting)."""
        cur = self.current or next((f for f in self.files if f.finished is None), None)
        total = len(self.files)
        if cur is None:
            return f"{self.finished} of {total} file(s) done"
        i = self.files.index(cur) + 1
        what = cur.stage
        if cur.chunks_total and cur.stage.startswith("embed"):
            what = f"embedding {cur.chunks_done} of {cur.chunks_total} chunks"
        eta = self.eta_s()
        left = f" · about {eta:.0f} s left" if eta is not None else " · estimating time left…"
        return f"File {i} of {total} · {cur.name}: {what}{left}"


Loader = Callable[..., Any]  # (**{"on_stage": callback}) -> IngestReport


def _load_one(load: Loader, fp: FileProgress, reached_embed: threading.Event,
              background: bool) -> None:
    """Run one file's loader, recording its stages, chunk progress and outcome in ``fp``;
    ``reached_embed`` is set once its embedding starts (or it ended), which is when the next
    file may start parsing. ``background``: at low CPU priority (a Linux thread has its own
    nice value, and the PDF workers it starts inherit it)."""
    if background:
        yield_cpu()

    def on_stage(label: str) -> None:
        fp.stage = label

    def on_chunks(done: int, total: int) -> None:
        if fp.embed_started is None:
            fp.embed_started = time.perf_counter()
            reached_embed.set()
        fp.chunks_done, fp.chunks_total = done, total

    token = _report.set(on_chunks)
    try:
        report = load(on_stage=on_stage)
    except AppError as exc:
        fp.ok, fp.error, fp.stage = False, str(exc), "failed"
    except Exception as exc:  # noqa: BLE001 - one bad file must not stop the batch
        fp.ok, fp.error, fp.stage = False, f"Unexpected {type(exc).__name__}: {exc}", "failed"
    else:
        fp.ok, fp.added, fp.meta, fp.report = True, report.added, report.meta, report
        fp.timings, fp.stage = dict(report.timings), "done"
    finally:
        _report.reset(token)
        fp.finished = time.perf_counter()
        reached_embed.set()


def run_batch(items: list[tuple[str, int, Loader]], progress: BatchProgress,
              job: jobs.Job | None = None, on_file: Callable[[int], None] | None = None,
              background: bool = False) -> BatchProgress:
    """Ingest ``(name, size, loader)`` items, updating ``progress``: a pipeline, not a queue.

    While one file embeds, the next one parses (parsing is mostly one core, embedding is
    the model's arithmetic), so at most two files are in flight: file *i+1* starts when
    file *i* starts embedding, and file *i+2* only once file *i* is done. Results stay in
    order; ``on_file(i)`` is called (on the thread of the file that ended last) for each file
    as soon as it and those before it are done. A cancelled job starts no further file.
    When a file ends, the memory its work freed goes back to the OS (``release_free_memory``),
    so a long batch's resident memory does not climb to each filing's high-water mark.
    ``background``: the loaders run at low CPU priority (the app's batches; a CLI ingest
    runs at the terminal's priority)."""
    threads: list[threading.Thread] = []
    reached = [threading.Event() for _ in items]
    ended = [False] * len(items)
    order_lock = threading.Lock()
    reported = 0

    def report_done() -> None:  # from the thread of each file as it ends: in order, at once
        nonlocal reported
        with order_lock:
            while reported < len(threads) and ended[reported]:
                if on_file is not None:
                    on_file(reported)
                reported += 1

    def one(i: int, load: Loader, fp: FileProgress) -> None:
        try:
            _load_one(load, fp, reached[i], background)
        finally:
            release_free_memory()  # what the file's parse and batches freed, back to the OS
            ended[i] = True
            report_done()

    for i, ((_, _, load), fp) in enumerate(zip(items, progress.files, strict=True)):
        if i >= 1:
            reached[i - 1].wait()  # the previous file embeds (or ended): parse this one
        if i >= 2:
            threads[i - 2].join()  # two in flight at most
        if job is not None and job.cancel_requested:
            for fp_left in progress.files[i:]:
                fp_left.ok, fp_left.error = False, "not ingested: the batch was cancelled"
                fp_left.stage = "skipped"
            break
        fp.started = time.perf_counter()
        thread = threading.Thread(target=one, args=(i, load, fp), name=f"ingest-{i}",
                                  daemon=True)
        with order_lock:
            threads.append(thread)
        thread.start()
    for thread in threads:
        thread.join()
    report_done()
    return progress


BACKGROUND_NICE = 10
PIECES_NICE = 15  # the baseline's pieces built during a batch: after the batch's own work


def yield_cpu(nice: int = BACKGROUND_NICE) -> bool:
    """Lower the calling thread's CPU priority (Linux threads have their own nice value), so
    pages drawn by the server's other threads stay quick while a batch parses and embeds.
    Returns False where the platform does not allow it."""
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, max(os.getpriority(os.PRIO_PROCESS, tid), nice))
    except (AttributeError, OSError):
        return False
    return True


def start_batch(job_id: str, items: list[tuple[str, int, Loader]],
                on_done: Callable[[BatchProgress], None] | None = None,
                corpus: Any = None) -> jobs.Job:
    """Run ``run_batch`` in a background job; ``job.progress`` is its ``BatchProgress``.

    With ``corpus``, each filing the batch adds is handed to the baseline's pieces job as soon
    as it is stored (``start_baseline_pieces`` fed filing by filing), a second background job
    below the batch's priority: it uses the CPU the batch leaves, so on two busy cores it may
    still be on the first filings when the batch ends (a Compare then builds what its scope
    lacks, or waits for the filing in progress)."""
    progress = BatchProgress([FileProgress(name, size) for name, size, _ in items])

    def work(job: jobs.Job) -> BatchProgress:
        yield_cpu()
        feed: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        pieces: list[jobs.Job] = []

        def stored(i: int) -> None:
            f = progress.files[i]
            if corpus is None or not f.added or f.meta is None:
                return
            if not pieces:  # the first filing stored starts the job; the next ones feed it
                pieces.append(start_baseline_pieces(corpus.store, corpus.embedder,
                                                    corpus.settings, [], feed=feed))
            feed.put(f.meta.doc_id)

        try:
            run_batch(items, progress, job, on_file=stored, background=True)
        finally:
            feed.put(None)  # the batch is over: the pieces job ends after the last filing
        if on_done is not None:
            on_done(progress)
        return progress

    return jobs.start(job_id, "ingest", work, label=f"ingest {len(items)} file(s)",
                      progress=progress)


def start_baseline_pieces(store: Any, embedder: Any, settings: Any, doc_ids: list[str],
                          job_id: str | None = None,
                          feed: queue.SimpleQueue[str | None] | None = None) -> jobs.Job:
    """Build the baseline's fixed-size pieces of ``doc_ids`` (those still missing) in a
    background job of kind ``baseline`` at low CPU priority; ``job.result`` is how many
    filings were built. With ``feed``, more doc ids arrive on it (a batch storing filings) until
    ``None``; the job runs below the batch's priority, so the batch's own files come first. A
    Compare started meanwhile waits for the filing being built
    (``core.baseline.index.build_doc``) instead of embedding it twice."""
    import uuid

    from core.baseline.index import prepare

    def next_ids(pending: list[str]):
        while True:
            if pending:
                yield pending.pop(0)
            elif feed is None:
                return
            else:
                doc_id = feed.get()
                if doc_id is None:
                    return
                pending.append(doc_id)

    def work(job: jobs.Job) -> int:
        yield_cpu(PIECES_NICE if feed is not None else BACKGROUND_NICE)
        pending = list(dict.fromkeys(doc_ids))
        known = len(pending)
        built = 0
        job.report("Compare's baseline pieces: " + (f"{known} filing(s)" if feed is None
                   else "as the batch stores its filings"), 0, max(1, known))
        for n, doc_id in enumerate(next_ids(pending)):
            if job.cancel_requested:
                break
            known = max(known, n + 1 + len(pending))
            of = f" of {known}" if feed is None else ""
            docs = [d for d in store.documents() if d.doc_id == doc_id]  # not deleted since

            def tick(name: str, done: int, total: int, n=n, of=of, known=known) -> None:
                job.report(f"Compare's baseline pieces: filing {n + 1}{of} · {name}: "
                           f"{done} of {total} chunks", n + done / max(1, total),
                           max(known, n + 1), line=False)

            built += prepare(store, embedder, docs, settings, tick,  # builds what is missing
                             should_stop=lambda: job.cancel_requested)
            release_free_memory()
        return built

    return jobs.start(job_id or f"baseline-{uuid.uuid4().hex[:8]}", "baseline", work,
                      label=("baseline pieces of the batch's filings" if feed is not None
                             else f"baseline pieces of {len(doc_ids)} filing(s)"))
