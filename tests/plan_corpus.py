"""A two-company corpus (NVIDIA FY2023 and AMD FY2024 10-Ks, text in their filings' words)
for the planner's fault tests: each fault of issue 10 is checked where a wrong company,
a dropped clause or a referent-less query would show."""

from __future__ import annotations

from core.agent.deps import CorpusInfo
from core.app.research import ResearchService
from core.foundation.config import Settings
from core.foundation.types import Chunk, DocumentMeta, Hit, SearchResult, StageScore
from core.retrieval.web import WebHit
from testkit.agent_fakes import FakeReranker, FakeWeb, _terms

SECTIONS = ["Item 1. Business", "Item 1A. Risk Factors",
            "Item 7. Management's Discussion and Analysis"]
NVDA = DocumentMeta(doc_id="9f2c41aa", file_name="nvda-10k-fy2023.html",
                    company="NVIDIA Corporation", form_type="10-K", period="FY2023",
                    ticker="NVDA", sections=SECTIONS)
AMD = DocumentMeta(doc_id="51be07d3", file_name="amd-10k-fy2025.htm",
                   company="Advanced Micro Devices, Inc.", form_type="10-K", period="FY2024",
                   ticker="AMD", sections=SECTIONS)

TEXTS = {
    NVDA.doc_id: [
        ("Item 1A. Risk Factors", "We face intense competition, which could harm our market "
         "share. Competitors include AMD, Intel and large cloud companies building custom AI "
         "chips and accelerators."),
        ("Item 1A. Risk Factors", "Our supply chain depends on third-party foundries such as "
         "TSMC; supply constraints and long manufacturing lead times could harm our revenue."),
        ("Item 1A. Risk Factors", "Climate change may have a long-term impact on our business."),
        ("Item 7. Management's Discussion and Analysis", "Revenue for fiscal year 2023 was "
         "$26.97 billion, flat from a year ago; Data Center revenue grew 41% driven by hyperscale "
         "customers while Gaming revenue declined 27% on lower channel sell-in."),
    ],
    AMD.doc_id: [
        ("Item 1A. Risk Factors", "The markets in which our products are sold are highly "
         "competitive. Intel and NVIDIA compete with our CPU and GPU products and competition "
         "could lower our gross margin."),
        ("Item 1A. Risk Factors", "We rely on third-party manufacturers such as TSMC for wafer "
         "supply; capacity limits could disrupt our supply chain."),
        ("Item 7. Management's Discussion and Analysis", "Net revenue for 2024 was $25.8 "
         "billion, an increase of 14%, driven by the Data Center segment."),
    ],
}

WEB = [
    WebHit(url="https://news.example/amd-mi325x", title="AMD details annual AI accelerator "
           "cadence", date="2024-06-03", source="snapshot",
           text="AMD said it will ship a new Instinct AI accelerator every year, adding supply "
           "from TSMC and competing with NVIDIA on memory capacity."),
]


def chunks() -> list[Chunk]:
    out = []
    for doc_id, texts in TEXTS.items():
        for i, (section, text) in enumerate(texts):
            out.append(Chunk(chunk_id=f"{doc_id}-{i:05d}", doc_id=doc_id, index=i, text=text,
                             section=section, page=i + 1, start=0, end=len(text)))
    return out


class TwoDocRetriever:
    """Term-overlap search honouring the document and section filters of every document."""

    def __init__(self, empty_once: str | None = None):
        self.chunks = chunks()
        self.docs = {NVDA.doc_id: NVDA, AMD.doc_id: AMD}
        self.reranker = FakeReranker()
        self.embedder = None  # offline sentence scoring falls back to term overlap
        self.calls: list[dict] = []
        self.empty_once = empty_once  # a section that returns nothing the first time

    def search(self, query, *, strategy="hybrid", k=None, doc_ids=None, sections=None,
               rerank_query=None, rerank=True) -> SearchResult:
        self.calls.append(dict(query=query, strategy=strategy, doc_ids=doc_ids,
                               sections=sections))
        pool = [c for c in self.chunks if doc_ids is None or c.doc_id in doc_ids]
        if sections:
            pool = [c for c in pool if any(c.section.startswith(s) for s in sections)]
            if self.empty_once and any(s.startswith(self.empty_once) for s in sections):
                self.empty_once, pool = None, []
        q = _terms(query)
        scored = sorted(((len(q & _terms(c.text)), c) for c in pool), key=lambda x: -x[0])
        hits = [Hit(chunk=c, document=self.docs[c.doc_id], rank=r, score=float(s),
                    stages={"fused": StageScore(rank=r, score=float(s))})
                for r, (s, c) in enumerate([x for x in scored if x[0] > 0], start=1)]
        return SearchResult(query=query, rerank_query=rerank_query or query, strategy=strategy,
                            hits=hits[: k or 5], filters={"doc_ids": doc_ids} if doc_ids else {})


def info() -> CorpusInfo:
    return CorpusInfo(documents=[NVDA, AMD],
                      sections={d.doc_id: list(d.sections) for d in (NVDA, AMD)})


def service(settings: Settings, retriever=None, web=None, llm=None) -> ResearchService:
    return ResearchService(settings, retriever or TwoDocRetriever(),
                           web if web is not None else FakeWeb(list(WEB)), llm, info())
