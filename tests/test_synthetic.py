"""The synthetic scale corpus (benchmarks) and `bench search` on it, with the hashing embedder."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

from core.bench.run import bench_search
from core.bench.synthetic import build_synthetic
from core.foundation.errors import StoreError
from core.store.corpus_store import CorpusStore
from testkit.corpus import amd_10k, nvda_10k, nvda_10q


@pytest.fixture
def seed(settings, hash_embedder):
    store = CorpusStore(settings, hash_embedder)
    for meta, chunks in (nvda_10k(), nvda_10q(), amd_10k()):
        store.add(meta, chunks)
    yield store
    store.close()


def test_synthetic_corpus_is_perturbed_sized_and_reused(seed, tmp_path):
    folder = tmp_path / "syn"
    settings, _ = build_synthetic(seed, folder, 7, chunks_per_filing=8, progress=lambda m: None)
    syn = CorpusStore(settings, seed.embedder)
    try:
        docs = syn.documents()
        assert len(docs) == 7 and len({d.company for d in docs}) == 7
        assert all(6 <= d.n_chunks <= 9 for d in docs)  # topped up from the next seed filings
        assert sum(d.n_chunks for d in docs) == len(syn.chunks()) == syn.vectors.count()
        texts = [c.text for c in syn.chunks()]
        own = [t for t in texts if "accelerated" in t or "fiscal 2024" in t]
        assert own and not any("NVIDIA" in t for t in own)  # the filer's name is replaced
        assert not any("26,974" in t for t in texts)  # numbers are rescaled
        assert len(set(texts)) > len(texts) * 0.8  # filings grown from one seed still differ
        first = syn.chunks(docs[0].doc_id)[0]
        origin = seed.chunks(nvda_10k()[0].doc_id)[0]
        cos = float(syn.get_vectors([first.chunk_id])[first.chunk_id]
                    @ seed.get_vectors([origin.chunk_id])[origin.chunk_id])
        assert 0.85 < cos < 0.9999  # the seed chunk's vector plus noise
        assert syn.keyword_search("revenue", 5) and len(syn.keyword) == len(texts)
    finally:
        syn.close()
    messages: list[str] = []
    build_synthetic(seed, folder, 7, chunks_per_filing=8, progress=messages.append)
    assert messages == []  # reused: nothing rebuilt
    settings, _ = build_synthetic(seed, folder, 5, chunks_per_filing=6,
                                  progress=messages.append)
    assert json.loads((folder / "synthetic.json").read_text())["n_filings"] == 5
    assert any("removing 7 filings of an earlier spec" in m for m in messages)
    with CorpusStore(settings, seed.embedder) as syn:
        assert len(syn.documents()) == 5 and syn.vectors.count() == len(syn.chunks())


def test_synthetic_refuses_a_folder_it_did_not_make(seed, tmp_path):
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    with pytest.raises(StoreError, match="other than a synthetic corpus"):
        build_synthetic(seed, tmp_path / "busy", 3, progress=lambda m: None)


def test_bench_search_on_a_synthetic_corpus(seed, settings, hash_embedder, monkeypatch, capsys):
    monkeypatch.setattr("core.foundation.models.get_embedder", lambda s: hash_embedder)
    seed.close()
    args = argparse.Namespace(queries=None, repeat=1, synthetic=4, synthetic_dir=None,
                              chunks_per_filing=6)
    assert bench_search(args, settings) == 0
    out = capsys.readouterr().out
    assert "synthetic corpus: 4 filings" in out and "not model embeddings" in out
    assert "corpus: 4 documents" in out and "keyword index: built in" in out
    for strategy in ("keyword", "vector", "hybrid", "hybrid+rerank", "hybrid, 1 filing"):
        assert any(line.startswith(strategy + " ") for line in out.splitlines())
    assert (settings.data_dir / "bench" / "synthetic-4" / "synthetic.json").exists()
    assert np.isfinite(float(out.split("process RSS ")[-1].split()[0]))
