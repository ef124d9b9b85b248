"""Ingest speed choices that are behaviour, not timing: the embedding batch size per backend."""

from __future__ import annotations

import pytest

from core.foundation import models
from core.foundation.config import Settings


@pytest.mark.parametrize("backend", ["onnx", "onnx-int8", "torch"])
def test_unset_batch_size_is_the_backends_measured_one_and_a_set_one_wins(backend, tmp_path):
    unset = Settings(data_dir=tmp_path)
    assert unset.embed_batch_size is None
    assert models.batch_size(unset, backend) == models.BATCH[backend]
    for size in (1, 7, 96):
        assert models.batch_size(Settings(data_dir=tmp_path, embed_batch_size=size),
                                 backend) == size


def test_the_onnx_embedder_loaded_for_the_settings_uses_their_batch_size(tmp_path):
    pytest.importorskip("onnxruntime")
    for size in (None, 3):
        s = Settings(data_dir=tmp_path, embedding_backend="onnx-int8", embed_batch_size=size)
        embedder = models.get_embedder(s)
        assert embedder.batch_size == (size or models.BATCH["onnx-int8"])
