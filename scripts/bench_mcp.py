"""p50 / p95 latency of each MCP tool, warm, on a corpus of the shared filings.

    PYTHONPATH=. .venv/bin/python scripts/bench_mcp.py [--data-dir DIR] [--rounds 40]
        [--ask-rounds 6] [--keep DIR] [--files GLOB ...]

Without ``--data-dir`` a corpus is built first in a temporary folder (``--keep DIR`` keeps
it there) from the shared filings' HTML 10-Ks (../shared/filings) and the analyst-10k-dev
10-Ks, with the configured embedder (the bundled MiniLM by default), as ``python -m core
ingest`` builds one. Every call goes through the SDK's own client to the server in process
(the protocol, argument validation and result serialisation included; no transport). Each
tool is called until warm (not counted), then ``--rounds`` times over varied arguments.
The targets of issue 39: figure and read_question at most 50 ms p50. The load average is
printed beside the numbers: on a shared 2-core machine they move with it.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import sys
import tempfile
import time
from itertools import cycle, islice
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
DEV = SHARED / "benchmarks" / "analyst-10k-dev"
DEFAULT_FILES = [str(SHARED / "filings" / "*.htm*"), str(DEV / "filings" / "*.htm*")]
TARGETS = {"figure": 50.0, "read_question": 50.0}
SEARCH_TOPICS = ("competition", "supply chain concentration", "segment revenue",
                 "share repurchases", "cybersecurity incidents", "goodwill impairment",
                 "litigation", "foreign currency exposure", "debt covenants",
                 "inventory write-downs", "customer concentration", "tax rate",
                 "pension obligations", "research and development", "dividends")
"""Search queries are all different (45): a repeated query reuses its cached vector."""
WARM = 3


def build(data_dir: Path, patterns: list[str]) -> None:
    from core.app.corpus import Corpus
    from core.foundation.config import load_settings

    files = sorted({p for pattern in patterns for p in glob.glob(pattern)})
    if not files:
        sys.exit(f"no filings match {patterns}: give --data-dir or --files")
    corpus = Corpus(load_settings(data_dir=data_dir))
    try:
        for path in files:
            t0 = time.perf_counter()
            report = corpus.ingest_path(path)
            print(f"  ingested {Path(path).name}: {report.meta.n_chunks} chunks, "
                  f"{report.n_facts} facts ({time.perf_counter() - t0:.1f} s)", flush=True)
    finally:
        corpus.close()


def _questions() -> list[str]:
    out = []
    for name in ("figure_questions.jsonl", "analyst_questions.jsonl"):
        path = DEV / name
        if path.exists():
            out += [json.loads(line)["question"] for line in path.read_text("utf-8")
                    .splitlines() if line.strip()]
    return out


def workload(listed: dict) -> dict[str, list[dict]]:
    """Arguments for each tool, varied over the corpus's companies."""
    names = [c["name"] for c in listed["companies"]] or ["-"]
    metrics = ["revenue", "net income", "operating margin", "free cash flow", "gross margin",
               "capex", "total assets"]
    asked = _questions() or [f"What was {n}'s revenue in its latest fiscal year?"
                             for n in names]
    figure_asked = [q for q in asked if not any(w in q.lower() for w in (
        "which", "rank", "did ", "was ", "compare"))] or asked
    return {
        "list_filings": [{}, {"company": names[0]}, {"form": "10-K"}],
        "metrics": [{}],
        "figure": [{"company": n, "metric": m} for n in names for m in metrics],
        "read_question": [{"question": q} for q in asked],
        "analyze": [{"question": q} for q in asked],
        "compare": [{"companies": [a, b], "metric": m}
                    for a, b in zip(names, names[1:], strict=False) for m in metrics[:3]],
        "rank": [{"metric": m} for m in metrics[:4]],
        "verdict": [{"company": n, "metric": "revenue", "test": "grew"} for n in names],
        "search": [{"query": f"{topic} {aspect}", "k": 5} for topic in SEARCH_TOPICS
                   for aspect in ("risks", "in the last fiscal year", "outlook")],
        "ask": [{"question": q} for q in figure_asked[:12]] or [{"question": asked[0]}],
    }


async def measure(server, rounds: int, ask_rounds: int) -> dict[str, list[float]]:
    from mcp.client import Client

    times: dict[str, list[float]] = {}
    async with Client(server) as client:
        listed = (await client.call_tool("list_filings", {})).structured_content
        work = workload(listed)
        found = (await client.call_tool("figure", work["figure"][0])).structured_content
        work["chunk"] = [{"uri": c["resource"]} for c in (found or {}).get("citations", [])]
        for tool, variants in work.items():
            if not variants:
                continue
            n = ask_rounds if tool == "ask" else rounds
            calls = list(islice(cycle(variants), WARM + n))
            spent = []
            for i, args in enumerate(calls):
                t0 = time.perf_counter()
                if tool == "chunk":
                    await client.read_resource(args["uri"])
                else:
                    result = await client.call_tool(tool, args)
                    if result.is_error and i == 0:
                        print(f"  {tool} {args}: {result.content[0].text[:160]}")
                if i >= WARM:
                    spent.append((time.perf_counter() - t0) * 1000)
            times[tool] = spent
    return times


def report(times: dict[str, list[float]]) -> bool:
    load = os.getloadavg()
    print(f"\nload average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores"
          " (a busy machine moves these numbers)\n")
    print(f"{'tool':<14} {'calls':>5} {'p50 ms':>9} {'p95 ms':>9} {'max ms':>9}  target")
    met = True
    for tool, spent in times.items():
        spent = sorted(spent)
        p50 = statistics.median(spent)
        p95 = spent[min(len(spent) - 1, int(round(0.95 * (len(spent) - 1))))]
        target = TARGETS.get(tool)
        verdict = "" if target is None else (f"p50 <= {target:g} ms: " +
                                            ("met" if p50 <= target else "MISSED"))
        met = met and (target is None or p50 <= target)
        print(f"{tool:<14} {len(spent):>5} {p50:>9.1f} {p95:>9.1f} {spent[-1]:>9.1f}  {verdict}")
    return met


def main() -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", help="an existing corpus (default: build one)")
    ap.add_argument("--keep", help="build the corpus here and keep it")
    ap.add_argument("--files", nargs="+", default=DEFAULT_FILES, help="filings to build from")
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--ask-rounds", type=int, default=6)
    args = ap.parse_args()
    import core.foundation.models  # noqa: F401  (OMP/HF settings before torch loads)
    from core.foundation.config import load_settings
    from core.mcp.server import build_server
    from core.mcp.service import McpService

    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as tmp:
        data_dir = Path(args.data_dir or args.keep or Path(tmp) / "store")
        if not args.data_dir:
            print(f"building a corpus in {data_dir} ...", flush=True)
            build(data_dir, args.files)
        service = McpService(load_settings(data_dir=data_dir))
        try:
            times = anyio.run(measure, build_server(service), args.rounds, args.ask_rounds)
        finally:
            service.close()
    return 0 if report(times) else 1


if __name__ == "__main__":
    sys.exit(main())
