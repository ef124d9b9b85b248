"""Worker for PDF text extraction: ``python -m core.ingest.pdf_worker START STOP PPID [ENGINE]``.

Reads the PDF's bytes from stdin (no temporary copy on disk, so nothing is left behind when
anything is killed) and prints a JSON list of ``[text, layout_mode]`` for pages START..STOP-1
(0-based), read by ENGINE ("pypdf", the default, or "pdfium": a page PDFium cannot read is
``null``, for the parent to read with pypdf). A plain subprocess rather
than multiprocessing: spawn would re-import the parent's ``__main__`` (under Streamlit that
is the whole app, models included).

The worker dies with its parent: on Linux the kernel sends it SIGKILL when the parent exits
(``PR_SET_PDEATHSIG``), and everywhere a watchdog thread exits as soon as the parent process
``PPID`` is gone (its parent pid changes), so a killed ingest leaves no worker burning CPU.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
import threading
import time

WATCH_INTERVAL_S = 0.2
_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the watchdog below still covers it

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(1)
            time.sleep(WATCH_INTERVAL_S)

    if os.getppid() != parent:  # the parent died before we got here
        os._exit(1)
    threading.Thread(target=watch, daemon=True, name="parent-watchdog").start()


def main(argv: list[str]) -> int:
    start, stop, parent = int(argv[0]), int(argv[1]), int(argv[2])
    engine = argv[3] if len(argv) > 3 else "pypdf"
    _die_with_parent(parent)
    data = sys.stdin.buffer.read()
    if engine == "pdfium":  # PDFium alone: importing pypdf costs more than reading the pages
        from core.ingest.pdf_pdfium import page_texts

        try:
            texts = page_texts(data, start, stop)
        except Exception:  # noqa: BLE001 - PDFium cannot open it: the parent's pypdf reads it
            texts = []
        texts += [None] * (stop - start - len(texts))
        json.dump([[t, True] if t and t.strip() else None for t in texts], sys.stdout)
        return 0
    from core.ingest.pdf import extract_range

    json.dump(extract_range(data, start, stop, engine), sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
