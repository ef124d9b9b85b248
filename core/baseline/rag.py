"""The walk-through's shallow RAG, kept as the baseline the deep agent is compared with.

Fixed-size chunks (1000 characters, 150 overlap, langchain's
RecursiveCharacterTextSplitter) of each document's whole text, sections ignored;
vector top-3 by cosine; ONE LLM call (offline: extractive sentences with
citations). It returns the same ``RunRecord`` shape as a deep run (kind
``baseline``) with time, LLM calls and tokens. Chunk vectors are cached under
``data_dir/baseline`` so repeated comparisons do not re-embed the filing.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from core.agent.common import call_usage
from core.agent.deps import AgentDeps, CorpusInfo, ask_llm
from core.agent.events import AnswerReady, HitsRetrieved, HitView
from core.agent.roles.citations import validate_citations
from core.agent.roles.distill import extract
from core.agent.roles.retrieval import hit_to_evidence
from core.agent.roles.synthesize import OFFLINE_NOTE
from core.agent.state import Answer, StopReason
from core.app.runs import RunRecord, answered_by
from core.baseline.index import load_index, recipe_embedder
from core.foundation.cache import open_cache
from core.foundation.config import Settings
from core.foundation.errors import RetrievalError, require_question
from core.foundation.types import Chunk, DocumentMeta, Hit, StageScore
from core.retrieval.scope import resolve_scope

TOP_K = 3
BASELINE_PROMPT = """Answer the question using only the numbered context passages.
Cite the passages you use with their numbers, like [1]. If the context does not contain the
answer, say so plainly."""


class BaselineOutput(BaseModel):
    """The baseline's single LLM reply."""

    answer: str = Field(description="The answer, citing passages as [n].")


def _index(store: Any, embedder: Any, docs: list[DocumentMeta], settings: Settings
           ) -> tuple[list[Chunk], np.ndarray]:
    """Fixed-size chunks of ``docs`` and their vectors (cached on disk per document)."""
    return load_index(store, embedder, docs, settings)


def scope(question: str, every: list[DocumentMeta], doc_ids: list[str] | None = None
          ) -> list[DocumentMeta]:
    """The filings of ``every`` the baseline searches for ``question``: ``doc_ids``, or given
    none those the question is about (``resolve_scope``; all when it names no company)."""
    wanted = doc_ids or resolve_scope(question, every).doc_ids
    return [d for d in every if not wanted or d.doc_id in wanted]


def retrieve(question: str, store: Any, embedder: Any, settings: Settings,
             doc_ids: list[str] | None = None, k: int = TOP_K) -> list[Hit]:
    """Vector top-``k`` fixed-size chunks for ``question``, among ``doc_ids``; given none,
    among the filings the question is about (``resolve_scope``: a question naming one
    company searches that company's filings, one naming none searches every filing)."""
    every = store.documents()
    if not every:
        raise RetrievalError("The corpus is empty: ingest a filing before running the baseline.")
    docs = scope(question, every, doc_ids)
    if not docs:
        raise RetrievalError("None of the chosen filings is in the corpus.")
    embedder = recipe_embedder(embedder, settings)  # pieces read whole, as the recipe does
    chunks, vecs = _index(store, embedder, docs, settings)
    scores = vecs @ embedder.encode([question])[0]
    by_id = {d.doc_id: d for d in docs}
    hits = []
    for rank, i in enumerate(np.argsort(-scores, kind="stable")[:k], start=1):
        stage = StageScore(rank=rank, score=float(scores[i]))
        hits.append(Hit(chunk=chunks[i], document=by_id.get(chunks[i].doc_id),
                        stages={"vector": stage}, rank=rank, score=float(scores[i])))
    return hits


def _offline_answer(question: str, hits: list[Hit], embedder: Any) -> str:
    kept, _, _ = extract(question, hits, set(), embedder)
    n_of = {h.chunk.chunk_id: n for n, h in enumerate(hits, start=1)}
    lines = [f"{e.sentence.rstrip()} [{n_of[e.evidence_id]}]" for e in kept[:4]]
    body = " ".join(lines) if lines else "The top passages do not answer the question."
    return f"{body}\n\n{OFFLINE_NOTE}"


def run_baseline(question: str, *, settings: Settings, store: Any, embedder: Any,
                 llm: Any = None, doc_ids: list[str] | None = None) -> RunRecord:
    """One baseline run, saved nowhere (the caller decides); see the module docstring."""
    from core.llm.prompts import fence_evidence, with_safety

    require_question(question, offline=llm is None)
    t0 = time.perf_counter()
    hits = retrieve(question, store, embedder, settings, doc_ids)
    t_retrieve = time.perf_counter()
    numbered = {n: hit_to_evidence(h) for n, h in enumerate(hits, start=1)}
    deps = AgentDeps(settings=settings, retriever=None, corpus=CorpusInfo(), llm=llm,
                     cache=open_cache(settings))
    blocks = [{"id": str(n), "text": ev.text, "source": ev.label} for n, ev in numbered.items()]
    call = ask_llm(deps, "baseline", BaselineOutput, [
        ("system", with_safety(BASELINE_PROMPT)),
        ("user", f"Context:\n{fence_evidence(blocks)}\n\nQuestion: {question}")])
    account = deps.llm_guard().take_account()  # what the endpoint did: the label says it
    source = "llm" if call.value is not None and call.value.answer.strip() else "offline"
    text = call.value.answer if source == "llm" else _offline_answer(question, hits, embedder)
    check = validate_citations(text, numbered)
    t_end = time.perf_counter()
    stop = StopReason(code="completed", message="baseline: one retrieval, one answer")
    answer = Answer(text=check.text, citations=check.citations, invalid_markers=check.invalid,
                    evidence=list(numbered.values()), source=source)
    usage = {"baseline": call.usage} if call_usage(call) else {}
    events = [
        HitsRetrieved(node="baseline", step=0, elapsed_ms=round((t_retrieve - t0) * 1000, 1),
                      tool="filing_search", query=question, strategy="vector",
                      hits=[HitView.from_hit(h) for h in hits]),
        AnswerReady(node="baseline", elapsed_ms=round((t_end - t_retrieve) * 1000, 1),
                    usage=usage.get("baseline"), answer=answer.text,
                    citations=[c.model_dump() for c in answer.citations],
                    invalid_markers=answer.invalid_markers, stop_reason=stop.code,
                    stop_message=stop.message, source=source),
    ]
    return RunRecord(
        kind="baseline", question=question, doc_scope=list(doc_ids or []), llm=account,
        backend=answered_by(deps.backend, account, call.usage.cache_hits),
        events=events, evidence=answer.evidence, answer=answer, usage=usage,
        timings_ms={"retrieve": round((t_retrieve - t0) * 1000, 1),
                    "generate": round((t_end - t_retrieve) * 1000, 1)},
        wall_s=round(t_end - t0, 3), stop_reason=stop,
        warnings=[call.warning] if call.warning else [],
    )
