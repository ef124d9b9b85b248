"""The bundled embedding model, loaded offline, in both precisions."""

import numpy as np
import pytest

from core.foundation.models import SentenceEmbedder, cpu_has_native_bf16, resolve_dtype

TEXTS = [
    "The market for our products is intensely competitive.",
    "Total revenue | 26,974 | 26,914",
    "We depend on third-party foundries to manufacture our chips.",
]


def test_resolve_dtype_respects_explicit_setting():
    assert resolve_dtype("float32") == "float32"
    assert resolve_dtype("bfloat16") == "bfloat16"
    assert resolve_dtype("auto") == ("bfloat16" if cpu_has_native_bf16() else "float32")


@pytest.mark.slow
def test_real_embedder_is_normalised_and_semantic(real_embedder):
    vecs = real_embedder.encode(TEXTS + ["Competition could cause us to lose market share."])
    assert vecs.shape == (4, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-3)
    sims = vecs[:3] @ vecs[3]
    assert int(np.argmax(sims)) == 0  # the competition sentence is nearest


@pytest.mark.slow
@pytest.mark.skipif(not cpu_has_native_bf16(), reason="CPU has no native bfloat16")
def test_bfloat16_vectors_agree_with_float32():
    full = SentenceEmbedder("bundled:all-MiniLM-L6-v2", dtype="float32").encode(TEXTS)
    half = SentenceEmbedder("bundled:all-MiniLM-L6-v2", dtype="bfloat16").encode(TEXTS)
    assert half.dtype == np.float32
    assert float(np.min(np.sum(full * half, axis=1))) > 0.99
