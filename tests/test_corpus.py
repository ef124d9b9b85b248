"""The corpus service and the CLI: bad input loses nothing; the commands work end to end."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.app.corpus import Corpus
from core.foundation.errors import IngestError
from tests.test_ingest_pdf import make_pdf
from tests.waiting import CEILING_S

ROOT = Path(__file__).resolve().parent.parent
TEN_K = ROOT / "tests" / "fixtures" / "ingest" / "synthetic_10k.htm"
SAMPLE = ROOT / "data" / "sample" / "northwind-10k-fy2024.htm"


@pytest.fixture
def corpus(settings, hash_embedder):
    c = Corpus(settings, embedder=hash_embedder)
    yield c
    c.close()


def _snapshot(corpus: Corpus):
    docs = corpus.documents()
    chunks = [c.chunk_id for d in docs for c in corpus.store.chunks(d.doc_id)]
    hits = corpus.search("competition", strategy="hybrid", k=5)
    return docs, chunks, [h.chunk.chunk_id for h in hits.hits]


BAD_INPUTS = {
    "empty.htm": (b"", "empty"),
    "binary.htm": (bytes(range(256)) * 64, "not"),
    "no-text.html": (b"<html><body><script>x=1</script><div>  </div></body></html>", "text"),
    "corrupt.pdf": (b"%PDF-1.7\n1 0 obj << /Type /Catalog >> garbage", "PDF"),
    "archive.zip": (b"PK\x03\x04" + bytes(200), "type"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_gives_a_message_and_loses_nothing(corpus, name):
    corpus.ingest_path(TEN_K)
    before = _snapshot(corpus)
    data, word = BAD_INPUTS[name]
    with pytest.raises(IngestError) as err:
        corpus.ingest_bytes(data, name)
    assert word.lower() in str(err.value).lower()
    assert _snapshot(corpus) == before


def test_oversized_file_is_refused_with_the_setting_to_change(settings, hash_embedder, tmp_path):
    small = settings.model_copy(update={"max_file_mb": 0.001})
    corpus = Corpus(small, embedder=hash_embedder)
    with pytest.raises(IngestError, match="DTR_MAX_FILE_MB"):
        corpus.ingest_path(TEN_K)
    with pytest.raises(IngestError, match="not found"):
        corpus.ingest_path(tmp_path / "missing.htm")
    assert corpus.documents() == []


def test_reingest_changes_nothing_and_pdf_pages_are_kept(corpus, tmp_path):
    first = corpus.ingest_path(TEN_K)
    again = corpus.ingest_path(TEN_K)
    assert first.added and not again.added
    assert again.meta.doc_id == first.meta.doc_id and len(corpus.documents()) == 1
    pdf = tmp_path / "two-pages.pdf"
    pages = ["Item 1. Business\n" + "We sell widgets to factories. " * 60,
             "Revenue grew to $12 million in the year. " * 60]
    pdf.write_bytes(make_pdf(pages))
    report = corpus.ingest_path(pdf)
    assert report.meta.n_pages == 2
    assert {c.page for c in corpus.store.chunks(report.meta.doc_id)} == {1, 2}
    corpus.delete(first.meta.doc_id)
    assert [d.doc_id for d in corpus.documents()] == [report.meta.doc_id]


def _cli(args: list[str], data_dir: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, DTR_DATA_DIR=str(data_dir), HF_HUB_OFFLINE="1")
    return subprocess.run(
        [sys.executable, "-m", "core", *args], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=300,
    )


@pytest.mark.slow
def test_cli_ingest_docs_search_with_the_real_model(tmp_path):
    data = tmp_path / "store"
    out = _cli(["ingest", str(SAMPLE), str(tmp_path / "nope.htm")], data)
    assert out.returncode == 1  # one file failed, the other went in
    assert "✓ northwind-10k-fy2024.htm" in out.stdout and "nope.htm" in out.stderr
    docs = _cli(["docs", "--sections"], data)
    assert "Item 1A. Risk Factors" in docs.stdout and "10-K" in docs.stdout
    found = _cli(["search", "competition risks", "--section", "Item 1A", "-k", "3"], data)
    assert found.returncode == 0, found.stderr
    ranked = [line for line in found.stdout.splitlines() if line.startswith("[")]
    assert len(ranked) == 3 and all("Item 1A. Risk Factors" in line for line in ranked)
    assert "reranker:" in found.stdout and "keyword#" in found.stdout
    named = _cli(["search", "What was Northwind's revenue in fiscal 2024?", "-k", "2"], data)
    assert "scope: " in named.stdout and "(named as 'Northwind')" in named.stdout
    everything = _cli(["search", "What was Northwind's revenue?", "-k", "2", "--all"], data)
    assert everything.returncode == 0 and "scope: " not in everything.stdout
    bad = _cli(["search", "x", "--section", "Item 99"], data)
    assert bad.returncode == 1 and "Item 1A" in bad.stderr  # lists the valid sections
    bench = _cli(["bench", "ingest", str(SAMPLE)], data)
    assert bench.returncode == 0 and "embed" in bench.stdout and "northwind" in bench.stdout


def test_ingest_reports_each_stage_in_order_with_timings(corpus):
    seen: list[str] = []
    report = corpus.ingest_path(TEN_K, on_stage=seen.append)
    n = report.meta.n_chunks
    # the facts are read while the chunks embed: no stage of their own on the way
    assert seen == ["parsing", "finding sections", "chunking", f"embedding {n} chunks",
                    "indexing"]
    assert set(report.timings) == {"parse", "sections", "chunk", "facts", "embed", "index"}
    assert all(v >= 0 for v in report.timings.values())
    assert report.n_facts and report.n_facts == len(corpus.store.facts([report.meta.doc_id]))
    again: list[str] = []
    corpus.ingest_path(TEN_K, on_stage=again.append)  # unchanged: nothing embedded or read
    assert again == ["parsing", "finding sections", "chunking"]


def test_the_facts_are_read_while_the_chunks_embed(settings, hash_embedder, monkeypatch):
    """The facts extraction waits for the embedding to begin: read one after the other,
    before or after it, it would wait in vain (until a ceiling no quiet machine nears)."""
    import threading

    import core.ingest.pipeline

    encoding, seen = threading.Event(), []
    real_facts_of = core.ingest.pipeline.facts_of

    def facts_of(*args):
        seen.append(encoding.wait(CEILING_S))
        return real_facts_of(*args)

    class SignallingEmbedder:
        name, dim = hash_embedder.name, hash_embedder.dim

        def encode(self, texts):
            encoding.set()
            return hash_embedder.encode(texts)

    monkeypatch.setattr(core.ingest.pipeline, "facts_of", facts_of)
    c = Corpus(settings, embedder=SignallingEmbedder())
    try:
        report = c.ingest_path(TEN_K)
        assert seen == [True], "the facts were not read while the chunks embedded"
        assert report.n_facts and len(c.store.facts([report.meta.doc_id])) == report.n_facts
    finally:
        c.close()


def test_facts_that_fail_beside_the_embedding_cost_nothing_else(corpus, monkeypatch):
    import core.ingest.facts

    def broken(*_args):
        raise ValueError("a table beyond repair")

    monkeypatch.setattr(core.ingest.facts, "extract_facts", broken)
    report = corpus.ingest_path(TEN_K)
    assert report.added and report.n_facts is None
    assert any("a table beyond repair" in w for w in report.warnings)
    assert corpus.store.chunks(report.meta.doc_id) and not corpus.store.facts(
        [report.meta.doc_id])
