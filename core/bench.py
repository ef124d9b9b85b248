"""Benchmarks (figures for notes, never timed assertions in tests).

``python -m core bench ingest FILE...`` prints seconds per stage and chunk counts,
ingesting into a throw-away corpus folder unless ``--keep``;
``python -m core bench search`` prints p50/p95 latency per strategy over a
query set against the configured corpus.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from core.config import Settings
from core.errors import AppError

DEFAULT_QUERIES = [
    "competition risks",
    "What are the main risks related to competition?",
    "total revenue",
    "Total revenue 26,974",
    "supply chain concentration and manufacturing partners",
    "export controls China",
    "research and development expenses",
    "net income per diluted share",
    "customers designing their own chips",
    "goodwill impairment",
    "gross margin decline reasons",
    "data center segment revenue growth",
]


def bench_ingest(args, settings: Settings) -> int:
    from core.corpus import Corpus
    from core.models import get_embedder

    t0 = time.perf_counter()
    embedder = get_embedder(settings)
    print(f"model load: {time.perf_counter() - t0:.2f}s (once per process, not counted below)")
    tmp = None
    if not args.keep:
        tmp = tempfile.TemporaryDirectory(prefix="bench-ingest-")
        settings = settings.model_copy(update={"data_dir": Path(tmp.name)})
    corpus = Corpus(settings, embedder=embedder)
    header = f"{'file':34} {'parse':>6} {'sect':>6} {'chunk':>6} {'embed':>6} {'index':>6} " \
             f"{'total':>6} {'chunks':>6} {'tables':>6} {'dup%':>5}"
    print(header)
    grand = 0.0
    failed: list[str] = []
    for path in args.files:
        try:
            report = corpus.ingest_path(path)
        except AppError as exc:  # report the file and go on with the batch
            failed.append(path)
            print(f"{Path(path).name[:34]:34} FAILED: {exc}")
            continue
        t = report.timings
        embed, index = t.get("embed", 0.0), t.get("index", 0.0)
        total = t.get("parse", 0) + t.get("sections", 0) + t.get("chunk", 0) + embed + index
        grand += total
        chunks = corpus.store.chunks(report.meta.doc_id)
        texts = [c.text for c in chunks]
        dup = 100.0 * (len(texts) - len(set(texts))) / max(1, len(texts))
        print(f"{Path(path).name[:34]:34} {t.get('parse', 0):6.2f} {t.get('sections', 0):6.2f} "
              f"{t.get('chunk', 0):6.2f} {embed:6.2f} {index:6.2f} {total:6.2f} "
              f"{report.meta.n_chunks:6d} {report.meta.n_tables:6d} {dup:5.1f}")
    if len(args.files) > 1:
        print(f"all {len(args.files)} files: {grand:.2f}s, {len(corpus.documents())} documents, "
              f"{sum(d.n_chunks for d in corpus.documents())} chunks")
    if failed:
        print(f"{len(failed)} of {len(args.files)} files failed: "
              + ", ".join(Path(p).name for p in failed))
    corpus.close()
    if tmp:
        tmp.cleanup()
    return 1 if failed else 0


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    idx = min(len(values) - 1, max(0, round(q * (len(values) - 1))))
    return values[idx]


def bench_search(args, settings: Settings) -> int:
    from core.corpus import Corpus

    corpus = Corpus(settings)
    docs = corpus.documents()
    if not docs:
        print("The corpus is empty: ingest filings first (python -m core ingest FILE).")
        return 1
    queries = DEFAULT_QUERIES
    if args.queries:
        queries = [q.strip() for q in Path(args.queries).read_text().splitlines() if q.strip()]
    n_chunks = sum(d.n_chunks for d in docs)
    print(f"corpus: {len(docs)} documents, {n_chunks} chunks; {len(queries)} queries x "
          f"{args.repeat} repeats; reranker: {corpus.reranker.info.name}")
    corpus.search(queries[0], strategy="hybrid")  # warm-up: index build, model load
    print(f"{'strategy':18} {'p50 ms':>8} {'p95 ms':>8} {'mean ms':>8}")
    for strategy, rerank in [("keyword", False), ("vector", False), ("hybrid", False),
                             ("hybrid+rerank", True)]:
        lat = []
        for _ in range(args.repeat):
            for q in queries:
                t0 = time.perf_counter()
                corpus.search(q, strategy=strategy.split("+")[0], rerank=rerank)
                lat.append((time.perf_counter() - t0) * 1000)
        print(f"{strategy:18} {_pct(lat, .5):8.1f} {_pct(lat, .95):8.1f} "
              f"{statistics.fmean(lat):8.1f}")
    corpus.close()
    return 0


def add_bench_parser(sub) -> None:
    b = sub.add_parser("bench", help="benchmarks: ingest, search")
    bsub = b.add_subparsers(dest="bench", required=True)
    s = bsub.add_parser("ingest", help="seconds per stage for FILE(s), into a temporary corpus")
    s.add_argument("files", nargs="+")
    s.add_argument("--keep", action="store_true", help="ingest into the configured corpus")
    s.set_defaults(func=bench_ingest)
    s = bsub.add_parser("search", help="p50/p95 latency per strategy on the configured corpus")
    s.add_argument("--queries", help="file with one query per line")
    s.add_argument("--repeat", type=int, default=3)
    s.set_defaults(func=bench_search)
