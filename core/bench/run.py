"""Benchmarks (figures for notes, never timed assertions in tests).

``python -m core bench ingest FILE... [--vs-recipe] [--rounds N]`` prints seconds per stage
(the facts stage runs beside the embedding, so ``total`` is the ingest's wall time, not their sum),
CPU seconds, chunk counts and chunks/s, ingesting into a throw-away corpus folder unless
``--keep``; ``--vs-recipe`` times the walk-through's recipe (``core.bench.recipe``) on the
same files in the same process and prints ours / recipe (wall and CPU);
``python -m core bench search`` prints p50/p95 latency per strategy over a
query set against the configured corpus.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from core.foundation.config import Settings
from core.foundation.errors import AppError

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

# Analyst-style questions (FinanceBench's wording), so query lengths and terms are realistic.
ANALYST_QUERIES = [
    "What is the FY2018 capital expenditure amount (in USD millions) for 3M?",
    "What was NVIDIA's Data Center revenue in fiscal year 2023?",
    "How much did AMD spend on research and development in 2015?",
    "What were Amazon's total net sales in 2017?",
    "What is the company's effective tax rate and what drove the change?",
    "How much cash was provided by operating activities in the most recent year?",
    "Which customers account for more than 10% of revenue?",
    "What are the material legal proceedings disclosed?",
    "Does the company pay dividends, and how much per share?",
    "What is the total long-term debt outstanding at year end?",
    "How many employees does the company have?",
    "What is the gross margin percentage and how did it change year over year?",
]


def _cpu_s() -> float:
    """CPU seconds of this process and of its finished children (PDF workers)."""
    import resource

    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


_OUR_STAGES = ("parse", "sections", "chunk", "facts", "embed", "index")
_HEADER = (f"{'file':34} {'parse':>6} {'sect':>6} {'chunk':>6} {'facts':>6} {'embed':>6} "
           f"{'index':>6} {'total':>7} {'cpu':>7} {'ch/s':>6} {'facts%':>6} {'n_facts':>7} "
           f"{'chunks':>6} {'tables':>6} {'dup%':>5}")


def _ingest_one(corpus, path: str, baseline: bool = False
                ) -> tuple[float, float, int] | None:
    """Ingest ``path`` and print its row; (seconds, CPU seconds, chunks), None on failure."""
    cpu0, t0 = _cpu_s(), time.perf_counter()
    try:
        report = corpus.ingest_path(path)
    except AppError as exc:  # report the file and go on with the batch
        print(f"{Path(path).name[:34]:34} FAILED: {exc}")
        return None
    total = time.perf_counter() - t0  # wall: the facts stage runs beside the embedding
    cpu = _cpu_s() - cpu0
    t = report.timings
    chunks = corpus.store.chunks(report.meta.doc_id)
    texts = [c.text for c in chunks]
    dup = 100.0 * (len(texts) - len(set(texts))) / max(1, len(texts))
    share = 100.0 * t.get("facts", 0.0) / total if total else 0.0
    n_facts = "-" if report.n_facts is None else str(report.n_facts)
    n = report.meta.n_chunks
    print(f"{Path(path).name[:34]:34} "
          + " ".join(f"{t.get(s, 0.0):6.2f}" for s in _OUR_STAGES)
          + f" {total:7.2f} {cpu:7.2f} {n / max(total, 1e-9):6.1f} {share:6.1f} "
          f"{n_facts:>7} {n:6d} {report.meta.n_tables:6d} {dup:5.1f}")
    for warning in report.warnings:
        print(f"  warning: {warning}")
    if baseline and report.added:
        from core.baseline.index import build_doc

        cpu0, t0 = _cpu_s(), time.perf_counter()
        pieces, _ = build_doc(corpus.store, corpus.embedder, report.meta, corpus.settings)
        seconds, cpu_b = time.perf_counter() - t0, _cpu_s() - cpu0
        print(f"{'  + baseline pieces (Compare setup)':34} {seconds:6.2f}s, {cpu_b:.2f} CPU s, "
              f"{len(pieces)} pieces ({len(pieces) / max(seconds, 1e-9):.1f}/s)")
    return total, cpu, n


def _recipe_one(path: str, embedder, loader: str) -> tuple[float, float, int] | None:
    from core.bench.recipe import LABELS, run_recipe

    cpu0 = _cpu_s()
    try:
        run = run_recipe(path, embedder, loader)
    except Exception as exc:  # noqa: BLE001 - the recipe has no error handling of its own
        print(f"{'  recipe':34} FAILED: {type(exc).__name__}: {exc}")
        return None
    cpu = _cpu_s() - cpu0
    t = run.timings
    label = f"  recipe, {LABELS[loader]}"
    print(f"{label[:34]:34} {t['parse']:6.2f} {'-':>6} {t['split']:6.2f} "
          f"{'-':>6} {t['embed']:6.2f} {t['index']:6.2f} {run.total:7.2f} {cpu:7.2f} "
          f"{run.n_chunks / max(run.total, 1e-9):6.1f} {'-':>6} {'-':>7} {run.n_chunks:6d}")
    return run.total, cpu, run.n_chunks


def _recipe_loaders(args) -> list[str]:
    """The recipe loaders ``--vs-recipe`` times (``--recipe``, comma-separated)."""
    from core.bench.recipe import LOADERS

    if not getattr(args, "vs_recipe", False):
        return []
    names = [n.strip() for n in (getattr(args, "recipe", None) or LOADERS[0]).split(",")]
    bad = [n for n in names if n not in LOADERS]
    if bad:
        raise AppError(f"--recipe takes {' or '.join(LOADERS)} (comma-separated), not "
                       f"{', '.join(bad) or 'nothing'}.")
    return list(dict.fromkeys(names))


def bench_ingest(args, settings: Settings) -> int:
    """Seconds per stage of our ingest (and, with ``--vs-recipe``, of the plain recipe on the
    same files in the same process, with the ratios); see the module docstring."""
    import os

    from core.app.corpus import Corpus
    from core.bench.recipe import LABELS
    from core.foundation.models import get_embedder

    loaders = _recipe_loaders(args)
    t0 = time.perf_counter()
    embedder = get_embedder(settings)
    print(f"model load: {time.perf_counter() - t0:.2f}s ({embedder.name}; once per process, "
          "not counted below)")
    recipe = None
    if loaders:
        from core.bench.recipe import recipe_embedder

        t0 = time.perf_counter()
        recipe = recipe_embedder(settings.embedding_model)
        print(f"recipe model load: {time.perf_counter() - t0:.2f}s (torch float32, batch 32; "
              "not counted below)")
    rounds = 1 if args.keep else max(1, getattr(args, "rounds", 1))
    print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}; "
          f"{os.cpu_count()} CPU(s)")
    print(_HEADER)
    recipe_sum = {loader: [0.0, 0.0, 0.0, 0.0] for loader in loaders}  # recipe, ours (wall, CPU)
    grand = 0.0
    failed: list[str] = []
    for r in range(rounds):
        tmp = None
        run_settings = settings
        if not args.keep:
            tmp = tempfile.TemporaryDirectory(prefix="bench-ingest-")
            run_settings = settings.model_copy(  # scratch: never into the team database
                update={"data_dir": Path(tmp.name), "database_url": None})
        if rounds > 1:
            print(f"-- round {r + 1} of {rounds}" + (" (recipe first)" if r % 2 else ""))
        corpus = Corpus(run_settings, embedder=embedder)
        for path in args.files:
            pair: dict[str, tuple[float, float, int] | None] = {}
            order = ["ours", *loaders] if r % 2 == 0 else [*loaders, "ours"]
            for side in order:
                if side == "ours":
                    pair["ours"] = _ingest_one(corpus, path, getattr(args, "baseline", False))
                else:
                    pair[side] = _recipe_one(path, recipe, side)
            ours = pair.get("ours")
            if ours is None:
                failed.append(path)
                continue
            grand += ours[0]
            for loader in loaders:
                base = pair.get(loader)
                if base is None:
                    continue
                sums = recipe_sum[loader]
                sums[0], sums[1] = sums[0] + base[0], sums[1] + base[1]
                sums[2], sums[3] = sums[2] + ours[0], sums[3] + ours[1]
                print(f"  ours / recipe, {LABELS[loader]}: {ours[0] / max(base[0], 1e-9):.2f}x "
                      f"wall, {ours[1] / max(base[1], 1e-9):.2f}x CPU "
                      f"({ours[2]} vs {base[2]} chunks)")
        if len(args.files) > 1 and r == rounds - 1:
            docs = corpus.documents()
            print(f"all {len(args.files)} files: {grand / rounds:.2f}s a round; "
                  f"{len(docs)} documents, {sum(d.n_chunks for d in docs)} chunks")
        corpus.close()
        if tmp:
            tmp.cleanup()
    for loader, (r_wall, r_cpu, o_wall, o_cpu) in recipe_sum.items():
        if r_wall > 0:
            print(f"ours / recipe, {LABELS[loader]}, over all files and rounds: "
                  f"{o_wall / r_wall:.2f}x wall ({o_wall:.1f}s vs {r_wall:.1f}s), "
                  f"{o_cpu / max(r_cpu, 1e-9):.2f}x CPU ({o_cpu:.1f}s vs {r_cpu:.1f}s); "
                  "model loads not counted")
    print(f"load average at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if failed:
        print(f"{len(failed)} of {len(args.files) * rounds} files failed: "
              + ", ".join(Path(p).name for p in failed))
    return 1 if failed else 0


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    idx = min(len(values) - 1, max(0, round(q * (len(values) - 1))))
    return values[idx]


# (label, strategy, rerank, filter): the four strategies over the whole corpus, then hybrid
# filtered as the agent's plans filter: to one filing (a different one per query), to a section.
_BENCH_ROWS = [
    ("keyword", "keyword", False, None), ("vector", "vector", False, None),
    ("hybrid", "hybrid", False, None), ("hybrid+rerank", "hybrid", True, None),
    ("hybrid, 1 filing", "hybrid", False, "doc"), ("hybrid, Item 7", "hybrid", False, "section"),
]


def _rss_mb() -> float:
    """Resident memory of this process now, in MB (Linux; 0 elsewhere)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        return 0.0
    import os

    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def _synthetic_settings(args, settings: Settings, embedder) -> Settings:
    """Build or reuse the synthetic corpus grown from the configured one; its Settings."""
    from core.bench.synthetic import build_synthetic
    from core.store.corpus_store import CorpusStore

    folder = Path(args.synthetic_dir) if args.synthetic_dir else (
        settings.data_dir / "bench" / f"synthetic-{args.synthetic}")
    with CorpusStore(settings, embedder) as seed:
        n_seed = len(seed.documents())
        syn, seconds = build_synthetic(seed, folder, args.synthetic,
                                       chunks_per_filing=args.chunks_per_filing,
                                       progress=lambda m: print(m, flush=True))
    print(f"synthetic corpus: {args.synthetic} filings grown from the {n_seed} real ones in "
          f"{settings.data_dir} ({seconds:.1f}s to build or check; cached in {folder}).\n"
          "  Texts are the real chunks with company, numbers and some words changed; vectors "
          "are the real\n  chunk vectors plus noise (cosine ~0.97), not model embeddings of the "
          "changed texts;\n  queries are encoded by the real model.")
    return syn


def bench_search(args, settings: Settings) -> int:
    from core.app.corpus import Corpus
    from core.foundation.models import get_embedder
    from core.retrieval.filters import section_matches

    embedder = get_embedder(settings)
    if args.synthetic:
        settings = _synthetic_settings(args, settings, embedder)
    corpus = Corpus(settings, embedder=embedder)
    docs = corpus.documents()
    if not docs:
        print("The corpus is empty: ingest filings first (python -m core ingest FILE).")
        return 1
    queries = DEFAULT_QUERIES + ANALYST_QUERIES
    if args.queries:
        queries = [q.strip() for q in Path(args.queries).read_text().splitlines() if q.strip()]
    n_chunks = sum(d.n_chunks for d in docs)
    print(f"corpus: {len(docs)} documents, {n_chunks} chunks; {len(queries)} queries x "
          f"{args.repeat} repeats; reranker: {corpus.reranker.info.name}")
    rss0, t0 = _rss_mb(), time.perf_counter()
    corpus.store.keyword.ensure()
    build, arrays = time.perf_counter() - t0, corpus.store.keyword.memory_bytes() / 1e6
    rss = _rss_mb()
    print(f"keyword index: built in {build:.2f}s; arrays {arrays:.0f} MB; process RSS {rss:.0f} MB"
          f" (+{rss - rss0:.0f} MB during the build)")
    corpus.search(queries[0], strategy="hybrid")  # warm-up: vector index load, model load
    print(f"{'strategy':18} {'p50 ms':>8} {'p95 ms':>8} {'mean ms':>8}   p50 per stage (ms)")
    has_item7 = any(section_matches("Item 7", t) for ts in corpus.store.sections().values()
                    for t in ts)
    for label, strategy, rerank, scope in _BENCH_ROWS:
        if scope == "section" and not has_item7:
            continue
        lat: list[float] = []
        stages: dict[str, list[float]] = {}
        for _ in range(args.repeat):
            for i, q in enumerate(queries):
                doc_ids = [docs[i % len(docs)].doc_id] if scope == "doc" else None
                sections = ["Item 7"] if scope == "section" else None
                t0 = time.perf_counter()
                res = corpus.search(q, strategy=strategy, rerank=rerank, doc_ids=doc_ids,
                                    sections=sections)
                lat.append((time.perf_counter() - t0) * 1000)
                for name, ms in res.timings_ms.items():
                    stages.setdefault(name, []).append(ms)
        per_stage = " ".join(f"{n} {_pct(v, .5):.1f}" for n, v in stages.items() if n != "total")
        print(f"{label:18} {_pct(lat, .5):8.1f} {_pct(lat, .95):8.1f} "
              f"{statistics.fmean(lat):8.1f}   {per_stage}")
    print(f"process RSS {_rss_mb():.0f} MB")
    corpus.close()
    return 0


def add_bench_parser(sub) -> None:
    b = sub.add_parser("bench", help="benchmarks: ingest, search, embed, paraphrase")
    bsub = b.add_subparsers(dest="bench", required=True)
    s = bsub.add_parser("ingest", help="seconds per stage for FILE(s), into a temporary corpus")
    s.add_argument("files", nargs="+")
    s.add_argument("--keep", action="store_true", help="ingest into the configured corpus")
    s.add_argument("--vs-recipe", action="store_true",
                   help="also time the walk-through's recipe (its text, 1000/150 splitter, fp32 "
                   "MiniLM on torch) on each file, in this process, with ratios")
    s.add_argument("--recipe", default="walkthrough",
                   help="the recipe's HTML loader(s), comma-separated: walkthrough (its own: every "
                   "p/div/span, tables deleted) and/or text (BeautifulSoup get_text, tables kept)")
    s.add_argument("--baseline", action="store_true",
                   help="also time the baseline's fixed-size pieces of each file (what the "
                   "first Compare would otherwise build; not counted in ours / recipe)")
    s.add_argument("--rounds", type=int, default=1,
                   help="repeat into fresh corpora, alternating which side goes first")
    s.set_defaults(func=bench_ingest)
    from core.bench.embed import add_embed_parser

    add_embed_parser(bsub, DEFAULT_QUERIES + ANALYST_QUERIES)
    from core.bench.paraphrase.cli import add_paraphrase_parser

    add_paraphrase_parser(bsub)
    s = bsub.add_parser("search", help="p50/p95 latency per strategy on the configured corpus")
    s.add_argument("--queries", help="file with one query per line")
    s.add_argument("--repeat", type=int, default=3)
    s.add_argument("--synthetic", type=int, metavar="N",
                   help="measure on a synthetic corpus of N filings grown from the configured one "
                   "(built once, then reused)")
    s.add_argument("--synthetic-dir", help="where the synthetic corpus is kept "
                   "(default: DATA_DIR/bench/synthetic-N)")
    s.add_argument("--chunks-per-filing", type=int, default=740,
                   help="mean chunks per synthetic filing (a long 10-K: 700-1100)")
    s.set_defaults(func=bench_search)
