"""Are the corpus's vectors readable? A cheap probe for searches to warn on.

A local Chroma collection whose segment folder was deleted (``chroma/<uuid>/``, with
``chroma.sqlite3`` kept) still counts and lists every chunk, so ``count`` and ``present`` see
nothing wrong, while its queries answer from the few vectors it had not flushed. Reading a
chunk's vector does fail then. The probe reads the vectors of a few chunks of every ready
filing (its first, middle and last) once per corpus generation and per vector client, so a
search can say that vector results are incomplete; ``python -m core doctor`` reads them all.
"""

from __future__ import annotations

import threading


class VectorHealth:
    """The last probe's answer, for one generation and one vector client."""

    def __init__(self):
        self._lock = threading.Lock()
        self._key: tuple | None = None
        self._missing = 0

    def missing(self, store) -> int:
        """Ready filings of ``store`` (a CorpusStore) with a probed chunk whose vector cannot
        be read."""
        key = (store.registry.generation(), id(store.vectors.client))
        with self._lock:
            if key == self._key:
                return self._missing
        by_doc = {}
        for doc in store.registry.documents():  # chunk ids: <doc_id>-<index, 5 digits>
            n = doc.n_chunks
            if n:
                by_doc[doc.doc_id] = sorted({f"{doc.doc_id}-{i:05d}" for i in (0, n // 2, n - 1)})
        wanted = [i for ids in by_doc.values() for i in ids]
        found = store.vectors.readable(wanted) if wanted else set()
        missing = sum(1 for ids in by_doc.values() if not set(ids) <= found)
        with self._lock:
            self._key, self._missing = key, missing
        return missing
