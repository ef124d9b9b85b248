"""Running a benchmark: build (or reuse) its corpus, search every question, score the ranks.

Parsing is cached per file under the measure root, keyed by a fingerprint of the ingest
code and chunk settings; each set's corpus gets its own folder, keyed by that and a
fingerprint of the indexing code (what is embedded and keyword-indexed) and the embedding
model. An unchanged pipeline reuses everything; a change to indexing alone re-embeds the
cached chunks without parsing the PDFs again. Two regimes:

* ``filtered``: every search is restricted to the question's own filing(s);
* ``pooled``: all the set's filings in one index and no filter, so the system must find
  the company and period the question names by itself (as an analyst's search does).

A configuration is a retrieval strategy with or without the reranker, or ``plain``: the
walk-through's recipe (fixed 1000/150 chunks of the whole text, vector top-k), which the
baseline answerer uses (``core.baseline.rag.retrieve``).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from core.bench.measure.judge import first_hit_rank
from core.bench.measure.sets import BenchSet
from core.foundation.errors import AppError
from core.foundation.strategies import measured_configs

KS = (1, 3, 5, 10)
_ROOT = Path(__file__).resolve().parents[3]
_INGEST_CODE = ("core/ingest",)
_INDEX_CODE = (
    "core/store/corpus_store.py", "core/store/index_text.py", "core/foundation/models.py")


@dataclass
class ConfigScore:
    """One configuration in one regime: first-hit rank per question and search latencies."""

    ranks: dict[str, int | None]
    latencies_ms: list[float] = field(default_factory=list)

    def recall(self, k: int) -> float:
        n = max(1, len(self.ranks))
        return sum(1 for r in self.ranks.values() if r is not None and r <= k) / n

    @property
    def mrr(self) -> float:
        n = max(1, len(self.ranks))
        return sum(1.0 / r for r in self.ranks.values() if r is not None and r <= 10) / n

    def latency(self, q: float) -> float:
        if not self.latencies_ms:
            return 0.0
        values = sorted(self.latencies_ms)
        return values[min(len(values) - 1, round(q * (len(values) - 1)))]

    def summary(self) -> dict:
        out = {f"R@{k}": round(self.recall(k), 3) for k in KS}
        out.update({"MRR@10": round(self.mrr, 3), "p50_ms": round(self.latency(0.5), 1),
                    "p95_ms": round(self.latency(0.95), 1)})
        return out


def _fingerprint(paths: tuple[str, ...], extra: str) -> str:
    h = hashlib.sha256(extra.encode())
    for rel in paths:
        p = _ROOT / rel
        for f in sorted(p.rglob("*.py")) if p.is_dir() else [p]:
            if f.exists():
                h.update(f.read_bytes())
    return h.hexdigest()[:10]


def ingest_fingerprint(settings) -> str:
    """A short hash of the code and settings that decide how files become chunks."""
    return _fingerprint(_INGEST_CODE, f"{settings.chunk_size}/{settings.chunk_overlap}/"
                        f"{getattr(settings, 'pdf_text', 'pypdf')}")


def pipeline_fingerprint(settings) -> str:
    """A short hash of everything that decides what gets indexed."""
    extra = (f"{ingest_fingerprint(settings)}/{settings.embedding_model}/{settings.embed_context}"
             f"/{settings.embedding_backend}/{settings.embedding_max_tokens}")
    return _fingerprint(_INDEX_CODE, extra)


def _prepared(path: Path, settings, cache: Path):
    """``core.ingest.pipeline.prepare`` of ``path``, cached as JSON in ``cache``."""
    from core.foundation.types import Chunk, DocumentMeta
    from core.ingest.pipeline import Prepared, prepare

    saved = cache / f"{path.name}.json"
    if saved.exists():
        data = json.loads(saved.read_text(encoding="utf-8"))
        return Prepared(meta=DocumentMeta.model_validate(data["meta"]),
                        chunks=[Chunk.model_validate(c) for c in data["chunks"]])
    prepared = prepare(path.read_bytes(), path.name, settings, source=str(path))
    cache.mkdir(parents=True, exist_ok=True)
    saved.write_text(json.dumps({"meta": prepared.meta.model_dump(),
                                 "chunks": [c.model_dump() for c in prepared.chunks]}),
                     encoding="utf-8")
    return prepared


def build_corpus(bench: BenchSet, settings, embedder, cache: Path, log=print):
    """A Corpus holding every file of ``bench`` (missing ones ingested, parsing cached in
    ``cache``); returns ``(corpus, {doc_id: file name})``."""
    from core.app.corpus import Corpus

    corpus = Corpus(settings, embedder=embedder)
    file_of: dict[str, str] = {}
    for name in bench.files:
        t0 = time.perf_counter()
        try:
            prepared = _prepared(bench.files_dir / name, settings, cache)
        except AppError as exc:  # its questions then count as misses, as a user would see
            log(f"  {name} could not be ingested: {exc}")
            continue
        meta, added = corpus.store.add(prepared.meta, prepared.chunks)
        file_of[meta.doc_id] = name
        if added:
            log(f"  indexed {name}: {meta.n_chunks} chunks ({time.perf_counter() - t0:.1f}s)")
    return corpus, file_of


def _search(corpus, config: tuple[str, str, bool], question: str, doc_ids, k: int):
    name, strategy, rerank = config
    if strategy == "plain":
        from core.baseline.rag import retrieve

        hits = retrieve(question, corpus.store, corpus.embedder, corpus.settings, doc_ids, k=k)
        return [h.chunk for h in hits]
    result = corpus.search(question, strategy=strategy, k=k, rerank=rerank, doc_ids=doc_ids)
    return [h.chunk for h in result.hits]


def evaluate(corpus, bench: BenchSet, file_of: dict[str, str], *, regime: str,
             configs=None, k: int = 10) -> dict[str, ConfigScore]:
    """Score every configuration on every question of ``bench`` in ``regime``."""
    ids_of: dict[str, list[str]] = {}
    for doc_id, name in file_of.items():
        ids_of.setdefault(name, []).append(doc_id)
    out: dict[str, ConfigScore] = {}
    for config in configs or measured_configs():
        score = ConfigScore(ranks={})
        _search(corpus, config, bench.questions[0].question, None, k)  # warm caches/indexes
        for q in bench.questions:
            doc_ids = None
            if regime == "filtered":
                doc_ids = [d for f in q.files for d in ids_of.get(f, [])]
                if not doc_ids:  # its filings could not be ingested
                    score.ranks[q.id] = None
                    continue
            t0 = time.perf_counter()
            chunks = _search(corpus, config, q.question, doc_ids, k)
            score.latencies_ms.append((time.perf_counter() - t0) * 1000)
            score.ranks[q.id] = first_hit_rank(chunks, q, file_of)
        out[config[0]] = score
    return out


def format_table(name: str, results: dict[str, dict[str, ConfigScore]]) -> str:
    """Markdown: one row per regime and configuration."""
    head = "| set | regime | config | " + " | ".join(f"R@{k}" for k in KS) + \
        " | MRR@10 | p50 ms | p95 ms |"
    rows = [head, "|" + "---|" * (head.count("|") - 1)]
    for regime, scores in results.items():
        for config, sc in scores.items():
            s = sc.summary()
            cells = [f"{s[f'R@{k}']:.3f}" for k in KS]
            cells += [f"{s['MRR@10']:.3f}", f"{s['p50_ms']:.1f}", f"{s['p95_ms']:.1f}"]
            rows.append(f"| {name} | {regime} | {config} | " + " | ".join(cells) + " |")
    return "\n".join(rows)

