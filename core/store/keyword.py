"""The keyword index: BM25 Okapi (rank_bm25's formula) over the registry's chunk texts.

It is derived data: built lazily from the ready chunks in the registry on the first search and
rebuilt on the next search after any add or delete, by this process (``invalidate``) or by
another one (the set of ready documents is compared on each call). Term counts are kept per
document, so a rebuild only tokenises the documents it has not seen. Scoring reads an inverted
index (:mod:`core.store.bm25`): a query costs the postings of its terms, not the corpus size.
Filters (documents, sections) select among the scored rows before the top-k cut, never after.

What is indexed per chunk is ``text_of(chunk, document)``: by default the chunk's own text; the
caller may add its context (company, period, section title, table headings).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np

from core.foundation.types import Chunk, DocumentMeta
from core.store.bm25 import Bm25Matrix, TermBlock
from core.store.registry_api import Registry
from core.store.tokenize import tokenize

TextOf = Callable[[Chunk, DocumentMeta | None], str]


def chunk_text(chunk: Chunk, doc: DocumentMeta | None) -> str:
    """The default indexed text: the chunk's own words."""
    return chunk.text


class _DocTerms:
    """One document's rows: chunk ids, sections and term counts."""

    __slots__ = ("chunk_ids", "sections", "block")

    def __init__(self, chunk_ids: list[str], sections: list[str], block: TermBlock):
        self.chunk_ids, self.sections, self.block = chunk_ids, sections, block


class _Built:
    """An immutable snapshot: the matrix plus row -> chunk / document / section maps."""

    def __init__(self, doc_ids: list[str], docs: list[_DocTerms], n_terms: int):
        self.doc_ids = doc_ids
        self.matrix = Bm25Matrix([d.block for d in docs], n_terms)
        self.ids = [cid for d in docs for cid in d.chunk_ids]
        self.row = {cid: i for i, cid in enumerate(self.ids)}
        self.doc_index = {d: i for i, d in enumerate(doc_ids)}
        sizes = [d.block.n_rows for d in docs]
        self.doc_of_row = np.repeat(np.arange(len(docs), dtype=np.int32), sizes)
        self.doc_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        titles: dict[str, int] = {}
        codes = [titles.setdefault(s, len(titles)) for d in docs for s in d.sections]
        self.section_code = np.asarray(codes, dtype=np.int32)
        self.section_index = titles

    def allowed(self, rows: np.ndarray, doc_ids, sections) -> np.ndarray:
        """The subset of ``rows`` inside the document and section filters."""
        if doc_ids is not None:
            ok = np.zeros(len(self.doc_ids), dtype=bool)
            ok[[self.doc_index[d] for d in doc_ids if d in self.doc_index]] = True
            rows = rows[ok[self.doc_of_row[rows]]]
        if sections is not None:
            ok = np.zeros(len(self.section_index), dtype=bool)
            ok[[self.section_index[s] for s in sections if s in self.section_index]] = True
            rows = rows[ok[self.section_code[rows]]]
        return rows

    def rows_in(self, doc_ids, sections) -> np.ndarray:
        """Rows inside the filters (a document's rows are contiguous)."""
        if doc_ids is None:
            return self.allowed(np.arange(len(self.ids)), None, sections)
        found = sorted(self.doc_index[d] for d in set(doc_ids) if d in self.doc_index)
        spans = [np.arange(self.doc_start[i], self.doc_start[i + 1]) for i in found]
        rows = np.concatenate(spans) if spans else np.zeros(0, dtype=np.int64)
        return self.allowed(rows, None, sections)


class Scope:
    """The ready chunks inside a document/section filter, as of one index snapshot."""

    def __init__(self, built: _Built, rows: np.ndarray):
        self._built, self.rows = built, rows
        self._mask: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def share(self) -> float:
        """Its share of every ready chunk (0 when there are none)."""
        total = len(self._built.ids)
        return len(self.rows) / total if total else 0.0

    def ids(self) -> list[str]:
        ids = self._built.ids
        return [ids[r] for r in self.rows.tolist()]

    def parts(self) -> list[tuple[str, list[str], np.ndarray]]:
        """Per document in the scope: (doc_id, all its chunk ids in order, positions in scope)."""
        b = self._built
        docs = b.doc_of_row[self.rows]
        out = []
        for i in np.unique(docs).tolist():
            start, end = int(b.doc_start[i]), int(b.doc_start[i + 1])
            out.append((b.doc_ids[i], b.ids[start:end], self.rows[docs == i] - start))
        return out

    def n_docs(self) -> int:
        return int(np.unique(self._built.doc_of_row[self.rows]).size)

    def __contains__(self, chunk_id: str) -> bool:
        if self._mask is None:
            self._mask = np.zeros(len(self._built.ids), dtype=bool)
            self._mask[self.rows] = True
        row = self._built.row.get(chunk_id)
        return row is not None and bool(self._mask[row])


class KeywordIndex:
    """BM25 over every ready chunk of a registry."""

    def __init__(
        self,
        registry: Registry,
        tokenizer: Callable[[str], list[str]] = tokenize,
        text_of: TextOf = chunk_text,
    ):
        self.registry = registry
        self.tokenizer = tokenizer
        self.text_of = text_of
        self._lock = threading.RLock()
        self._docs: dict[str, _DocTerms] = {}
        self._vocab: dict[str, int] = {}
        self._stale = True
        self._built: _Built | None = None
        self._ready: list[str] = []
        self.build_seconds = 0.0

    def invalidate(self, doc_id: str | None = None) -> None:
        """Mark the index stale (and forget ``doc_id``'s term counts, e.g. after a delete)."""
        with self._lock:
            if doc_id is not None:
                self._docs.pop(doc_id, None)
            self._stale = True

    def _tokenise(self, chunks: list[Chunk], doc: DocumentMeta | None,
                  vocab: dict[str, int] | None = None) -> _DocTerms:
        """The document's rows; new terms are added to ``vocab`` (default: the index's)."""
        vocab = self._vocab if vocab is None else vocab
        tokens = [self.tokenizer(self.text_of(c, doc)) for c in chunks]
        flat = [t for row in tokens for t in row]
        for t in set(flat).difference(vocab):
            vocab[t] = len(vocab)
        return _DocTerms([c.chunk_id for c in chunks], [c.section for c in chunks],
                         TermBlock.from_token_ids([len(r) for r in tokens],
                                                  list(map(vocab.__getitem__, flat))))

    def _build(self, ready: list[str]) -> None:
        t0 = time.perf_counter()
        wanted = set(ready)
        self._docs = {d: t for d, t in self._docs.items() if d in wanted}
        missing = [d for d in ready if d not in self._docs]
        if missing:
            metas = {m.doc_id: m for m in self.registry.documents()}
            for doc_id in missing:
                self._docs[doc_id] = self._tokenise(self.registry.chunks(doc_id),
                                                    metas.get(doc_id))
        order = [d for d in ready if d in self._docs]
        self._built = _Built(order, [self._docs[d] for d in order], len(self._vocab))
        self._ready = ready
        self._stale = False
        self.build_seconds = time.perf_counter() - t0

    def ensure(self) -> _Built:
        """Build or rebuild the index if it is stale; returns the current snapshot."""
        ready = self.registry.ready_ids()
        with self._lock:
            if self._stale or self._built is None or ready != self._ready:
                self._build(ready)
            return self._built

    def _term_ids(self, built: _Built, terms: list[str]) -> list[int]:
        """Ids of the terms the snapshot knows (the vocabulary may have grown since)."""
        vocab, n = self._vocab, built.matrix.n_terms
        ids = (vocab.get(t, n) for t in terms)
        return [i for i in ids if i < n]

    def search(
        self,
        query: str,
        k: int,
        doc_ids: list[str] | None = None,
        sections: list[str] | None = None,
    ) -> list[tuple[str, float]]:
        """Top ``k`` chunk ids by BM25 among chunks of ``doc_ids`` and ``sections``.

        Chunks that share no token with the query (score 0) are not returned; equal scores
        keep corpus order (documents as added, chunks in reading order).
        """
        if k <= 0:
            return []
        built = self.ensure()
        terms = self._term_ids(built, self.tokenizer(query))
        if not terms:
            return []
        scores = built.matrix.accumulate(terms)
        rows = built.allowed(np.flatnonzero(scores > 0), doc_ids, sections)
        values = scores[rows]
        if rows.size > k:
            kth = np.partition(values, rows.size - k)[rows.size - k]
            keep = values >= kth
            rows, values = rows[keep], values[keep]
        order = np.lexsort((rows, -values))[:k]
        return [(built.ids[rows[i]], float(values[i])) for i in order]

    def score(self, query: str, chunk_ids: list[str]) -> dict[str, float]:
        """BM25 scores of ``query`` for the given chunks (corpus-wide IDF); unknown ids: 0."""
        built = self.ensure()
        terms = self._term_ids(built, self.tokenizer(query))
        known = [c for c in chunk_ids if c in built.row]
        out = dict.fromkeys(chunk_ids, 0.0)
        if terms and known:
            rows = np.fromiter((built.row[c] for c in known), dtype=np.int64, count=len(known))
            for c, s in zip(known, built.matrix.score_rows(terms, rows), strict=True):
                out[c] = float(s)
        return out

    def idf(self, terms: list[str]) -> dict[str, float]:
        """Corpus IDF of each (already tokenised) term; 0 for unknown terms."""
        built = self.ensure()
        idf = built.matrix.idf
        return {t: float(idf[i[0]]) if (i := self._term_ids(built, [t])) else 0.0 for t in terms}

    def scope(self, doc_ids: list[str] | None, sections: list[str] | None) -> Scope | None:
        """The ready chunks inside ``doc_ids`` and ``sections`` (``None``: no filter).

        ``None`` until the index has been built once: a first build tokenises the corpus
        (~70 s at 370k chunks here), which a vector search should not wait for; later
        rebuilds only tokenise new documents.
        """
        if self._built is None:
            return None
        built = self.ensure()
        return Scope(built, built.rows_in(doc_ids, sections))

    def out_of_step(self) -> dict[str, int]:
        """Documents whose rows here differ from their chunks as the registry reads now:
        doc_id -> rows that differ, are missing or are gone. What another process changed
        without this one re-reading it (a corrected company name in each chunk's indexed
        context) shows here; an index just built from the registry has none. Builds the index
        first if it never was; raises what reading the registry raises."""
        built = self.ensure()
        metas = {m.doc_id: m for m in self.registry.documents()}
        with self._lock:
            held, vocab = dict(self._docs), dict(self._vocab)  # a copy: nothing is changed
        out = {}
        for doc_id in built.doc_ids:
            fresh = self._tokenise(self.registry.chunks(doc_id), metas.get(doc_id), vocab)
            n = _differing_rows(held.get(doc_id), fresh)
            if n:
                out[doc_id] = n
        return out

    def rebuild(self) -> int:
        """Tokenise every ready chunk again from the registry and rebuild; returns the rows."""
        with self._lock:
            self._docs.clear()
            self._stale = True
            return len(self.ensure().ids)

    def memory_bytes(self) -> int:
        """Bytes held in numpy arrays (term counts per document plus the built index)."""
        with self._lock:
            held = sum(d.block.nbytes for d in self._docs.values())
            return held + (self._built.matrix.nbytes if self._built else 0)

    def __len__(self) -> int:
        return len(self.ensure().ids)


def _rows(terms: _DocTerms) -> dict[str, tuple]:
    b = terms.block
    out = {}
    for i, (chunk_id, section) in enumerate(zip(terms.chunk_ids, terms.sections, strict=True)):
        start, end = int(b.indptr[i]), int(b.indptr[i + 1])
        out[chunk_id] = (section, int(b.lengths[i]), b.terms[start:end].tolist(),
                         b.counts[start:end].tolist())
    return out


def _differing_rows(held: _DocTerms | None, fresh: _DocTerms) -> int:
    """Rows of one document that differ between two tokenisations (or exist in one only)."""
    if held is None:
        return fresh.block.n_rows
    a, b = _rows(held), _rows(fresh)
    return sum(1 for chunk_id in a.keys() | b.keys() if a.get(chunk_id) != b.get(chunk_id))
