"""A deterministic embedder for tests (no model): hashed bag of words, L2-normalised."""

from __future__ import annotations

import re
import zlib

import numpy as np


class HashEmbedder:
    """Deterministic bag-of-words hashing embedder: fast stand-in for tests."""

    def __init__(self, dim: int = 256):
        self.name = f"hash-{dim}"
        self.dim = dim

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for tok in re.findall(r"[a-z0-9]+", text.lower()):
                out[i, zlib.crc32(tok.encode()) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms
