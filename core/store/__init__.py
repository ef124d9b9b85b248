"""The persistent corpus: document registry, Chroma vectors, BM25 keyword index."""

from core.store.corpus_store import CorpusStore

__all__ = ["CorpusStore"]
