"""Exact vector search inside a few filings, from their chunk vectors held in memory (LRU).

A Chroma query restricted to one filing (a ``where`` on doc_id, or an ``ids=`` subset) walks the
whole HNSW graph skipping what the filter excludes: with 500 filings (~370k chunks) it took
120-300 ms per query here, against ~3 ms for an unfiltered query. An analyst's steps search the
same filing again and again, so the store keeps the vectors of the filings it last searched
(~1.1 MB per 740-chunk filing) and scores them with one matrix product: the first search of a
filing costs one ``get`` of its vectors (~80 ms at that scale), the next ones well under 1 ms.
A ready filing's vectors never change (its id is a hash of its bytes), so nothing goes stale.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np


class DocVectors:
    """Unit chunk vectors of the ``max_docs`` filings searched last, by doc id."""

    def __init__(self, vectors, max_docs: int = 64):
        self.vectors = vectors  # a VectorIndex (get_vectors(ids) -> {id: vector})
        self.max_docs = max_docs
        self._lock = threading.Lock()
        self._docs: OrderedDict[str, tuple[list[str], np.ndarray]] = OrderedDict()

    def cached(self, doc_id: str) -> bool:
        with self._lock:
            return doc_id in self._docs

    def _load(self, doc_id: str, chunk_ids: list[str]) -> tuple[list[str], np.ndarray]:
        """The doc's unit vectors in ``chunk_ids`` order (a zero row where one is missing)."""
        with self._lock:
            hit = self._docs.get(doc_id)
            if hit is not None and hit[0] == chunk_ids:
                self._docs.move_to_end(doc_id)
                return hit
        stored = self.vectors.get_vectors(chunk_ids)
        dim = len(next(iter(stored.values()))) if stored else 0
        mat = np.zeros((len(chunk_ids), dim), dtype=np.float32)
        for i, cid in enumerate(chunk_ids):
            if cid in stored:
                mat[i] = stored[cid]
        norms = np.linalg.norm(mat, axis=1, keepdims=True)
        mat = np.divide(mat, norms, out=np.zeros_like(mat), where=norms > 0)
        entry = (list(chunk_ids), mat)
        with self._lock:
            self._docs[doc_id] = entry
            self._docs.move_to_end(doc_id)
            while len(self._docs) > self.max_docs:
                self._docs.popitem(last=False)
        return entry

    def search(
        self, vector: np.ndarray, k: int, parts: list[tuple[str, list[str], np.ndarray]]
    ) -> list[tuple[str, float]]:
        """Top ``k`` (chunk_id, cosine) over ``parts``: (doc_id, the doc's chunk ids in order,
        positions of the chunks to search among them). Chunks without a vector are skipped."""
        q = np.asarray(vector, dtype=np.float32).ravel()
        q = q / (np.linalg.norm(q) or 1.0)
        ids: list[str] = []
        scores: list[np.ndarray] = []
        for doc_id, chunk_ids, positions in parts:
            doc_chunks, mat = self._load(doc_id, chunk_ids)
            if not mat.size:
                continue
            rows = mat[positions]
            keep = np.flatnonzero(rows.any(axis=1))
            ids.extend(doc_chunks[positions[i]] for i in keep)
            scores.append(rows[keep] @ q)
        if not ids:
            return []
        flat = np.concatenate(scores)
        order = np.argsort(-flat, kind="stable")[:k]
        return [(ids[i], float(flat[i])) for i in order]
