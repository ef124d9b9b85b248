"""LLM calls per run with and without the cache, through the real ChatOpenAI and the fake
OpenAI-compatible server (testkit/fakes), over the sample 10-K and the web snapshot.

    PYTHONPATH=. HF_HUB_OFFLINE=1 .venv/bin/python scripts/measure_cache.py

The fake server answers each role with a valid reply built from the request (the plan has
2 or 3 steps; the distiller cites the first evidence id it was shown; the synthesis cites
[1]), so every call is a success and can be cached. Each configuration runs the same question
twice, each time with a new ResearchService (as after a restart), in a fresh data folder.
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from core.foundation.config import Settings
from testkit.fakes.openai_server import Behaviour, FakeOpenAIServer

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample" / "northwind-10k-fy2024.htm"
SNAPSHOT = ROOT / "data" / "web_snapshot"
QUESTION = ("Based on Northwind's 2024 10-K filing, identify their key risks related to "
            "competition. Then, find recent news (post-filing, from 2024) about AMD's AI chip "
            "strategy and explain how this new strategy addresses one of Northwind's risks.")
STEPS = [
    {"sub_question": "What competition risks does Northwind state?", "tool": "filing_search",
     "keywords": ["competition"], "section": "Item 1A. Risk Factors"},
    {"sub_question": "What is AMD's 2024 AI chip strategy?", "tool": "web_search",
     "keywords": ["AMD", "AI"]},
    {"sub_question": "What drove Northwind's revenue in fiscal 2024?", "tool": "filing_search",
     "keywords": ["revenue"], "section": None},
]


class RoleServer(FakeOpenAIServer):
    """Answers every chat request with a valid reply for the schema it asks for."""

    def __init__(self, n_steps: int, doc_id: str):
        super().__init__()
        self.n_steps, self.doc_id = n_steps, doc_id

    def handle(self, method: str, path: str, body: Any):
        if method == "POST" and path.endswith("/chat/completions"):
            self.enqueue(Behaviour.json(self._answer(body)))
        return super().handle(method, path, body)

    def _answer(self, body: dict) -> dict:
        title = body["response_format"]["json_schema"]["name"]
        text = "\n".join(str(m.get("content") or "") for m in body.get("messages", []))
        blocks = re.findall(r"<<<EVIDENCE id=(\S+?)(?: meta=.*?)?>>>\n(.*?)\n<<<END EVIDENCE",
                            text, re.S)
        if title == "PlannerOutput":
            steps = [dict(s, doc_ids=[self.doc_id] if s["tool"] == "filing_search" else [],
                          justification="measure") for s in STEPS[: self.n_steps]]
            return {"steps": steps}
        if title == "RewriteOutput":
            return {"query": "competition risk accelerator AI", "strategy": "hybrid",
                    "justification": "mixed terms"}
        first = _sentence(blocks[0][1]) if blocks else "nothing found"
        if title == "DistillOutput":
            ident = blocks[0][0] if blocks else "x"
            return {"context": f"- {first} [{ident}]", "finding": first,
                    "coverage": "answered", "missing": ""}
        if title == "SynthesisOutput":  # quotes the first numbered evidence, cited [1]
            return {"answer": f"{first} [1].", "not_found": []}
        return {}


def _sentence(text: str) -> str:
    """The first sentence of ``text`` (at most 30 words), without its final period."""
    words = re.split(r"(?<=[.!?])\s", " ".join(text.split()))[0].split()[:30]
    return " ".join(words).rstrip(".")


def measure(n_steps: int, cache: bool) -> list[tuple[int, int, float]]:
    from core.app.corpus import Corpus
    from core.app.research import ResearchService
    from core.llm.factory import make_chat_model
    from core.retrieval.web import SnapshotWebSearch
    from testkit.fakes.embedder import HashEmbedder

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        base = Settings(_env_file=None, data_dir=Path(tmp) / "store", cache_enabled=cache)
        corpus = Corpus(base, embedder=HashEmbedder())
        doc_id = corpus.ingest_path(SAMPLE).meta.doc_id
        with RoleServer(n_steps, doc_id) as server:
            settings = base.model_copy(update={
                "llm_base_url": server.base_url, "llm_model": server.model,
                "llm_api_key": "sk-measure", "llm_timeout_s": 5.0})
            for _ in range(2):
                sent = len(server.chat_requests)
                svc = ResearchService.from_corpus(settings, corpus, llm=make_chat_model(settings),
                                                  web=SnapshotWebSearch(SNAPSHOT))
                t0 = time.perf_counter()
                record = svc.ask(QUESTION)
                wall = time.perf_counter() - t0
                svc.close()
                assert len(record.plan) == n_steps, record.plan
                u = record.total_usage
                assert u.calls == len(server.chat_requests) - sent
                out.append((u.calls, u.cache_hits, wall))
        corpus.close()
    return out


def main() -> int:
    print("| plan | cache | run 1: calls (cached) | run 2: calls (cached) | wall s run 1 / 2 |")
    print("| --- | --- | --- | --- | --- |")
    for n in (2, 3):
        for cache in (False, True):
            (c1, h1, w1), (c2, h2, w2) = measure(n, cache)
            print(f"| {n}-step | {'on' if cache else 'off'} | {c1} ({h1}) | {c2} ({h2}) | "
                  f"{w1:.2f} / {w2:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
