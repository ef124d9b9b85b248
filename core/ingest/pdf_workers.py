"""Run ``core.ingest.pdf_worker`` processes over page ranges and collect their page texts.

Each worker gets the PDF's bytes on its stdin (no temporary file) and dies with this process
(see ``pdf_worker``). Workers are fed and read by one thread each, so a slow worker never
stalls another; whatever happens here (error, timeout, KeyboardInterrupt) every worker that
is still running is killed before returning.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

WORKER_TIMEOUT_S = 600
_ROOT = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(_ROOT), os.environ.get("PYTHONPATH")]))
    return dict(os.environ, PYTHONPATH=path)


def start_workers(ranges: list[tuple[int, int]], engine: str = "pypdf"
                  ) -> list[subprocess.Popen]:
    """One worker per (start, stop) page range, told this process's pid to watch."""
    env, parent = _env(), str(os.getpid())
    procs: list[subprocess.Popen] = []
    try:
        for a, b in ranges:
            cmd = [sys.executable, "-m", "core.ingest.pdf_worker", str(a), str(b), parent,
                   engine]
            procs.append(subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, env=env, cwd=_ROOT))
    except BaseException:
        stop_workers(procs)
        raise
    return procs


def stop_workers(procs: list[subprocess.Popen]) -> None:
    """Kill and reap every worker still running."""
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
    for proc in procs:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


def _collect(proc: subprocess.Popen, data: bytes) -> list[tuple[str, bool] | None]:
    stdout, stderr = proc.communicate(input=data, timeout=WORKER_TIMEOUT_S)
    if proc.returncode != 0:
        raise RuntimeError(stderr.decode(errors="replace").strip()[-300:] or
                           f"worker exited with code {proc.returncode}")
    return [None if page is None else (page[0], bool(page[1])) for page in json.loads(stdout)]


def extract_in_workers(data: bytes, ranges: list[tuple[int, int]], engine: str = "pypdf"
                       ) -> list[tuple[str, bool] | None]:
    """Page texts of ``ranges`` (in order), each range read by its own worker process with
    ``engine`` ("pypdf" or "pdfium", see ``core.ingest.pdf``); None for a page PDFium could
    not read."""
    procs = start_workers(ranges, engine)
    pool = ThreadPoolExecutor(max_workers=len(procs), thread_name_prefix="pdf-io")
    try:
        futures = [pool.submit(_collect, proc, data) for proc in procs]
        parts = [future.result() for future in futures]
    finally:
        stop_workers(procs)  # first: a thread blocked on a worker returns once it is dead
        pool.shutdown(wait=True)
    return [page for part in parts for page in part]
