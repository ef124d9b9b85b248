"""Keeping one process's view of a local corpus current while other processes change it.

Two pieces, used by :class:`core.store.corpus_store.CorpusStore`:

* :class:`Generation` remembers the registry generation this process's Chroma client has
  loaded and tells the store to reopen the client when the registry's moved (another process
  added or deleted a document). One ``SELECT`` per query (~20 µs).
* :func:`writer_lock` serialises index writes of all processes on one data folder (an advisory
  ``flock`` on ``<data_dir>/writer.lock``): a local Chroma client persists its whole in-memory
  index, so a writer must load the current one first and no two may write at once.
"""

from __future__ import annotations

import contextlib
import fcntl
import threading
from collections.abc import Iterator
from pathlib import Path


class Generation:
    """The registry generation the vector index reflects."""

    def __init__(self, current: int):
        self._seen = current
        self._lock = threading.Lock()

    def moved(self, current: int) -> bool:
        """Whether ``current`` differs from what was loaded (then it counts as loaded)."""
        with self._lock:
            if current == self._seen:
                return False
            self._seen = current
            return True

    def wrote(self, after: int) -> None:
        """Our own write (made on a current index) moved the generation to ``after``: a jump
        of one is ours alone; more means another process changed it too (reload next time)."""
        with self._lock:
            if after == self._seen + 1:
                self._seen = after


@contextlib.contextmanager
def writer_lock(data_dir: Path) -> Iterator[None]:
    """Hold the data folder's writer lock (blocks while another process writes)."""
    path = data_dir / "writer.lock"
    with open(path, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
