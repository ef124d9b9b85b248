"""Requests and seconds of a two-step run (NVIDIA + AMD test 10-Ks) against a fake
OpenAI-compatible server that fails every call after the plan (issue 10, fault 7).

    HF_HUB_OFFLINE=1 PYTHONPATH=. .venv/bin/python scripts/measure_llm_breaker.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from core.foundation.config import Settings
from core.store.corpus_store import CorpusStore
from testkit.corpus import amd_10k, nvda_10k
from testkit.fakes.embedder import HashEmbedder
from testkit.fakes.fixtures import llm_settings
from testkit.fakes.openai_server import Behaviour, FakeOpenAIServer
from testkit.scenarios import QUESTION, service, two_step_plan

MODES = {"HTTP 500": Behaviour.error(500, "model crashed"),
         "HTTP 429": Behaviour.error(429, "slow down"),
         "HTML page": Behaviour.html(),
         "no answer": Behaviour.hang()}


def main(threshold: int) -> None:
    emb = HashEmbedder()
    for name, behaviour in MODES.items():
        with tempfile.TemporaryDirectory() as tmp:
            store = CorpusStore(Settings(data_dir=Path(tmp) / "store", _env_file=None), emb)
            for meta, chunks in (nvda_10k(), amd_10k()):
                store.add(meta, chunks)
            with FakeOpenAIServer(default=behaviour) as server:
                server.enqueue(Behaviour.json(two_step_plan(store)))
                # Defaults as shipped (timeout 60 s, 2 retries, 1 s backoff) but a 5 s timeout
                # for "no answer", so the before/after stays measurable.
                settings = llm_settings(server, Path(tmp), llm_retry_backoff_s=1.0,
                                        llm_timeout_s=5.0, llm_breaker_threshold=threshold)
                t0 = time.perf_counter()
                record = service(settings, store, emb).ask(QUESTION)
                seconds = time.perf_counter() - t0
                u = record.total_usage
                print(f"{name:10s} requests={len(server.chat_requests):3d} "
                      f"seconds={seconds:6.1f} skipped={u.skipped} fallbacks={u.fallbacks} "
                      f"status={record.status}")
            store.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
