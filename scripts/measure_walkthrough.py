"""Wall time of the NVIDIA + AMD walk-through (offline engine, web snapshot), per run.

    DTR_DATA_DIR=/work/tmp-plan/walk PYTHONPATH=. HF_HUB_OFFLINE=1 \
        .venv/bin/python scripts/measure_walkthrough.py [--runs 3] [--web-delay 1.0]

Ingests ../shared/filings/nvda-10k-fy2023.html and amd-10k-fy2025.htm once into the data
folder, then asks the walk-through question ``--runs`` times (plan approved as proposed)
and prints per run: wall seconds, steps, per-step scope and the research phase's time.
``--web-delay`` adds a fixed latency to every web search (a stand-in for Tavily's network
round trip), which is where running independent steps side by side pays off.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

QUESTION = ("How does NVIDIA describe its competition risks, how does AMD describe its own "
            "competition risks, and has AMD's 2024 news changed NVIDIA's position?")
FILINGS = Path(__file__).resolve().parents[2] / "shared" / "filings"
FILES = ["nvda-10k-fy2023.html", "amd-10k-fy2025.htm"]


class DelayedWeb:
    """The configured web search with a fixed latency per call."""

    def __init__(self, inner, delay: float):
        self.inner, self.delay, self.name = inner, delay, getattr(inner, "name", "web")

    def search(self, query, k=5, **kw):
        time.sleep(self.delay)
        return self.inner.search(query, k, **kw)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--web-delay", type=float, default=0.0)
    ap.add_argument("--question", default=QUESTION)
    args = ap.parse_args()

    from core.agent_cli import build_service
    from core.config import Settings

    settings = Settings()
    service, corpus = build_service(settings, offline=True)
    have = {d.file_name for d in corpus.store.documents()}
    missing = [FILINGS / f for f in FILES if f not in have]
    if missing:
        t0 = time.perf_counter()
        for path in missing:
            corpus.ingest_path(path)
        print(f"ingested {len(missing)} filing(s) in {time.perf_counter() - t0:.1f} s")
        service.refresh_corpus()
    if args.web_delay:
        service.deps.web = DelayedWeb(service.deps.web, args.web_delay)
    names = {d.doc_id: d.company for d in service.deps.corpus.documents}
    service.ask("What was NVIDIA's FY2023 revenue?")  # warm the models once
    walls = []
    for n in range(args.runs):
        t0 = time.perf_counter()
        record = service.ask(args.question)
        wall = time.perf_counter() - t0
        walls.append(wall)
        steps = [f"{s.tool}:{'+'.join(names.get(d, d) for d in s.doc_ids) or '-'}"
                 f"{' after ' + str([d + 1 for d in s.depends_on]) if s.depends_on else ''}"
                 for s in record.plan]
        print(f"run {n + 1}: {wall:.2f} s total, research {record.wall_s:.2f} s, "
              f"{len(record.history)} step record(s); plan: {steps}")
    print(f"median {statistics.median(walls):.2f} s over {len(walls)} runs "
          f"(web delay {args.web_delay:g} s)")


if __name__ == "__main__":
    main()
