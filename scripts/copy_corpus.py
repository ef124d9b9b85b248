"""Copy the corpus of an embedded data folder into the corpus the environment configures
(e.g. team mode: DTR_DATABASE_URL + DTR_CHROMA_URL), with the same chunks and the same
vectors: no parsing, no embedding. Used to measure both modes on one corpus; also a way to
move an existing corpus to team mode.

    DTR_DATABASE_URL=... DTR_CHROMA_URL=... PYTHONPATH=. python scripts/copy_corpus.py SRC_DIR
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from core.foundation.config import load_settings
from core.store.corpus_store import CorpusStore


class _Stored:
    """Stands in for the embedder that made the stored vectors (never asked to encode)."""

    def __init__(self, name: str, dim: int):
        self.name, self.dim = name, dim

    def encode(self, texts):  # pragma: no cover - copying never embeds
        raise RuntimeError("copy_corpus does not embed")


def main(src_dir: str) -> int:
    dst_settings = load_settings()
    src_settings = dst_settings.model_copy(update={
        "data_dir": Path(src_dir), "database_url": None, "chroma_url": None})
    probe = CorpusStore(src_settings, _Stored(dst_settings.embedding_model, 384))
    meta = probe.vectors.collection.metadata or {}
    embedder = _Stored(meta.get("embedder") or dst_settings.embedding_model,
                       int(meta.get("dim") or 384))
    src, dst = probe, CorpusStore(dst_settings, embedder)
    t0 = time.perf_counter()
    for doc in src.documents():
        if dst.get_document(doc.doc_id) is not None:
            print(f"= {doc.file_name} already there")
            continue
        chunks = src.chunks(doc.doc_id)
        found = src.get_vectors([c.chunk_id for c in chunks])
        vectors = np.stack([found[c.chunk_id] for c in chunks]).astype(np.float32)
        with dst.storage.writer_lock():
            dst.registry.write_pending(doc, chunks)
            dst.vectors.add(chunks, vectors)
            dst.registry.mark_ready(doc.doc_id)
        print(f"+ {doc.file_name}: {len(chunks)} chunks")
    print(f"copied in {time.perf_counter() - t0:.1f}s; {len(dst.documents())} documents")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
