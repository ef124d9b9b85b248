"""Choosing the reranker named by ``Settings.reranker`` (``core.foundation.strategies``):
``auto`` takes the configured cross-encoder when its weights can be had, else the best
measured offline choice (``OFFLINE_DEFAULT``: a local fallback from
``core.retrieval.fallback``, or none); ``llm`` asks the configured LLM
(``core.retrieval.llm_rerank``). The choice and its reason are reported in
``reranker.info`` (RerankerInfo) and in every SearchResult, never silently skipped.

Where the cross-encoder's weights come from, in order:

1. ``settings.reranker_model`` is a local folder;
2. the Hugging Face model cache already holds it;
3. the hub answers a brief probe (``settings.reranker_hub_probe_s``) and the model
   downloads. With ``HF_HUB_OFFLINE=1`` (the default here, set by core.foundation.models)
   there is no probe and no download.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Protocol

import numpy as np

import core.foundation.models  # noqa: F401  (sets HF_HUB_OFFLINE / OMP_WAIT_POLICY before torch)
from core.foundation.config import Settings
from core.foundation.strategies import RERANKERS
from core.foundation.types import Hit, RerankerInfo
from core.retrieval.fallback import METHODS, FallbackReranker, apply_rerank_scores

log = logging.getLogger(__name__)

# Measured on the development benchmarks (data/bench/RESULTS.md): without cross-encoder
# weights, which reranker (or none) gives the best recall@5 over the first-stage order.
# financebench-dev, hybrid R@5 filtered | pooled: none 0.829 | 0.771, lexical 0.714 | 0.686,
# passage 0.743 | 0.714.
OFFLINE_DEFAULT = "none"
OFFLINE_WHY = ("no reranker: the offline ones measured lower than the search's own order "
               "(data/bench/RESULTS.md)")


class Reranker(Protocol):
    """Reorders candidate hits for a query."""

    info: RerankerInfo

    def rerank(self, query: str, hits: list[Hit], top_n: int) -> list[Hit]: ...


class CrossEncoderReranker:
    """A sentence-transformers CrossEncoder scoring (query, chunk text) pairs."""

    def __init__(self, model, name: str, reason: str):
        self.model = model
        self.info = RerankerInfo(name=name, kind="cross-encoder", reason=reason)
        self._lock = threading.Lock()

    def rerank(self, query: str, hits: list[Hit], top_n: int) -> list[Hit]:
        if not hits:
            return []
        with self._lock:
            scores = np.asarray(
                self.model.predict(
                    [(query, h.chunk.text) for h in hits], show_progress_bar=False
                ),
                dtype=np.float64,
            ).reshape(-1)
        return apply_rerank_scores(hits, scores, top_n)


_MODELS: dict[str, object] = {}
_MODELS_LOCK = threading.Lock()


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


def _hub_endpoint() -> str:
    return os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")


def _in_cache(ref: str) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(ref, "config.json")
    except Exception:  # invalid repo id, unreadable cache...
        return False
    return isinstance(found, str)


def probe_hub(ref: str, timeout_s: float) -> str | None:
    """None when the hub answers for ``ref`` within ``timeout_s``; else the reason it did not."""
    import httpx

    try:
        resp = httpx.get(f"{_hub_endpoint()}/api/models/{ref}", timeout=timeout_s)
    except Exception as exc:
        return f"the model hub did not answer within {timeout_s:g}s ({type(exc).__name__})"
    if resp.status_code != 200:
        return f"the model hub answered HTTP {resp.status_code} for {ref}"
    return None


def _load_cross_encoder(ref: str, local_only: bool):
    with _MODELS_LOCK:
        if ref not in _MODELS:
            from sentence_transformers import CrossEncoder

            _MODELS[ref] = CrossEncoder(ref, device="cpu", local_files_only=local_only)
        return _MODELS[ref]


def locate_cross_encoder(settings: Settings) -> tuple[str | None, bool, str]:
    """(reference to load or None, local files only, reason)."""
    ref = settings.reranker_model
    if Path(ref).expanduser().is_dir():
        return str(Path(ref).expanduser()), True, f"cross-encoder loaded from the folder {ref}"
    if _in_cache(ref):
        return ref, True, f"cross-encoder {ref} found in the local model cache"
    if _offline():
        return None, True, (
            f"cross-encoder {ref} is not on disk or in the model cache and HF_HUB_OFFLINE=1 "
            "forbids downloading it"
        )
    problem = probe_hub(ref, settings.reranker_hub_probe_s)
    if problem:
        return None, False, f"cross-encoder {ref} is not on disk and {problem}"
    return ref, False, f"cross-encoder {ref} downloaded from the model hub"


class NoReranker:
    """Keeps the first-stage order: chosen by name, or by measurement (see OFFLINE_DEFAULT)."""

    def __init__(self, reason: str):
        self.info = RerankerInfo(name="none (first-stage order)", kind="none", reason=reason)

    def rerank(self, query: str, hits: list[Hit], top_n: int) -> list[Hit]:
        return [h.model_copy(update={"rank": i}) for i, h in enumerate(hits[:top_n], start=1)]


def _offline_choice(settings: Settings, embedder, store, reason: str):
    """The best measured reranker without cross-encoder weights or an LLM."""
    if OFFLINE_DEFAULT == "none":
        return NoReranker(f"{reason}; {OFFLINE_WHY}")
    return FallbackReranker(embedder, store, rrf_k=settings.rrf_k, method=OFFLINE_DEFAULT,
                            reason=f"{reason}; using the local fallback reranker")


def _llm_reranker(settings: Settings, llm):
    from core.llm.factory import make_chat_model
    from core.llm.structured import call_structured
    from core.retrieval.llm_rerank import LLMReranker

    llm = llm if llm is not None else make_chat_model(settings)
    if llm is None:
        return None

    def ask(schema, messages):
        return call_structured(llm, schema, messages, settings, role="reranker").value

    return LLMReranker(ask, settings.llm_model, candidates=settings.llm_rerank_candidates)


def get_reranker(settings: Settings, embedder, store, *, choice: str | None = None, llm=None):
    """The reranker ``choice`` (default ``settings.reranker``) names; see
    ``core.foundation.strategies.RERANKERS``. What cannot be had degrades to the best measured
    offline choice, and ``info.reason`` says why."""
    choice = choice or settings.reranker
    if choice not in RERANKERS:
        raise ValueError(f"unknown reranker {choice!r}; choose one of {', '.join(RERANKERS)}")
    if choice == "none":
        return NoReranker("chosen in the settings")
    if choice in METHODS:
        return FallbackReranker(embedder, store, rrf_k=settings.rrf_k, method=choice,
                                reason="chosen in the settings")
    if choice == "llm":
        reranker = _llm_reranker(settings, llm)
        if reranker is not None:
            return reranker
        return _offline_choice(settings, embedder, store, "LLM reranking needs an LLM and none is "
                        "configured")
    ref, local_only, reason = locate_cross_encoder(settings)
    if ref is not None:
        try:
            model = _load_cross_encoder(ref, local_only)
            return CrossEncoderReranker(model, settings.reranker_model, reason)
        except Exception as exc:
            reason = f"cross-encoder {settings.reranker_model} failed to load ({exc})"
            log.warning(reason)
    return _offline_choice(settings, embedder, store, reason)
