"""Long PDFs are read by one process per core; the result equals reading pages in order."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

import core.ingest.pdf as pdf
import core.ingest.pdf_workers as pdf_workers
from tests.test_ingest_pdf import make_pdf
from tests.waiting import CEILING_S

PAGES = [
    f"Item {n}. Section {n}\nRevenue\t{n},000\nThe company sold {n} widgets this year."
    for n in range(1, 8)
] + [""]  # a blank page keeps its number


def test_parallel_extraction_matches_sequential(monkeypatch):
    data = make_pdf(PAGES, encrypt=True)  # workers must decrypt too
    reader = pdf._open(data)
    pages = list(reader.pages)
    sequential = pdf._raw_texts(data, pages, min_pages=10**6)
    parallel = pdf._raw_texts(data, pages, min_pages=2)
    assert parallel == sequential and len(parallel) == len(PAGES)
    assert "5,000" in parallel[4][0]

    monkeypatch.setattr(pdf, "PARALLEL_MIN_PAGES", 2)
    fast = pdf.load_pdf(data)
    monkeypatch.setattr(pdf, "PARALLEL_MIN_PAGES", 10**6)
    slow = pdf.load_pdf(data)
    assert fast == slow and [p.number for p in fast.pages] == list(range(1, 8))


def test_failing_workers_fall_back_to_reading_in_order(monkeypatch):
    data = make_pdf(PAGES[:4])
    pages = list(pdf._open(data).pages)

    def broken(*args, **kwargs):
        raise OSError("no processes here")

    monkeypatch.setattr(pdf.subprocess, "Popen", broken)
    assert pdf._raw_texts(data, pages, min_pages=2) == pdf._raw_texts(data, pages, min_pages=99)


def test_workers_read_the_pdf_from_stdin_and_are_all_stopped_on_failure(monkeypatch, tmp_path):
    """Fault 8 (issue 9): no temporary copy of the PDF, no worker left running on an error."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # any temp file would land here
    started: list = []
    real_start = pdf_workers.start_workers

    def spy(ranges, *args):
        procs = real_start(ranges, *args)
        started.extend(procs)
        return procs

    def broken(proc, data):
        raise RuntimeError("reading a worker failed")

    monkeypatch.setattr(pdf_workers, "start_workers", spy)
    monkeypatch.setattr(pdf_workers, "_collect", broken)
    data = make_pdf(PAGES[:4])
    with pytest.raises(RuntimeError, match="reading a worker failed"):
        pdf_workers.extract_in_workers(data, [(0, 2), (2, 4)])
    assert len(started) == 2 and all(p.poll() is not None for p in started)
    assert list(tmp_path.iterdir()) == []


_PARENT = """
import subprocess, sys, time
worker = subprocess.Popen([sys.executable, "-m", "core.ingest.pdf_worker", "0", "1",
                           str(__import__("os").getpid())], stdin=int(sys.argv[1]))
print(worker.pid, flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as fh:  # a zombie is dead
        return fh.read().split(") ")[-1][0] != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_worker_dies_with_a_killed_parent():
    """Fault 8 (issue 9): kill -9 the ingest process; its worker must not keep running.

    The worker's stdin is a pipe this test keeps open, so closing stdin cannot be what ends
    it: only the parent's death can."""
    read_end, write_end = os.pipe()
    root = Path(pdf_workers.__file__).resolve().parents[2]
    parent = subprocess.Popen([sys.executable, "-c", _PARENT, str(read_end)],
                              pass_fds=(read_end,), stdout=subprocess.PIPE, cwd=root,
                              env=pdf_workers._env())
    os.close(read_end)
    try:
        worker_pid = int(parent.stdout.readline())
        assert _alive(worker_pid)
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + CEILING_S  # a bound on waiting, not a timing assertion
        while _alive(worker_pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(worker_pid)
    finally:
        os.close(write_end)
        if parent.poll() is None:
            parent.kill()
