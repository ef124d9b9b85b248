"""Progress of an ingest batch running in the background: overall bar with an estimate of the
time left, one row per file (stage, chunks embedded, seconds), and the outcomes after."""

from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from components.library import IngestOutcome
from core.app.ingest_jobs import BatchProgress, FileProgress

STAGE_WORDS = {
    "waiting": "waiting to start", "parse": "reading the file", "sections": "finding sections",
    "chunk": "splitting into chunks", "facts": "reading figures", "embed": "embedding",
    "index": "indexing", "done": "✓ done", "failed": "✗ failed", "skipped": "skipped",
}


def stage_words(f: FileProgress) -> str:
    """What a file's ingest is doing, in words ('embedding 240 of 485 chunks')."""
    if f.stage.startswith("embed") and f.chunks_total:
        return f"embedding {f.chunks_done} of {f.chunks_total} chunks"
    if f.stage == "waiting" and f.started is not None:
        return "starting"
    return STAGE_WORDS.get(f.stage, f.stage)


def batch_line(progress: BatchProgress) -> str:
    """'File 1 of 2 · nvda.html: embedding 240 of 485 chunks · about 20 s left'."""
    cur = progress.current
    total = len(progress.files)
    if cur is None:
        return f"{progress.finished} of {total} file(s) done"
    eta = progress.eta_s()
    left = f" · about {eta:.0f} s left" if eta is not None else ""
    return f"File {progress.files.index(cur) + 1} of {total} · {cur.name}: {stage_words(cur)}{left}"


def progress_frame(progress: BatchProgress) -> pd.DataFrame:
    """One row per file: name, stage, chunks embedded so far, seconds."""
    rows = []
    for f in progress.files:
        chunks = f"{f.chunks_done} of {f.chunks_total}" if f.chunks_total else "–"
        stage = stage_words(f)
        rows.append({"file": f.name, "stage": stage, "chunks embedded": chunks,
                     "seconds": f"{f.seconds:.1f}" if f.started else "–"})
    return pd.DataFrame(rows)


def render_progress(progress: BatchProgress) -> None:
    """The bar (with the current file, chunk counts and time left) and the per-file table."""
    done = progress.finished
    total = len(progress.files)
    st.progress(min(1.0, progress.fraction()),
                text=f"{done} of {total} file(s) ingested · {batch_line(progress)}")
    st.dataframe(progress_frame(progress), hide_index=True, width="stretch")
    st.caption("You can keep working in other pages: the files are ingested in the background "
               "and the sidebar shows how far it is.")


def follow_batch(job, area, *, tick_s: float = 0.5) -> None:
    """Redraw ``area`` with the job's progress until the job is done."""
    from components.sidebar import tick_activity

    while True:
        with area.container():
            render_progress(job.progress)
        tick_activity()
        if job.done:
            return
        time.sleep(tick_s)


def outcomes(progress: BatchProgress) -> list[IngestOutcome]:
    """The finished batch as the Library's outcome records."""
    return [IngestOutcome(f.name, bool(f.ok), f.meta, f.added, f.timings, f.error)
            for f in progress.files]
