"""Wall time of the NVIDIA + AMD walk-through (offline engine, web snapshot), per run.

    DTR_DATA_DIR=/work/tmp-plan/walk PYTHONPATH=. HF_HUB_OFFLINE=1 \
        .venv/bin/python scripts/measure_walkthrough.py [--runs 3] [--web-delay 1.0]

Ingests ../shared/filings/nvda-10k-fy2023.html and amd-10k-fy2025.htm once into the data
folder, then asks the walk-through question ``--runs`` times (plan approved as proposed)
and prints per run: wall seconds, steps, per-step scope and the research phase's time.
``--web-delay`` adds a fixed latency to every web search (a stand-in for Tavily's network
round trip), and ``--llm-delay`` puts a stand-in LLM behind every role (tests' scripted
chat model answering each call with a minimal reply valid for the call's JSON schema after
that many seconds): waiting is where running independent steps side by side pays off.
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


def latency_llm(delay: float):
    """A chat model that answers every structured call after ``delay`` seconds."""
    import json

    from testkit.fakes.chat_model import FakeChatModel

    def minimal(schema: dict, defs: dict):
        if "$ref" in schema:
            return minimal(defs[schema["$ref"].split("/")[-1]], defs)
        if "anyOf" in schema:
            return minimal(schema["anyOf"][0], defs)
        if "enum" in schema:
            return schema["enum"][0]
        kind = schema.get("type")
        if kind == "object":
            return {k: minimal(v, defs) for k, v in schema.get("properties", {}).items()}
        return {"array": [], "string": "stand-in reply", "integer": 0, "number": 0.0,
                "boolean": False}.get(kind)

    class LatencyLLM(FakeChatModel):
        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            time.sleep(delay)
            fmt = kwargs.get("response_format") or {}
            schema = (fmt.get("json_schema") or {}).get("schema") or {}
            for tool in kwargs.get("tools") or []:
                schema = schema or (tool.get("function") or {}).get("parameters") or {}
            if not schema:
                text = str(messages[0].content)
                start = text.find("{", text.find("JSON schema"))
                if start >= 0:
                    try:
                        schema = json.JSONDecoder().raw_decode(text[start:])[0]
                    except ValueError:
                        schema = {}
            reply = minimal(schema, schema.get("$defs", {})) if schema else {}
            self.enqueue(json.dumps(reply))
            return super()._generate(messages, stop, run_manager, **kwargs)

    return LatencyLLM(model_name="latency-stand-in")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--web-delay", type=float, default=0.0)
    ap.add_argument("--llm-delay", type=float, default=0.0)
    ap.add_argument("--question", default=QUESTION)
    args = ap.parse_args()

    from core.cli.agent import build_service
    from core.foundation.config import Settings

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
    if args.llm_delay:
        service.deps.llm = latency_llm(args.llm_delay)
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
              f"{len(record.history)} step record(s), {record.total_usage.calls} LLM call(s); "
              f"plan: {steps}")
    print(f"median {statistics.median(walls):.2f} s over {len(walls)} runs "
          f"(web delay {args.web_delay:g} s, LLM delay {args.llm_delay:g} s)")


if __name__ == "__main__":
    main()
