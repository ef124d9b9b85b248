"""The bundled embedding model, loaded offline, in both precisions."""

import numpy as np
import pytest

from core.foundation import models
from core.foundation.models import (
    SentenceEmbedder,
    cpu_flags,
    cpu_has_native_bf16,
    identity,
    resolve,
    resolve_dtype,
)

TEXTS = [
    "The market for our products is intensely competitive.",
    "Total revenue | 26,974 | 26,914",
    "We depend on third-party foundries to manufacture our chips.",
]


AVX2 = "processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma\n"
BF16 = "processor\t: 0\nflags\t\t: fpu sse2 avx avx2 avx512f avx512_bf16\n"
AMX = "processor\t: 0\nflags\t\t: fpu avx2 amx_tile amx_bf16\n"


@pytest.mark.parametrize("text,native", [(AVX2, False), (BF16, True), (AMX, True), ("", False)])
def test_native_bfloat16_is_read_from_the_cpu_flags(tmp_path, text, native):
    info = tmp_path / "cpuinfo"
    info.write_text(text)
    assert cpu_has_native_bf16(info) is native
    assert ("avx2" in cpu_flags(info)) is bool(text)


def test_an_unreadable_cpuinfo_means_no_native_bfloat16(tmp_path):
    assert cpu_flags(tmp_path / "absent") == frozenset()
    assert cpu_has_native_bf16(tmp_path / "absent") is False


def test_auto_dtype_is_bf16_where_the_cpu_has_it_and_fp32_where_it_has_not():
    assert resolve_dtype("auto", native_bf16=True) == "bfloat16"
    assert resolve_dtype("auto", native_bf16=False) == "float32"
    for native in (True, False):  # an explicit setting is kept on every CPU
        assert resolve_dtype("float32", native) == "float32"
        assert resolve_dtype("bfloat16", native) == "bfloat16"


@pytest.mark.parametrize("native", [True, False])
def test_the_default_corpus_identity_does_not_depend_on_the_cpu(monkeypatch, native):
    from core.foundation.config import Settings

    monkeypatch.setattr(models, "cpu_has_native_bf16", lambda *a: native)
    monkeypatch.setattr(models, "onnx_available", lambda: True)
    s = Settings(_env_file=None)
    assert identity(s.embedding_model, *resolve(s)) == "bundled:all-MiniLM-L6-v2@onnx-int8+t128"
    torch = s.model_copy(update={"embedding_backend": "torch"})  # torch's auto precision does
    assert resolve(torch)[1] == ("bfloat16" if native else "float32")


@pytest.mark.slow
def test_real_embedder_is_normalised_and_semantic(real_embedder):
    vecs = real_embedder.encode(TEXTS + ["Competition could cause us to lose market share."])
    assert vecs.shape == (4, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-3)
    sims = vecs[:3] @ vecs[3]
    assert int(np.argmax(sims)) == 0  # the competition sentence is nearest


@pytest.mark.slow
def test_bfloat16_vectors_agree_with_float32():  # torch computes bfloat16 on any CPU
    full = SentenceEmbedder("bundled:all-MiniLM-L6-v2", dtype="float32").encode(TEXTS)
    half = SentenceEmbedder("bundled:all-MiniLM-L6-v2", dtype="bfloat16").encode(TEXTS)
    assert half.dtype == np.float32
    assert float(np.min(np.sum(full * half, axis=1))) > 0.99
