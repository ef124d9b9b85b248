"""BM25 Okapi over an inverted index of numpy arrays: a query reads only its terms' postings.

The scores are rank_bm25 0.2.2's ``BM25Okapi`` (k1 = 1.5, b = 0.75; a term in more than half of
the rows gets the floor ``epsilon * average idf``, epsilon = 0.25), computed in the same order
on the same float64 values, so they equal it up to float rounding (tests/test_keyword_bm25.py
checks this against rank_bm25 itself). What differs is the work per query: rank_bm25 scores
every row for every term, in Python; here each term contributes only over the rows that hold
it (a column of a compressed sparse column matrix built with scipy), so a query costs the
length of its terms' postings, not the size of the corpus.

Rows are chunks; the matrix is built from per-document blocks (:class:`TermBlock`), which the
caller keeps, so a rebuild after an add or a delete never re-tokenises anything.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

K1, B, EPSILON = 1.5, 0.75, 0.25  # rank_bm25.BM25Okapi's defaults


@dataclass(frozen=True)
class TermBlock:
    """Term counts of consecutive rows (one document's chunks), row-major (CSR)."""

    lengths: np.ndarray  # tokens per row (int32)
    indptr: np.ndarray  # row i's terms are terms[indptr[i]:indptr[i + 1]]
    terms: np.ndarray  # global term ids (int32)
    counts: np.ndarray  # occurrences of each term in its row (uint16, or int32 if larger)

    @classmethod
    def from_token_ids(cls, lengths: list[int], ids: list[int]) -> TermBlock:
        """Count the term ids of consecutive rows (row ``i`` holds ``lengths[i]`` of ``ids``)."""
        n_rows = len(lengths)
        width = max(ids, default=0) + 1
        rows = np.repeat(np.arange(n_rows, dtype=np.int64), lengths)
        keys, counts = np.unique(rows * width + np.asarray(ids, dtype=np.int64),
                                 return_counts=True)
        indptr = np.searchsorted(keys // width, np.arange(n_rows + 1))
        small = counts.size == 0 or counts.max() < 2**16
        return cls(np.asarray(lengths, dtype=np.int32), indptr.astype(np.int64),
                   (keys % width).astype(np.int32),
                   counts.astype(np.uint16 if small else np.int32))

    @property
    def n_rows(self) -> int:
        return len(self.lengths)

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.lengths, self.indptr, self.terms, self.counts))


class Bm25Matrix:
    """Immutable BM25 statistics and postings over the rows of ``blocks``, in order."""

    def __init__(self, blocks: list[TermBlock], n_terms: int, k1: float = K1, b: float = B,
                 epsilon: float = EPSILON):
        self.k1, self.b = k1, b
        self.n_terms = n_terms
        lengths = np.concatenate([blk.lengths for blk in blocks]) if blocks else np.zeros(0)
        self.n_rows = len(lengths)
        offsets = np.cumsum([0] + [int(blk.indptr[-1]) for blk in blocks])
        indptr = np.concatenate(
            [[0]] + [blk.indptr[1:] + off for blk, off in zip(blocks, offsets, strict=False)]
        ).astype(np.int64)
        terms = np.concatenate([blk.terms for blk in blocks]) if blocks else np.zeros(0, np.int32)
        counts = np.concatenate([blk.counts for blk in blocks]) if blocks else np.zeros(0)
        csc = sparse.csr_matrix((counts, terms, indptr), shape=(self.n_rows, n_terms)).tocsc()
        self.col_ptr = csc.indptr  # term t's postings: [col_ptr[t], col_ptr[t + 1])
        self.rows = csc.indices  # row of each posting, ascending within a term
        self.tf = csc.data  # term count of each posting
        df = np.diff(self.col_ptr)
        live = df > 0
        total = int(lengths.sum())
        self.avgdl = total / self.n_rows if self.n_rows else 0.0
        # Same expression as rank_bm25 (term by term): k1 * (1 - b + b * |d| / avgdl).
        self.norm = k1 * (1 - b + b * lengths / self.avgdl) if total else np.ones(self.n_rows)
        raw = np.log(self.n_rows - df + 0.5) - np.log(df + 0.5)
        self.average_idf = float(raw[live].sum() / live.sum()) if live.any() else 0.0
        idf = np.where(raw < 0, epsilon * self.average_idf, raw)
        self.idf = np.where(live, idf, 0.0)

    def _postings(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = self.col_ptr[term], self.col_ptr[term + 1]
        return self.rows[lo:hi], self.tf[lo:hi]

    def _weights(self, term: int, rows: np.ndarray, tf: np.ndarray) -> np.ndarray:
        tf = tf.astype(np.float64)
        return self.idf[term] * (tf * (self.k1 + 1) / (tf + self.norm[rows]))

    def accumulate(self, terms: list[int]) -> np.ndarray:
        """Dense scores of every row for the query ``terms`` (ids, repeats count twice)."""
        scores = np.zeros(self.n_rows)
        for t in terms:
            rows, tf = self._postings(t)
            if rows.size:
                scores[rows] += self._weights(t, rows, tf)  # rows are unique within a term
        return scores

    def score_rows(self, terms: list[int], rows: np.ndarray) -> np.ndarray:
        """Scores of the given rows only (binary search in each term's postings)."""
        scores = np.zeros(len(rows))
        for t in terms:
            p_rows, p_tf = self._postings(t)
            if not p_rows.size:
                continue
            pos = np.minimum(np.searchsorted(p_rows, rows), p_rows.size - 1)
            found = p_rows[pos] == rows
            tf = np.where(found, p_tf[pos], 0)
            scores += self._weights(t, rows, tf)
        return scores

    @property
    def nbytes(self) -> int:
        arrays = (self.col_ptr, self.rows, self.tf, self.norm, self.idf)
        return sum(a.nbytes for a in arrays)
