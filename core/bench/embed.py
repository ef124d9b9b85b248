"""``python -m core bench embed``: embedding backends side by side on the same texts.

Texts are the embedded texts (chunk under its context header) of chunks sampled from the
configured corpus, so lengths are real. Each round encodes them with every backend in turn
(interleaved, so load from other work falls on all of them alike); the best round counts.
Query encoding is timed one query at a time, as a search does. CPU seconds are printed beside
wall seconds: on a shared machine they move less with the load, which is printed too.
"""

from __future__ import annotations

import os
import random
import statistics
import time

import numpy as np

from core.foundation.config import Settings


def _texts(settings: Settings, n: int, seed: int) -> list[str]:
    from core.app.corpus import Corpus
    from core.store.index_text import vector_text

    corpus = Corpus(settings)
    pairs = [(c, d) for d in corpus.documents() for c in corpus.store.chunks(d.doc_id)]
    corpus.close()
    random.Random(seed).shuffle(pairs)
    return [vector_text(c, d, settings.embed_context) for c, d in pairs[:n]]


def _load() -> str:
    return "load " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def _embedder(settings: Settings, spec: str):
    """The embedder ``backend[:tokens[:batch]]`` names (tokens 0: the model's own length;
    no batch: the backend's measured size, ``core.foundation.models.BATCH``)."""
    from core.foundation.models import get_embedder

    backend, *rest = spec.split(":")
    tokens = int(rest[0]) if rest and rest[0] else None
    if len(rest) > 1:
        settings = settings.model_copy(update={"embed_batch_size": int(rest[1])})
    return get_embedder(settings, backend, max_tokens=tokens)


def bench_embed(args, settings: Settings) -> int:
    texts = _texts(settings, args.n, args.seed)
    if not texts:
        print("The corpus is empty: ingest filings first (python -m core ingest FILE).")
        return 1
    backends = args.backends.split(",")  # "onnx-int8:128:4": backend, token length, batch
    models = {b: _embedder(settings, b) for b in backends}
    for model in models.values():
        model.encode(texts[:4])  # warm-up: session / graph built
    print(f"{len(texts)} texts from {settings.data_dir}; {args.rounds} interleaved rounds; "
          f"{_load()}")
    wall: dict[str, list[float]] = {b: [] for b in backends}
    cpu: dict[str, list[float]] = {b: [] for b in backends}
    vecs: dict[str, np.ndarray] = {}
    for _ in range(args.rounds):
        for b, model in models.items():
            t0, c0 = time.perf_counter(), time.process_time()
            vecs[b] = np.asarray(model.encode(texts), dtype=np.float32)
            wall[b].append(time.perf_counter() - t0)
            cpu[b].append(time.process_time() - c0)
    queries = args.query_set
    query_ms: dict[str, list[float]] = {b: [] for b in backends}
    for q in queries:
        for b, model in models.items():
            t0 = time.perf_counter()
            model.encode([q])
            query_ms[b].append((time.perf_counter() - t0) * 1000)
    ref = backends[0]
    print(f"{'backend':12} {'wall s':>7} {'cpu s':>7} {'chunks/s':>8} {'x ' + ref:>9} "
          f"{'cpu x':>6} {'cos min':>8} {'cos mean':>8} {'query p50 ms':>12}  name")
    for b in backends:
        cos = np.sum(vecs[b] * vecs[ref], axis=1)
        print(f"{b:12} {min(wall[b]):7.2f} {min(cpu[b]):7.2f} {len(texts) / min(wall[b]):8.1f} "
              f"{min(wall[ref]) / min(wall[b]):9.2f} {min(cpu[ref]) / min(cpu[b]):6.2f} "
              f"{cos.min():8.4f} {cos.mean():8.4f} {statistics.median(query_ms[b]):12.1f}  "
              f"{models[b].name}")
    print(_load())
    return 0


def add_embed_parser(bsub, queries: list[str]) -> None:
    s = bsub.add_parser("embed", help="embedding backends side by side on the corpus's texts")
    s.add_argument("--backends", default="onnx:0,onnx-int8:0,onnx-int8:128",
                   help="comma-separated backend[:tokens[:batch]] (tokens 0 = the model's own; "
                   "batch: texts per model call, e.g. onnx-int8:0:4,onnx-int8:0:64 compares "
                   "batch sizes); the first is the reference for ratios and cosine")
    s.add_argument("--n", type=int, default=256, help="chunks sampled from the corpus")
    s.add_argument("--rounds", type=int, default=2)
    s.add_argument("--seed", type=int, default=0)
    s.set_defaults(func=bench_embed, query_set=queries)
