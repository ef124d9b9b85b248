"""Recall of one benchmark under several embedding backends, on the same chunks.

    python scripts/measure_backend.py BENCH CORPUS_DIR --work DIR [--backends torch:0,onnx-int8:128]
        [--configs vector,hybrid] [--regimes filtered,pooled]

A backend may carry the token length its texts are cut to (``onnx-int8:128``; ``:0`` = the
model's own; without it, the setting's / the measured default).

CORPUS_DIR is a data folder holding the benchmark's filings (ingested with today's code);
it is copied once per backend into DIR, the copy's vectors re-computed by that backend
(chunks, headers and keyword index untouched, so only the embedder differs), and the
measure's own scoring (``core.bench.measure.run.evaluate``) run on each copy. Prints
recall@1/3/5/10 and MRR@10 per backend, regime and configuration, and the seconds the
re-embedding took (wall and CPU, with the load average beside them).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import core.foundation.models  # noqa: E402,F401  (environment before torch)


def _reembed(settings, embedder) -> tuple[int, float, float]:
    from core.app.corpus import Corpus
    from core.store.index_text import vector_text

    corpus = Corpus(settings)  # the recorded backend ('auto' follows the corpus)
    col = corpus.store.vectors.collection
    n, wall, cpu = 0, 0.0, 0.0
    for meta in corpus.documents():
        chunks = corpus.store.chunks(meta.doc_id)
        texts = [vector_text(c, meta, settings.embed_context) for c in chunks]
        t0, c0 = time.perf_counter(), time.process_time()
        vecs = embedder.encode(texts)
        wall += time.perf_counter() - t0
        cpu += time.process_time() - c0
        for a in range(0, len(chunks), 1000):
            col.update(ids=[c.chunk_id for c in chunks[a:a + 1000]], embeddings=vecs[a:a + 1000])
        n += len(chunks)
    col.modify(metadata={"embedder": embedder.name, "dim": embedder.dim})
    corpus.close()
    return n, wall, cpu


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench")
    ap.add_argument("corpus")
    ap.add_argument("--work", required=True)
    ap.add_argument("--backends", default="torch,onnx-int8")
    ap.add_argument("--configs", default="vector,hybrid")
    ap.add_argument("--regimes", default="filtered,pooled")
    args = ap.parse_args(argv)

    from core.app.corpus import Corpus
    from core.bench.measure.run import evaluate, format_table
    from core.bench.measure.sets import load_set
    from core.foundation.config import Settings
    from core.foundation.models import get_embedder
    from core.foundation.strategies import measured_configs

    base = Settings()
    bench = load_set(args.bench)
    configs = [c for c in measured_configs() if c[0] in args.configs.split(",")]
    for spec in args.backends.split(","):
        backend, _, tokens = spec.partition(":")
        folder = Path(args.work) / f"{Path(args.corpus).name}-{spec.replace(':', '-t')}"
        settings = base.model_copy(update={"data_dir": folder, "database_url": None})
        embedder = get_embedder(settings, backend, max_tokens=int(tokens) if tokens else None)
        if not folder.exists():
            shutil.copytree(args.corpus, folder, ignore=shutil.ignore_patterns("writer.lock"))
        probe = Corpus(settings)
        recorded = probe.store.vectors.collection.metadata.get("embedder")
        probe.close()
        if recorded != embedder.name:
            n, wall, cpu = _reembed(settings, embedder)
            print(f"{backend}: re-embedded {n} chunks in {wall:.1f}s wall, {cpu:.1f}s CPU "
                  f"({n / wall:.1f} chunks/s; load {os.getloadavg()[0]:.1f})", flush=True)
        corpus = Corpus(settings, embedder=embedder)
        assert corpus.embedder.name == embedder.name, (corpus.embedder.name, embedder.name)
        file_of = {d.doc_id: d.file_name for d in corpus.documents()}
        results = {r: evaluate(corpus, bench, file_of, regime=r, configs=configs)
                   for r in args.regimes.split(",")}
        print(f"\n### {bench.name} / {backend} ({corpus.embedder.name}, "
              f"{sum(d.n_chunks for d in corpus.documents())} chunks)")
        print(format_table(bench.name, results), flush=True)
        corpus.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
