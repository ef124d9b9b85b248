"""Small local fakes of the retriever and web search for the agent's tests (no models).

``FakeRetriever`` scores chunks by query-term overlap and honours the document
and section filters like the real one (unknown section -> RetrievalError);
``FakeWeb`` returns canned articles that share a term with the query. Both record
the calls they get so tests can check what the agent asked for.
"""

from __future__ import annotations

import re

from core.agent.deps import CorpusInfo
from core.app.research import ResearchService
from core.foundation.config import Settings
from core.foundation.errors import RetrievalError
from core.foundation.types import Chunk, DocumentMeta, Hit, RerankerInfo, SearchResult, StageScore
from core.retrieval.web import WebHit

DOC = DocumentMeta(doc_id="doc1", file_name="acme-10k.htm", company="Acme Chips Inc.",
                   form_type="10-K", period="FY2023",
                   sections=["Item 1. Business", "Item 1A. Risk Factors",
                             "Item 7. Management's Discussion and Analysis"])

TEXTS = [
    ("Item 1. Business", "Acme designs graphics chips for data centers. Our products include "
     "the Falcon accelerator and the Kestrel software platform for developers."),
    ("Item 1A. Risk Factors", "We face intense competition from larger chip vendors in the "
     "accelerator market. If a rival's AI strategy delivers products with better performance, "
     "we could lose market share and our margins could decline."),
    ("Item 1A. Risk Factors", "Our supply chain depends on a single foundry in Taiwan. A "
     "disruption at the foundry could delay shipments of our accelerators to customers."),
    ("Item 7. Management's Discussion and Analysis", "Results of operations: what drove "
     "revenue? Revenue grew 35% to $2.4 billion in "
     "fiscal 2023, driven by data center accelerator sales to cloud customers."),
]

WEB = [
    WebHit(url="https://news.example/rival-ai-roadmap", title="Rival unveils annual AI "
           "accelerator roadmap", date="2024-06-03", source="snapshot",
           text="Rival Semi said it will launch a new AI accelerator every year, competing "
           "directly with larger chip vendors on memory capacity and price."),
    WebHit(url="https://news.example/rate-cut", title="Central bank cuts rates",
           date="2024-09-18", source="snapshot", text="The central bank cut interest rates by "
           "half a point, citing cooling inflation."),
]


def _terms(text: str) -> set[str]:
    return {w.removesuffix("s") for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2}


def make_chunks(texts=TEXTS, doc: DocumentMeta = DOC) -> list[Chunk]:
    out, pos = [], 0
    for i, (section, text) in enumerate(texts):
        out.append(Chunk(chunk_id=f"{doc.doc_id}-{i:05d}", doc_id=doc.doc_id, index=i, text=text,
                         section=section, page=i + 1, start=pos, end=pos + len(text)))
        pos += len(text) + 1
    return out


class FakeReranker:
    """Reorders by query-term overlap; named as a fallback."""

    info = RerankerInfo(name="fake-overlap", kind="fallback", reason="tests")

    def __init__(self):
        self.queries: list[str] = []

    def rerank(self, query: str, hits: list[Hit], top_n: int) -> list[Hit]:
        self.queries.append(query)
        q = _terms(query)
        scored = sorted(hits, key=lambda h: -len(q & _terms(h.chunk.text)))[:top_n]
        out = []
        for rank, h in enumerate(scored, start=1):
            score = float(len(q & _terms(h.chunk.text)))
            hit = h.model_copy(deep=True)
            hit.stages["reranked"] = StageScore(rank=rank, score=score)
            hit.rank, hit.score = rank, score
            out.append(hit)
        return out


class FakeRetriever:
    """Overlap search over a few chunks, with the real filter semantics (see module doc)."""

    def __init__(self, chunks: list[Chunk] | None = None, doc: DocumentMeta = DOC,
                 empty_sections: tuple[str, ...] = (), always_empty: bool = False):
        self.chunks = chunks if chunks is not None else make_chunks()
        self.doc = doc
        self.reranker = FakeReranker()
        self.embedder = None
        self.empty_sections = empty_sections
        self.always_empty = always_empty
        self.calls: list[dict] = []

    def search(self, query, *, strategy="hybrid", k=None, doc_ids=None, sections=None,
               rerank_query=None, rerank=True) -> SearchResult:
        self.calls.append(dict(query=query, strategy=strategy, doc_ids=doc_ids,
                               sections=sections))
        titles = self.doc.sections
        chosen = None
        if sections is not None:
            chosen = [t for t in titles for s in sections if t.lower().startswith(s.lower())]
            if not chosen:
                raise RetrievalError(f"Unknown section(s): {sections}")
        q = _terms(query)
        pool = [c for c in self.chunks
                if (doc_ids is None or c.doc_id in doc_ids)
                and (chosen is None or c.section in chosen)
                and not (chosen and any(c.section.startswith(e) for e in self.empty_sections))]
        if self.always_empty:
            pool = []
        scored = sorted(((len(q & _terms(c.text)), c) for c in pool), key=lambda x: -x[0])
        hits = [Hit(chunk=c, document=self.doc, rank=r, score=float(s),
                    stages={strategy if strategy != "hybrid" else "fused":
                            StageScore(rank=r, score=float(s))})
                for r, (s, c) in enumerate([x for x in scored if x[0] > 0], start=1)]
        filters = {"doc_ids": doc_ids} if doc_ids else {}
        if chosen:
            filters["sections"] = chosen
        return SearchResult(query=query, rerank_query=rerank_query or query, strategy=strategy,
                            hits=hits[: k or 5], filters=filters)


class FakeWeb:
    """Canned web results sharing a term with the query (published on/after ``after``)."""

    name = "fake web"

    def __init__(self, hits: list[WebHit] | None = None):
        self.hits = hits if hits is not None else list(WEB)
        self.queries: list[str] = []
        self.afters: list[str | None] = []

    def search(self, query: str, k: int = 5, *, after: str | None = None) -> list[WebHit]:
        self.queries.append(query)
        self.afters.append(after)
        q = _terms(query)
        return [h for h in self.hits if q & _terms(h.title + " " + h.text)
                and (after is None or (h.date or "") >= after)][:k]


def corpus_info(doc: DocumentMeta = DOC) -> CorpusInfo:
    return CorpusInfo(documents=[doc], sections={doc.doc_id: list(doc.sections)})


def make_service(settings: Settings, *, retriever=None, web=None, llm=None, clock=None,
                 checkpointer=None) -> ResearchService:
    svc = ResearchService(settings, retriever or FakeRetriever(),
                          web if web is not None else FakeWeb(), llm, corpus_info(),
                          checkpointer=checkpointer)
    if clock is not None:
        svc.deps.clock = clock
    return svc


QUESTION = ("Based on Acme's 2023 10-K filing, identify their key risks related to competition. "
            "Then, find recent news (post-filing, from 2024) about Rival's AI accelerator "
            "strategy and explain how this new strategy exacerbates one of Acme's stated risks.")


# Questions of the learned-policy test and scripts/measure_policy.py.
QUESTIONS = [
    QUESTION,
    "What drove Acme's revenue in fiscal 2023?",
    "What supply chain risks does Acme state in its 10-K?",
    "Which products does Acme sell to data centers, and what is Rival's 2024 AI roadmap?",
    "How does Acme describe competition from larger chip vendors?",
    "What does Acme say about its foundry in Taiwan?",
]
