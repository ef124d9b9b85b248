"""Retrieval quality on a question set with gold evidence: recall@5 and MRR@10 per strategy.

A question (one JSON object per line) names its filing (``file``), the PDF pages
holding the answer (``pages``, empty for HTML) and exact evidence snippets
(``evidence``). A retrieved chunk is a hit when it belongs to that filing and
lies on a gold page or contains an evidence snippet (compared on lower-cased
letters and digits only, so spacing and punctuation differences from
extraction do not matter).

Two settings: ``filtered`` restricts every search to the question's filing;
``open`` searches all filings in the index without a filter.

    python -m core.retrieval.measure data/bench/shared_filings_questions.jsonl \
        --filings ../shared/filings [--data-dir DIR] [--fallback rrf3 ...]
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from core.types import Chunk

CONFIGS: tuple[tuple[str, str, bool], ...] = (
    ("vector", "vector", False),
    ("keyword", "keyword", False),
    ("hybrid", "hybrid", False),
    ("hybrid+rerank", "hybrid", True),
)


@dataclass
class BenchQuestion:
    """One analyst question with its gold evidence."""

    id: str
    question: str
    file: str
    pages: list[int] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)
    topic: str = ""


@dataclass
class Score:
    """Recall@5 and MRR@10 of one configuration, with the first hit rank per question."""

    recall_at_5: float
    mrr_at_10: float
    ranks: dict[str, int | None]


def load_questions(path: str | Path) -> list[BenchQuestion]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [BenchQuestion(**json.loads(line)) for line in lines if line.strip()]


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def is_hit(chunk: Chunk, question: BenchQuestion, doc_id: str) -> bool:
    """Whether ``chunk`` is gold evidence for ``question`` (see the module docstring)."""
    if chunk.doc_id != doc_id:
        return False
    if chunk.page is not None and chunk.page in question.pages:
        return True
    text = _norm(chunk.text)
    return any(_norm(e) in text for e in question.evidence)


def first_hit_rank(chunks: list[Chunk], question: BenchQuestion, doc_id: str) -> int | None:
    for rank, chunk in enumerate(chunks, start=1):
        if is_hit(chunk, question, doc_id):
            return rank
    return None


def evaluate(retriever, questions: list[BenchQuestion], doc_ids: dict[str, str], *,
             filtered: bool, configs=CONFIGS) -> dict[str, Score]:
    """Score each configuration; ``doc_ids`` maps a question's file name to its doc_id."""
    out: dict[str, Score] = {}
    for name, strategy, rerank in configs:
        ranks: dict[str, int | None] = {}
        for q in questions:
            doc_id = doc_ids[q.file]
            res = retriever.search(
                q.question, strategy=strategy, k=10, rerank=rerank,
                doc_ids=[doc_id] if filtered else None,
            )
            ranks[q.id] = first_hit_rank([h.chunk for h in res.hits], q, doc_id)
        n = max(1, len(questions))
        recall = sum(1 for r in ranks.values() if r is not None and r <= 5) / n
        mrr = sum(1.0 / r for r in ranks.values() if r is not None and r <= 10) / n
        out[name] = Score(recall, mrr, ranks)
    return out


def format_table(results: dict[str, dict[str, Score]]) -> str:
    """Markdown table: one row per configuration, recall@5 / MRR@10 per setting."""
    settings = list(results)
    head = "| config | " + " | ".join(f"{s} R@5 | {s} MRR@10" for s in settings) + " |"
    sep = "|---" * (1 + 2 * len(settings)) + "|"
    rows = [head, sep]
    for name in next(iter(results.values())):
        cells = []
        for s in settings:
            sc = results[s][name]
            cells += [f"{sc.recall_at_5:.0%}", f"{sc.mrr_at_10:.3f}"]
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def build_corpus(filings: Path, files: list[str], settings, embedder):
    """Ingest ``files`` from ``filings`` through core.ingest.pipeline; returns (store, doc_ids)."""
    from core.ingest.pipeline import prepare
    from core.store.corpus_store import CorpusStore

    store = CorpusStore(settings, embedder)
    doc_ids: dict[str, str] = {}
    for name in files:
        data = (filings / name).read_bytes()
        prepared = prepare(data, name, settings, source=str(filings / name))
        meta, _ = store.add(prepared.meta, prepared.chunks)
        doc_ids[name] = meta.doc_id
    return store, doc_ids


def main(argv: list[str] | None = None) -> int:
    import tempfile

    from core.config import Settings
    from core.models import get_embedder
    from core.retrieval.fallback import METHODS
    from core.retrieval.rerank import get_reranker
    from core.retrieval.retriever import Retriever

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("questions")
    ap.add_argument("--filings", required=True, help="folder holding the questions' files")
    ap.add_argument("--data-dir", help="corpus folder to (re)use; default: a temporary one")
    ap.add_argument("--fallback", nargs="*", default=None, choices=METHODS,
                    help="fallback rerankers to compare (default: the chosen one)")
    args = ap.parse_args(argv)
    questions = load_questions(args.questions)
    tmp = None if args.data_dir else tempfile.TemporaryDirectory(prefix="measure-")
    settings = Settings(data_dir=Path(args.data_dir or tmp.name))
    embedder = get_embedder(settings)
    files = list(dict.fromkeys(q.file for q in questions))
    store, doc_ids = build_corpus(Path(args.filings), files, settings, embedder)
    n_chunks = sum(d.n_chunks for d in store.documents())
    print(f"{len(questions)} questions, {len(files)} filings, {n_chunks} chunks")
    for method in args.fallback or [None]:
        reranker = get_reranker(settings, embedder, store, fallback_method=method)
        retriever = Retriever(store, embedder, reranker, settings)
        results = {
            "filtered": evaluate(retriever, questions, doc_ids, filtered=True),
            "open": evaluate(retriever, questions, doc_ids, filtered=False),
        }
        print(f"\nreranker: {reranker.info.name} — {reranker.info.reason}")
        print(format_table(results))
    store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
