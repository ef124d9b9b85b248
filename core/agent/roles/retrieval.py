"""Retrieval role: the funnel for one step, then reranking against the rewritten query.

filing_search steps call ``Retriever.search`` with the step's document and
section filters (candidates only, ``rerank=False``); the rerank stage then scores
the REWRITTEN query with the corpus reranker (cross-encoder or its named local
fallback). web_search steps call the ``WebSearch`` provider; web results become
``Hit`` records (``doc_id="web"``, ``chunk_id=url``) so both paths share one shape,
and are reranked by the cross-encoder when there is one, else by a local fusion
(embedding cosine + query-term overlap + provider order, RRF k=60).
"""

from __future__ import annotations

import logging
from typing import Any

from core.agent.agent_cache import cached_hits, retrieval_key, store_hits
from core.agent.deps import AgentDeps
from core.agent.roles.sentences import overlap, terms
from core.agent.state import Evidence, PlanStep
from core.foundation.errors import RetrievalError
from core.foundation.types import Chunk, DocumentMeta, Hit, RerankerInfo, StageScore
from core.llm.breaker import guarding
from core.retrieval.fusion import rrf

log = logging.getLogger(__name__)
WEB_DOC_ID = "web"
UNDATED_RETRY = "searched again without the date filter"
CACHE_HIT = "cache_hit"
"""Key of ``timings_ms`` marking a filing search served from the cache."""
WEB_RERANKER = RerankerInfo(
    name="web:cosine+terms+provider (RRF)",
    kind="fallback",
    reason="no cross-encoder available; web results reranked by embedding cosine, query-term "
    "overlap and the provider's order, fused by RRF (k=60)",
)


def web_hit_to_hit(web_hit: Any, rank: int) -> Hit:
    """A ``WebHit`` as a ``Hit`` (chunk id = URL, section = title, period = date)."""
    title = web_hit.title or web_hit.url
    chunk = Chunk(chunk_id=web_hit.url, doc_id=WEB_DOC_ID, index=rank - 1, text=web_hit.text,
                  section=title, start=0, end=len(web_hit.text))
    doc = DocumentMeta(doc_id=WEB_DOC_ID, file_name=web_hit.url,
                       company=web_hit.publisher or web_hit.source, form_type="web",
                       period=web_hit.date or "undated", source=web_hit.url)
    return Hit(chunk=chunk, document=doc, rank=rank, score=float(web_hit.score),
               stages={"web": StageScore(rank=rank, score=float(web_hit.score))})


def hit_to_evidence(hit: Hit) -> Evidence:
    """The evidence record a step keeps for a hit."""
    c, d = hit.chunk, hit.document
    if c.doc_id == WEB_DOC_ID:
        who = d.company if d else "web"
        when = d.period if d else "undated"
        return Evidence(id=c.chunk_id, kind="web", text=c.text, url=c.chunk_id, title=c.section,
                        date=None if when == "undated" else when, score=hit.score,
                        label=f"{c.section} ({who}, {when})")
    return Evidence(id=c.chunk_id, kind="chunk", text=c.text, doc_id=c.doc_id, section=c.section,
                    page=c.page, page_label=c.page_label, score=hit.score,
                    label=hit.citation_label)


def removed_filings(doc_ids: list[str] | None, deps: AgentDeps) -> list[str]:
    """Of ``doc_ids``, the filings deleted from the corpus since the run read it (the
    retriever's store no longer has them); [] when the retriever has no store to ask."""
    get = getattr(getattr(deps.retriever, "store", None), "get_document", None)
    if not doc_ids or not callable(get):
        return []
    return [d for d in doc_ids if get(d) is None]


def _removed_note(gone: list[str], left: list[str], deps: AgentDeps) -> str:
    names = []
    for doc_id in gone:
        doc = deps.corpus.doc(doc_id)
        parts = [p for p in (doc.company, doc.form_type, doc.period) if p and p != "unknown"] \
            if doc else []
        names.append(f"{' '.join(parts)} ({doc.file_name})" if doc else doc_id)
    was = "was" if len(gone) == 1 else "were"
    rest = ("; this step has no filing left to search and is not widened to other filings"
            if not left else "; the step searches the rest of its filings")
    return f"{', '.join(names)} {was} deleted from the corpus during the run{rest}."


def search_filings(step: PlanStep, query: str, strategy: str, scope: list[str],
                   deps: AgentDeps) -> tuple[list[Hit], dict, dict, str | None]:
    """Candidates ``(hits, filters, timings, warning)``; a bad filter becomes a warning.

    A filing of the step deleted during the run is left out and named in the warning; a
    step with none of its filings left finds nothing (never another company's filing)."""
    doc_ids = step.doc_ids or scope or None
    sections = [step.section] if step.section else None
    note = None
    gone = removed_filings(doc_ids, deps)
    if gone and doc_ids:
        doc_ids = [d for d in doc_ids if d not in gone]
        note = _removed_note(gone, doc_ids, deps)
        if not doc_ids:
            return [], {"doc_ids": [], "sections": sections or []}, {}, note
    key = retrieval_key(deps, query, strategy, doc_ids, sections)
    cached = cached_hits(deps, key)
    if cached is not None:
        return cached[0], cached[1], {CACHE_HIT: 1.0}, note
    try:
        result = deps.retriever.search(query, strategy=strategy, k=deps.settings.top_k,
                                       doc_ids=doc_ids, sections=sections, rerank=False)
    except RetrievalError as exc:
        problem = f"{note} {exc}" if note else str(exc)
        return [], {"doc_ids": doc_ids or [], "sections": sections or []}, {}, problem
    store_hits(deps, key, result.hits, result.filters)
    return result.hits, result.filters, result.timings_ms, note


def search_web(query: str, deps: AgentDeps, after: str | None = None
               ) -> tuple[list[Hit], str | None]:
    """Web candidates ``(hits, warning)``; provider failures become a warning.

    ``after`` (ISO date) goes to providers that accept it; when nothing was published
    since then, the search is repeated without it and the warning says so.
    """
    if not deps.web_available:
        return [], "web search is not available in this run (no Tavily key, no snapshot)"
    k = max(deps.settings.top_n * 2, 8)
    note = None
    try:
        found = deps.web.search(query, k=k, after=after)
        if after and not found:
            note = f"no web result published on or after {after}; {UNDATED_RETRY}"
            found = deps.web.search(query, k=k)
    except RetrievalError as exc:
        return [], str(exc)
    return [web_hit_to_hit(h, i) for i, h in enumerate(found, start=1)], note


def rerank_hits(query: str, hits: list[Hit], tool: str, deps: AgentDeps
                ) -> tuple[list[Hit], RerankerInfo | None, str | None]:
    """``(top_n hits, reranker info, warning)`` scored against ``query``."""
    top_n = deps.settings.top_n
    if not hits:
        return [], None, None
    reranker = deps.corpus_reranker
    if tool == "web_search" and (reranker is None or reranker.info.kind != "cross-encoder"):
        return rerank_web(query, hits, top_n, deps), WEB_RERANKER, None
    if reranker is None:
        kept = [h.model_copy(update={"rank": i}) for i, h in enumerate(hits[:top_n], start=1)]
        return kept, None, "no reranker configured: kept the first-stage order"
    try:
        with guarding(deps.llm_guard()):  # an LLM reranker obeys the run's breaker/deadline
            return reranker.rerank(query, hits, top_n), reranker.info, None
    except Exception as exc:  # noqa: BLE001 - a failed rerank keeps first-stage order
        log.warning("rerank failed: %s", exc)
        kept = hits[:top_n]
        return kept, None, f"reranker failed ({type(exc).__name__}: {exc}); kept first-stage order"


def rerank_web(query: str, hits: list[Hit], top_n: int, deps: AgentDeps) -> list[Hit]:
    """Local web reranking: RRF of cosine, term overlap and provider order."""
    ids = [h.chunk.chunk_id for h in hits]
    q_terms = terms(query)
    texts = {h.chunk.chunk_id: f"{h.chunk.section}\n{h.chunk.text}" for h in hits}
    rankings = [ids, sorted(ids, key=lambda i: -overlap(q_terms, texts[i]))]
    embedder = deps.text_embedder
    if embedder is not None:
        vecs = embedder.encode([query] + [h.chunk.text[:2000] for h in hits])
        sims = vecs[1:] @ vecs[0]
        rankings.append([ids[i] for i in sorted(range(len(ids)), key=lambda i: -float(sims[i]))])
    fused = rrf(rankings, deps.settings.rrf_k)
    by_id = {h.chunk.chunk_id: h for h in hits}
    out = []
    for rank, (cid, score) in enumerate(fused[:top_n], start=1):
        hit = by_id[cid].model_copy(deep=True)
        hit.stages["reranked"] = StageScore(rank=rank, score=float(score))
        hit.rank, hit.score = rank, float(score)
        out.append(hit)
    return out

