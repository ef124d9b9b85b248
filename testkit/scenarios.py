"""Two-company research scenario shared by tests/test_llm_breaker.py and
scripts/measure_llm_breaker.py: NVIDIA's and AMD's (hand-written) 10-Ks, a two-step plan on
competition risks, and the research service wired to them."""

from __future__ import annotations

from core.agent.deps import CorpusInfo
from core.agent.state import PlanStep
from core.app.research import ResearchService
from core.llm.factory import make_chat_model
from core.retrieval.rerank import get_reranker
from core.retrieval.retriever import Retriever

QUESTION = "How do NVIDIA and AMD each describe competition in their 10-K risk factors?"


def two_step_plan(store) -> dict:
    docs = {d.company: d.doc_id for d in store.documents()}
    steps = [PlanStep(sub_question=f"How does {name} describe competition risks?",
                      tool="filing_search", keywords=["competition"],
                      section="Item 1A. Risk Factors", doc_ids=[docs[name]])
             for name in ("NVIDIA", "AMD")]
    return {"steps": [s.model_dump() for s in steps]}


def service(settings, store, hash_embedder) -> ResearchService:
    retriever = Retriever(store, hash_embedder, get_reranker(settings, hash_embedder, store),
                          settings)
    return ResearchService(settings, retriever, None, make_chat_model(settings),
                           CorpusInfo.from_store(store), embedder=hash_embedder, store=store)
