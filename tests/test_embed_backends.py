"""Embedding backends: ONNX Runtime exported locally from the bundled weights, the identity
each records in the corpus, and a corpus that keeps the backend it was indexed with."""

import numpy as np
import pytest

from core.app.ingest_jobs import ProgressEmbedder
from core.foundation import models
from core.foundation.models import get_embedder, identity, parse_identity
from core.store.corpus_store import CorpusStore
from core.store.vectors import EmbedderMismatch
from testkit.fakes.embedder import HashEmbedder

REF = "bundled:all-MiniLM-L6-v2"
TEXTS = [
    "The market for our products is intensely competitive.",
    "Total revenue | 26,974 | 26,914 " * 40,  # longer than the model's 256 tokens
    "We depend on third-party foundries to manufacture our chips.",
    "Total revenue | 26,974 | 26,914 " * 40,
    "x",
]


def test_identity_names_backend_and_precision_and_reads_back():
    assert identity(REF, "torch") == REF  # what every corpus indexed before backends records
    names = {identity(REF, "torch", "bfloat16"), identity(REF, "onnx"), identity(REF, "onnx-int8")}
    assert len(names) == 3 and REF not in names
    for backend, dtype in [("torch", "float32"), ("torch", "bfloat16"), ("onnx", "float32"),
                           ("onnx-int8", "float32")]:
        assert parse_identity(identity(REF, backend, dtype)) == (REF, backend, dtype, 0)
        cut = identity(REF, backend, dtype, 128)  # a cut length is another fingerprint
        assert cut.endswith("+t128") and cut not in names | {REF}
        assert parse_identity(cut) == (REF, backend, dtype, 128)


def test_auto_is_the_measured_backend_and_length_per_model(monkeypatch, settings):
    from core.foundation.models import resolve_backend, resolve_max_tokens

    monkeypatch.setattr(models, "onnx_available", lambda: True)
    assert resolve_backend("auto", REF) == "onnx-int8" and resolve_max_tokens(settings) == 128
    other = settings.model_copy(update={"embedding_model": "/models/another-encoder"})
    assert resolve_backend("auto", other.embedding_model) == "onnx"
    assert resolve_max_tokens(other) == 0  # its own length: nothing measured for it
    assert resolve_max_tokens(settings.model_copy(update={"embedding_max_tokens": 0})) == 0
    assert resolve_backend("torch", REF) == "torch"
    monkeypatch.setattr(models, "onnx_available", lambda: False)
    assert resolve_backend("auto", REF) == "torch"


class NamedHash(HashEmbedder):
    def __init__(self, name):
        super().__init__(64)
        self.name = name


def test_auto_backend_follows_the_backend_that_indexed_the_corpus(settings, monkeypatch):
    torch_like, onnx_like = NamedHash(REF), NamedHash(identity(REF, "onnx"))
    CorpusStore(settings, torch_like).close()  # indexed by torch (the bare name)
    calls = []

    def fake_get(s, backend=None, dtype=None, max_tokens=None):
        calls.append((backend, dtype, max_tokens))
        return torch_like

    monkeypatch.setattr(models, "get_embedder", fake_get)
    store = CorpusStore(settings, ProgressEmbedder(onnx_like))
    assert calls == [("torch", "float32", 0)]
    assert isinstance(store.embedder, ProgressEmbedder) and store.embedder.inner is torch_like
    assert store.vectors.embedder_name == REF
    store.close()


def test_a_named_backend_never_mixes_vectors_with_another(settings):
    CorpusStore(settings, NamedHash(REF)).close()
    named = settings.model_copy(update={"embedding_backend": "onnx"})
    with pytest.raises(EmbedderMismatch, match="never mixed. What differs: backend"):
        CorpusStore(named, NamedHash(identity(REF, "onnx")))
    other_model = NamedHash("some/other-model@onnx-fp32")
    with pytest.raises(EmbedderMismatch):  # another model is never followed
        CorpusStore(settings, ProgressEmbedder(other_model))


def _torch_corpus_moved_to_a_bf16_cpu(settings, monkeypatch, **update):
    """A corpus embedded by torch float32 (a CPU without bfloat16), opened with torch settings
    on a CPU that has it: the store and the embedder calls it asked for."""
    fp32 = NamedHash(identity(REF, "torch", "float32", 128))
    torch = settings.model_copy(update={"embedding_backend": "torch", **update})
    CorpusStore(torch, fp32).close()
    monkeypatch.setattr(models, "cpu_has_native_bf16", lambda *a: True)
    here = identity(REF, *models.resolve(torch))
    calls = []

    def fake_get(s, backend=None, dtype=None, max_tokens=None):
        calls.append((backend, dtype, max_tokens))
        return fp32

    monkeypatch.setattr(models, "get_embedder", fake_get)
    return lambda: CorpusStore(torch, ProgressEmbedder(NamedHash(here))), calls, here


def test_torch_with_auto_precision_opens_a_corpus_embedded_on_another_cpu(settings,
                                                                          monkeypatch):
    open_store, calls, here = _torch_corpus_moved_to_a_bf16_cpu(settings, monkeypatch)
    assert here.endswith("@torch-bf16+t128")  # a bf16 CPU (pinned above) chooses it
    store = open_store()
    assert calls == [("torch", "float32", 128)]  # the corpus's precision, not this CPU's
    assert store.vectors.embedder_name == identity(REF, "torch", "float32", 128)
    store.close()


def test_a_pinned_precision_that_differs_from_the_corpus_says_what_to_pin(settings,
                                                                       monkeypatch):
    open_store, calls, _ = _torch_corpus_moved_to_a_bf16_cpu(
        settings, monkeypatch, embedding_dtype="bfloat16")
    with pytest.raises(EmbedderMismatch) as err:
        open_store()
    text = str(err.value)
    assert "precision: the corpus float32, these settings bfloat16" in text
    assert "DTR_EMBEDDING_DTYPE=float32 opens it" in text and "new data folder" in text
    assert calls == []  # nothing was embedded with the other precision
    reopened = CorpusStore(settings.model_copy(update={"embedding_backend": "torch",
                                                       "embedding_dtype": "float32"}),
                           NamedHash(identity(REF, "torch", "float32", 128)))
    assert reopened.vectors.embedder_name.endswith("@torch-fp32+t128")  # the corpus as it was
    reopened.close()


@pytest.mark.slow
def test_onnx_backends_agree_with_torch_and_keep_input_order(tmp_path):
    from core.foundation.config import Settings

    s = Settings(_env_file=None, model_cache_dir=tmp_path / "models", embedding_max_tokens=0)
    ref = get_embedder(s, "torch", "float32").encode(TEXTS)
    fp32 = get_embedder(s, "onnx")
    int8 = get_embedder(s, "onnx-int8")
    assert fp32.name == identity(REF, "onnx") and int8.name == identity(REF, "onnx-int8")
    a, b = fp32.encode(TEXTS), int8.encode(TEXTS)
    assert a.shape == (5, 384) and a.dtype == np.float32
    assert np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-4)
    assert float(np.min(np.sum(a * ref, axis=1))) > 0.9999  # same model, same numbers
    assert float(np.min(np.sum(b * ref, axis=1))) > 0.97  # per-channel int8
    assert np.allclose(fp32.encode(TEXTS[::-1]), a[::-1], atol=1e-5)  # length-sorted batches
    assert sorted(p.name for p in (tmp_path / "models").rglob("*.onnx")) == [
        "model-fp32.onnx", "model-int8.onnx"]


@pytest.mark.slow
def test_a_cut_token_length_reads_the_start_of_long_texts_only(tmp_path):
    from core.foundation.config import Settings

    s = Settings(_env_file=None, model_cache_dir=tmp_path / "models", embedding_max_tokens=32)
    full = get_embedder(s, "onnx", max_tokens=0).encode(TEXTS)
    cut = get_embedder(s, "onnx")
    assert cut.name == identity(REF, "onnx", max_tokens=32)
    short = [0, 2, 4]  # under 32 tokens: read whole either way
    v = cut.encode(TEXTS)
    assert np.allclose(v[short], full[short], atol=1e-5)
    assert float(np.sum(v[1] * full[1])) < 0.9999  # the long table row is cut
    prefix = get_embedder(s, "onnx", max_tokens=0).encode([TEXTS[1][:60]])  # ~ its first tokens
    assert float(np.sum(v[1] * prefix[0])) > float(np.sum(v[1] * full[1]))
    torch_cut = get_embedder(s, "torch", "float32")  # the torch backend cuts the same way
    assert torch_cut.name == identity(REF, "torch", max_tokens=32)
    assert float(np.min(np.sum(torch_cut.encode(TEXTS) * v, axis=1))) > 0.9999


@pytest.mark.slow
def test_the_baseline_reads_its_pieces_whole_with_the_same_model_and_backend(settings,
                                                                             hash_embedder):
    from core.baseline.index import recipe_embedder

    cut = get_embedder(settings.model_copy(update={"embedding_max_tokens": 128}), "onnx-int8")
    assert cut.name == identity(REF, "onnx-int8", max_tokens=128)
    whole = recipe_embedder(ProgressEmbedder(cut), settings)
    assert whole.name == identity(REF, "onnx-int8")  # the model's own 256 tokens
    long = "Total revenue | 26,974 | 26,914 " * 12  # ~200 tokens
    assert float(np.dot(whole.encode([long])[0], cut.encode([long])[0])) < 0.9999
    assert recipe_embedder(whole, settings) is whole  # already whole
    assert recipe_embedder(hash_embedder, settings) is hash_embedder  # a fake: as given


def test_batches_run_side_by_side_give_the_vectors_of_one_thread_in_input_order(tmp_path,
                                                                                  monkeypatch):
    import os
    import threading
    from pathlib import Path

    from core.foundation.onnx_embedder import OnnxEmbedder

    folder = Path(models.resolve_embedding_path(REF))
    texts = [f"{t} ({i})" for i, t in enumerate(TEXTS * 6)]  # 30 texts, 8 batches of 4
    make = lambda threads: OnnxEmbedder(folder, tmp_path, name="x", batch_size=4,  # noqa: E731
                                        threads=threads)
    one, two = make(1), make(2)
    assert np.allclose(two.encode(texts), one.encode(texts), atol=1e-5)
    assert np.allclose(two.encode(texts[::-1]), one.encode(texts)[::-1], atol=1e-5)

    seen, inner = {}, two._batch

    def spy(encs):
        seen[threading.current_thread().name] = os.getpriority(
            os.PRIO_PROCESS, threading.get_native_id())
        return inner(encs)

    monkeypatch.setattr(two, "_batch", spy)
    errors = []

    def background():  # a reniced caller (an app batch): its helper runs reniced too
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 7)
            two.encode(texts)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    t = threading.Thread(target=background, name="caller")
    t.start()
    t.join()
    assert not errors and seen == {"caller": 7, "onnx-encode-1": 7}

    def broken(encs):
        if threading.current_thread().name == "onnx-encode-1":
            raise RuntimeError("helper failed")
        return inner(encs)

    monkeypatch.setattr(two, "_batch", broken)
    with pytest.raises(RuntimeError, match="helper failed"):  # not a silent zero vector
        two.encode(texts)
