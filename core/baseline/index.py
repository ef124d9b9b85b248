"""The baseline's own index (fixed-size chunks and their vectors), kept per document.

The walk-through's baseline re-chunks every filing into fixed 1000-character pieces and
embeds them; done for the whole corpus at once, the first comparison after any new
filing re-embedded everything (22 minutes at 55 filings, shown as the baseline's
answer time). Here each document's pieces are built once, with progress, and kept
under ``data_dir/baseline/docs``; ``missing`` says which filings still need them so
the app can call it first-run setup and time it apart from the answer. The Library builds
them in the background right after a batch is ingested (``core.app.ingest_jobs``), so the
first Compare finds them ready.

How the pieces are made, and what they cost: the walk-through's recipe, unchanged (the
filing's whole text, langchain's recursive splitter at 1000/150, every piece embedded whole
by the same MiniLM and backend as the deep index but at the model's own 256 tokens, not the
deep index's 128: ``recipe_embedder``); nothing is borrowed from the deep index's chunks or
vectors. They are about three fifths of an ingest's CPU (four 10-Ks: ~36 of ~61 CPU s, ONNX
int8 at 4 texts a call; at 64 texts a call ~65 of ~97: `bench ingest --baseline`).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from core.baseline.pieces import CHUNK_OVERLAP, CHUNK_SIZE, split_document
from core.foundation.config import Settings
from core.foundation.types import Chunk, DocumentMeta

SLICE = 128
_MEMORY = 64  # documents' indexes held in memory
_cache: OrderedDict[Path, tuple[int, list[Chunk], np.ndarray]] = OrderedDict()
_lock = threading.Lock()
_building: dict[Path, threading.Lock] = {}  # one builder per document at a time

Progress = Callable[[str, int, int], None]  # (document name, chunks done, chunks total)


def recipe_embedder(embedder: Any, settings: Settings) -> Any:
    """The embedder the baseline reads its pieces and questions with: the recipe embeds each
    1000-character piece whole, so a model cut to fewer tokens for the deep agent's own
    chunks (``DTR_EMBEDDING_MAX_TOKENS``, 128 by default) is used here at its own length,
    same model and backend. Anything else (a fake, another model) is used as given."""
    from core.foundation.models import get_embedder, is_model_embedder, parse_identity

    inner = getattr(embedder, "inner", embedder)
    model, backend, dtype, tokens = parse_identity(getattr(inner, "name", ""))
    if not tokens or model != settings.embedding_model or not is_model_embedder(inner):
        return embedder
    return get_embedder(settings, backend, dtype, max_tokens=0)


def _paths(settings: Settings, embedder: Any, doc_id: str) -> tuple[Path, Path]:
    key = hashlib.sha256(json.dumps([embedder.name, CHUNK_SIZE, CHUNK_OVERLAP, doc_id]).encode()
                         ).hexdigest()[:20]
    folder = settings.data_dir / "baseline" / "docs"
    return folder / f"{key}.json", folder / f"{key}.npy"


def missing(settings: Settings, embedder: Any, docs: Sequence[DocumentMeta]
            ) -> list[DocumentMeta]:
    """The documents whose baseline index is not built yet."""
    embedder = recipe_embedder(embedder, settings)
    return [d for d in docs if not all(p.exists() for p in _paths(settings, embedder, d.doc_id))]


def _doc_lock(path: Path) -> threading.Lock:
    with _lock:
        return _building.setdefault(path, threading.Lock())


def build_doc(store: Any, embedder: Any, doc: DocumentMeta, settings: Settings,
              on_progress: Progress | None = None) -> tuple[list[Chunk], np.ndarray]:
    """Fixed-size chunks of ``doc`` and their vectors, written to disk. One thread builds a
    document at a time: a second caller (a Compare while the pieces are built in the
    background after ingest) waits for the first and reads what it wrote."""
    embedder = recipe_embedder(embedder, settings)
    meta_path, vec_path = _paths(settings, embedder, doc.doc_id)
    with _doc_lock(meta_path):
        if meta_path.exists() and vec_path.exists():
            chunks = [Chunk.model_validate(c) for c in json.loads(meta_path.read_text("utf-8"))]
            return chunks, np.load(vec_path)
        return _build(store, embedder, doc, settings, on_progress)


def _build(store: Any, embedder: Any, doc: DocumentMeta, settings: Settings,
           on_progress: Progress | None) -> tuple[list[Chunk], np.ndarray]:
    if store.get_document(doc.doc_id) is None:  # deleted before its turn: nothing to keep
        return [], np.zeros((0, embedder.dim), dtype=np.float32)
    chunks = split_document(doc, store.chunks(doc.doc_id))
    texts = [c.text for c in chunks]
    parts = []
    for start in range(0, len(texts), SLICE):
        parts.append(np.asarray(embedder.encode(texts[start:start + SLICE]), dtype=np.float32))
        if on_progress is not None:
            on_progress(doc.file_name, min(start + SLICE, len(texts)), len(texts))
    vecs = np.concatenate(parts) if parts else np.zeros((0, embedder.dim), dtype=np.float32)
    meta_path, vec_path = _paths(settings, embedder, doc.doc_id)
    meta_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = vec_path.with_name(vec_path.stem + ".tmp.npy")
    np.save(tmp, vecs)
    tmp.replace(vec_path)
    tmp_meta = meta_path.with_name(meta_path.name + ".tmp")
    tmp_meta.write_text(json.dumps([c.model_dump() for c in chunks]), "utf-8")
    tmp_meta.replace(meta_path)  # written last: its presence means the pair is complete
    return chunks, vecs


def _load_doc(store: Any, embedder: Any, doc: DocumentMeta, settings: Settings
              ) -> tuple[list[Chunk], np.ndarray]:
    meta_path, vec_path = _paths(settings, embedder, doc.doc_id)
    if not (meta_path.exists() and vec_path.exists()):
        return build_doc(store, embedder, doc, settings)
    stamp = meta_path.stat().st_mtime_ns
    with _lock:
        hit = _cache.get(meta_path)
        if hit is not None and hit[0] == stamp:
            _cache.move_to_end(meta_path)
            return hit[1], hit[2]
    chunks = [Chunk.model_validate(c) for c in json.loads(meta_path.read_text("utf-8"))]
    vecs = np.load(vec_path)
    with _lock:
        _cache[meta_path] = (stamp, chunks, vecs)
        while len(_cache) > _MEMORY:
            _cache.popitem(last=False)
    return chunks, vecs


def prepare(store: Any, embedder: Any, docs: Sequence[DocumentMeta], settings: Settings,
            on_progress: Progress | None = None,
            should_stop: Callable[[], bool] | None = None) -> int:
    """Build what is missing for ``docs``; returns how many documents were built.
    ``should_stop`` is asked before each document (a cancelled background build)."""
    embedder = recipe_embedder(embedder, settings)
    todo = missing(settings, embedder, docs)
    built = 0
    for doc in todo:
        if should_stop is not None and should_stop():
            break
        build_doc(store, embedder, doc, settings, on_progress)
        built += 1
    return built


def load_index(store: Any, embedder: Any, docs: Sequence[DocumentMeta], settings: Settings
               ) -> tuple[list[Chunk], np.ndarray]:
    """All fixed-size chunks of ``docs`` and their vectors (missing documents built now)."""
    embedder = recipe_embedder(embedder, settings)
    chunks: list[Chunk] = []
    parts = []
    for doc in docs:
        c, v = _load_doc(store, embedder, doc, settings)
        chunks.extend(c)
        parts.append(v)
    vecs = np.concatenate(parts) if parts else np.zeros((0, embedder.dim), dtype=np.float32)
    return chunks, vecs


def forget(settings: Settings, embedder: Any, doc_id: str) -> None:
    """Delete the baseline pieces of ``doc_id`` (a deleted filing leaves nothing behind); a
    build of them in progress (in the background after an ingest) finishes first."""
    embedder = recipe_embedder(embedder, settings)
    meta_path, vec_path = _paths(settings, embedder, doc_id)
    with _doc_lock(meta_path):
        for path in (meta_path, vec_path):
            _cache.pop(path, None)
            path.unlink(missing_ok=True)
