"""python -m core.bench.measure BENCH... : retrieval figures per set, regime and strategy.

    python -m core.bench.measure ../shared/benchmarks/financebench-dev \
        ../shared/benchmarks/docugami-10q [--configs vector,hybrid] [--regimes pooled] \
        [--root DIR] [--out results.json] [--compare earlier.json]

Prints, per set, recall@1/3/5/10, MRR@10 and search latency (p50/p95) for every
configuration in both regimes (see ``core.bench.measure.run``). ``--out`` saves the
figures and each question's first-hit rank; ``--compare`` lists the questions whose rank
changed against an earlier ``--out`` file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import core.foundation.models  # noqa: F401  (sets OMP/HF env before torch loads)


def _parse(argv):
    ap = argparse.ArgumentParser(prog="python -m core.bench.measure",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("benchmarks", nargs="+", help="benchmark folders or .jsonl question files")
    ap.add_argument("--filings", help="folder of the files a .jsonl question set names")
    ap.add_argument("--root", default=None,
                    help="folder for the benchmark corpora (default: data/store/measure)")
    ap.add_argument("--configs", help="comma-separated configuration names (default: all)")
    ap.add_argument("--regimes", default="filtered,pooled")
    ap.add_argument("--rerankers", help="comma-separated rerankers (core.foundation.strategies) "
                    "to compare on the reranked configurations (default: the configured one)")
    ap.add_argument("--limit", type=int, help="only the first N questions of each set")
    ap.add_argument("--out", help="write figures and per-question ranks to this JSON file")
    ap.add_argument("--compare", help="an earlier --out file: list questions whose rank moved")
    return ap.parse_args(argv)


def _compare(old_path: str, new: dict) -> None:
    old = json.loads(Path(old_path).read_text(encoding="utf-8"))
    for set_name, regimes in new.items():
        for regime, configs in regimes.items():
            for config, data in configs.items():
                before = old.get(set_name, {}).get(regime, {}).get(config)
                if not before:
                    continue
                moved = []
                for qid, rank in data["ranks"].items():
                    was = before["ranks"].get(qid)
                    if was != rank:
                        moved.append(f"{qid}: {was} -> {rank}")
                if moved:
                    print(f"\n{set_name} / {regime} / {config}: {len(moved)} moved")
                    print("  " + "\n  ".join(moved))


def _use_reranker(corpus, name: str) -> None:
    from core.retrieval.rerank import get_reranker

    corpus.use_reranker(get_reranker(corpus.settings, corpus.embedder, corpus.store,
                                     choice=name))


def main(argv: list[str] | None = None) -> int:
    from core.bench.measure.run import (
        build_corpus,
        evaluate,
        format_table,
        ingest_fingerprint,
        pipeline_fingerprint,
    )
    from core.bench.measure.sets import load_set
    from core.foundation.config import Settings
    from core.foundation.models import get_embedder
    from core.foundation.strategies import measured_configs

    args = _parse(argv)
    base = Settings()
    root = Path(args.root) if args.root else base.data_dir / "measure"
    configs = measured_configs()
    if args.configs:
        wanted = args.configs.split(",")
        unknown = set(wanted) - {c[0] for c in configs}
        if unknown:
            print(f"unknown configuration(s) {sorted(unknown)}; choose from "
                  f"{[c[0] for c in configs]}", file=sys.stderr)
            return 2
        configs = [c for c in configs if c[0] in wanted]
    from core.bench.measure.vectors import CachedEmbedder

    embedder = CachedEmbedder(get_embedder(base), root / "embeddings.sqlite")
    saved: dict = {}
    for path in args.benchmarks:
        bench = load_set(path, args.filings)
        if args.limit:
            bench.questions = bench.questions[: args.limit]
        folder = root / f"{bench.name}-{pipeline_fingerprint(base)}"
        settings = base.model_copy(update={"data_dir": folder})
        skipped = f" ({bench.skipped} without a judgeable fact left out)" if bench.skipped else ""
        print(f"\n## {bench.name}: {len(bench.questions)} questions{skipped}, "
              f"{len(bench.files)} files (corpus {folder})")
        cache = root / "parsed" / ingest_fingerprint(base)
        corpus, file_of = build_corpus(bench, settings, embedder, cache)
        n_chunks = sum(d.n_chunks for d in corpus.documents())
        print(f"{n_chunks} chunks; reranker: {corpus.reranker.info.name}")
        results = {regime: evaluate(corpus, bench, file_of, regime=regime, configs=configs)
                   for regime in args.regimes.split(",")}
        for name in (args.rerankers.split(",") if args.rerankers else []):
            _use_reranker(corpus, name)
            reranked = [(f"{c[0].split('+')[0]}+{name}", c[1], True) for c in configs if c[2]]
            for regime in results:
                results[regime].update(evaluate(corpus, bench, file_of, regime=regime,
                                                configs=reranked))
        print(format_table(bench.name, results))
        saved[bench.name] = {
            regime: {name: {**sc.summary(), "ranks": sc.ranks} for name, sc in scores.items()}
            for regime, scores in results.items()
        }
        corpus.close()
    if args.out:
        Path(args.out).write_text(json.dumps(saved, indent=1), encoding="utf-8")
    if args.compare:
        _compare(args.compare, saved)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
