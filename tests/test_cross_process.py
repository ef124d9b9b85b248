"""Two real processes on one data folder (issue 12, fault 1).

This process holds one Corpus for the whole test, as the app does (one cached Corpus per
process), over the real local Chroma and the real bundled embedding model; another process
(`python -m core ingest|delete|search`) changes the corpus underneath it. Every search and a
research run must see the corpus as it is now, with no error.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.app.corpus import Corpus
from core.foundation.errors import RetrievalError

ROOT = Path(__file__).resolve().parent.parent
QUARTER = ROOT / "tests" / "fixtures" / "ingest" / "synthetic_10q.txt"  # Beacon Robotics
BOLT = ROOT / "tests" / "fixtures" / "ingest" / "paged_10k.htm"  # Bolt Fasteners
SAMPLE = ROOT / "data" / "sample" / "northwind-10k-fy2024.htm"  # Northwind Semiconductor


def _cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, DTR_DATA_DIR=str(data_dir), HF_HUB_OFFLINE="1")
    out = subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return out


def _docs_found(corpus: Corpus, query: str, strategy: str) -> set[str]:
    hits = corpus.search(query, strategy=strategy, k=8, scope="all", rerank=False).hits
    return {h.chunk.doc_id for h in hits}


@pytest.mark.slow
def test_a_long_lived_corpus_follows_another_process(settings, real_embedder):
    settings = settings.model_copy(update={"web_provider": "none"})
    corpus = Corpus(settings, embedder=real_embedder)
    try:
        beacon = corpus.ingest_path(QUARTER).meta.doc_id
        for strategy in ("vector", "keyword", "hybrid"):
            assert _docs_found(corpus, "robots revenue", strategy) == {beacon}
        corpus.search("robots", strategy="vector", doc_ids=[beacon])  # loads per-filing vectors

        _cli(settings.data_dir, "ingest", str(BOLT))  # another process adds a filing
        bolt = next(d.doc_id for d in corpus.documents() if d.doc_id != beacon)
        for strategy in ("vector", "keyword", "hybrid"):
            assert bolt in _docs_found(corpus, "aerospace fasteners rivets", strategy), strategy
        assert corpus.search("rivets", strategy="vector", doc_ids=[bolt]).hits

        _cli(settings.data_dir, "delete", beacon)  # ... and deletes the first one
        for strategy in ("vector", "keyword", "hybrid"):
            assert _docs_found(corpus, "robots revenue", strategy) == {bolt}, strategy
        with pytest.raises(RetrievalError, match="Unknown document id"):  # a message, not a crash
            corpus.search("robots", strategy="vector", doc_ids=[beacon])

        # A write from the long-lived process keeps what the other one wrote.
        north = corpus.ingest_path(SAMPLE).meta.doc_id
        other = _cli(settings.data_dir, "search", "aerospace fasteners", "--strategy",
                     "vector", "--all", "--no-rerank", "-k", "80")
        assert "paged_10k.htm" in other.stdout and "northwind-10k" in other.stdout
        assert beacon not in other.stdout

        # A research run in this process, over the corpus as it now is.
        from core.app.research import ResearchService
        from core.cli.agent import ask

        service = ResearchService.from_corpus(settings, corpus)
        out = io.StringIO()
        record = ask("What are Bolt Fasteners' main risks?", settings=settings, approve=True,
                     service=service, out=out)
        assert record is not None and record.status == "done", out.getvalue()
        assert record.evidence and {e.doc_id for e in record.evidence} <= {bolt, north}
        assert "Error finding id" not in out.getvalue()
    finally:
        corpus.close()
