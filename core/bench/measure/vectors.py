"""An embedding cache for measurement runs: the same text is embedded once across runs.

Indexing experiments change the header of some chunks, not their text, so most of what a
new corpus embeds was embedded by an earlier run. ``CachedEmbedder`` wraps the product's
embedder with a SQLite table of vectors keyed by a hash of the model name and the text.
It is used by ``python -m core.bench.measure`` only, never by the product.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path

import numpy as np


class CachedEmbedder:
    """``encode`` through a persistent cache (same name and dim as the wrapped embedder)."""

    def __init__(self, embedder, path: Path):
        self.inner = embedder
        self.name = embedder.name
        self.dim = embedder.dim
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(path), check_same_thread=False)
        self._conn.execute("CREATE TABLE IF NOT EXISTS v (k TEXT PRIMARY KEY, vec BLOB)")
        self._lock = threading.Lock()

    def _key(self, text: str) -> str:
        return hashlib.sha1(f"{self.name}\0{text}".encode()).hexdigest()

    def encode(self, texts: list[str]) -> np.ndarray:
        keys = [self._key(t) for t in texts]
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                part = keys[start:start + 500]
                rows = self._conn.execute(
                    f"SELECT k, vec FROM v WHERE k IN ({','.join('?' * len(part))})", part)
                found.update((k, np.frombuffer(b, dtype=np.float32)) for k, b in rows)
        missing = [i for i, k in enumerate(keys) if k not in found]
        if missing:
            fresh = np.asarray(self.inner.encode([texts[i] for i in missing]), dtype=np.float32)
            with self._lock, self._conn:
                self._conn.executemany("INSERT OR REPLACE INTO v VALUES (?, ?)",
                                       [(keys[i], fresh[j].tobytes())
                                        for j, i in enumerate(missing)])
            found.update((keys[i], fresh[j]) for j, i in enumerate(missing))
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([found[k] for k in keys])
