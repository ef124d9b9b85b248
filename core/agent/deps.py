"""What the graph's nodes depend on, passed in (never created at module level).

``AgentDeps`` bundles settings, the retriever, the web search provider, the chat
model (``None``: offline engine) and ``CorpusInfo`` (the corpus's real documents
and section titles, which the planner must choose from). ``ask_llm`` runs one
structured call for a role and turns every failure into ``None`` plus a warning,
so the role falls back to its offline rule and the run goes on.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

from core.agent.agent_cache import cached_llm, store_llm
from core.agent.roles.doc_facts import DocFacts, read_facts
from core.agent.state import RoleUsage
from core.foundation.config import Settings
from core.foundation.types import Chunk, DocumentMeta, Fact
from core.llm.breaker import GuardBook, LLMGuard

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from core.foundation.cache import DiskCache
    from core.foundation.models import Embedder
    from core.retrieval.rerank import Reranker
    from core.retrieval.retriever import FilingRetriever
    from core.retrieval.web import WebSearch

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)


@dataclass
class CorpusInfo:
    """The corpus as the planner may see it: documents and their section titles."""

    documents: list[DocumentMeta] = field(default_factory=list)
    sections: dict[str, list[str]] = field(default_factory=dict)
    facts: dict[str, DocFacts] = field(default_factory=dict)
    """Ticker and period end read from each filing's cover page (where it says)."""
    fact_counts: dict[str, int] | None = None
    """Financial facts per document whose facts were extracted (``facts_status``); a
    document absent from it was ingested before facts existed; None: no fact store."""

    @classmethod
    def from_store(cls, store: Any) -> CorpusInfo:
        """Read documents, sections and cover facts from a ``CorpusStore``."""
        docs = list(store.documents())
        sections = dict(store.sections())
        for d in docs:
            sections.setdefault(d.doc_id, list(d.sections))
        facts = read_facts(store, [d.doc_id for d in docs])
        status = getattr(store, "facts_status", None)
        counts = dict(status()) if callable(status) else None
        return cls(documents=docs, sections=sections, facts=facts, fact_counts=counts)

    def all_sections(self, doc_ids: list[str] | None = None) -> list[str]:
        """Distinct section titles (of ``doc_ids`` when given), in document order."""
        out: list[str] = []
        for doc_id, titles in self.sections.items():
            if doc_ids and doc_id not in doc_ids:
                continue
            out.extend(t for t in titles if t not in out)
        return out

    def doc(self, doc_id: str) -> DocumentMeta | None:
        return next((d for d in self.documents if d.doc_id == doc_id), None)

    def latest_year(self) -> int | None:
        """The latest 4-digit year found in the documents' periods."""
        years = [int(y) for d in self.documents for y in re.findall(r"(?:19|20)\d\d", d.period)]
        return max(years) if years else None


def match_section(name: str | None, titles: list[str]) -> str | None:
    """The corpus title ``name`` refers to: exact, by Item prefix ("Item 1A"), or None."""
    if not name:
        return None
    want = " ".join(name.split()).lower().rstrip(".")
    for title in titles:
        if title.lower() == want:
            return title
    item = re.match(r"item\s+(\d+[a-z]?)\b", want)
    for title in titles:
        low = title.lower()
        if item and re.match(rf"item\s+{item.group(1)}\b", low):
            return title
        if not item and want and want in low:
            return title
    return None


class FactSource(Protocol):
    """Where figure steps read facts and their chunks (a ``CorpusStore``)."""

    def facts(self, doc_ids: list[str] | None = None, *, metric: str | None = None,
              fiscal_years: list[int] | None = None, concept: str | None = None,
              statement: str | None = None) -> list[Fact]: ...

    def facts_status(self) -> dict[str, int]: ...

    def get_chunks(self, ids: list[str]) -> list[Chunk]: ...


def fact_source(store: Any) -> FactSource | None:
    """``store`` when it reads facts (a corpus store with facts), else None."""
    ok = all(callable(getattr(store, name, None))
             for name in ("facts", "facts_status", "get_chunks"))
    return store if ok else None


@dataclass
class AgentDeps:
    """Dependencies of every node; ``llm=None`` selects the offline engine."""

    settings: Settings
    retriever: FilingRetriever | None
    """Filing search (``None`` where no step searches filings, e.g. the baseline)."""
    corpus: CorpusInfo
    web: WebSearch | None = None
    llm: BaseChatModel | None = None
    reranker: Reranker | None = None
    """Overrides the retriever's reranker when given."""
    embedder: Embedder | None = None
    """Overrides the retriever's embedder for offline sentence scoring when given."""
    clock: Callable[[], float] = time.time
    """Wall clock for the max_wall_s bound (tests pass a fake one)."""
    cache: DiskCache | None = None
    """Serves identical LLM calls and retrievals (``core.agent.agent_cache``); None: off."""
    corpus_generation: Callable[[], int] | None = None
    """The corpus generation (retrieval cache keys); None: retrievals are not cached."""
    guards: GuardBook | None = None
    """The LLM breaker and deadline of each run (``llm_guard``); copies of these deps
    (``dataclasses.replace``) share it."""
    facts: FactSource | None = None
    """The corpus's facts for figure steps (``None``: no figure steps are planned)."""

    def __post_init__(self) -> None:
        if self.guards is None:
            self.guards = GuardBook(clock=self.clock,
                                    threshold=self.settings.llm_breaker_threshold)

    def llm_guard(self) -> LLMGuard:
        """This run's LLM guard (one per run thread id, fresh for every run).

        ``route_node`` sets the deadline when the run starts (``LLMGuard.begin``);
        ``review_node`` sets it again after review, from the run's ``started_at`` (the
        planning time counted, the wait for review not)."""
        assert self.guards is not None
        guard = self.guards.get(current_run_id())
        if guard.deadline is None:
            guard.begin(self.clock(), self.settings.max_wall_s)
        return guard

    @property
    def web_available(self) -> bool:
        return self.web is not None and self.web.name != "none"

    @property
    def text_embedder(self) -> Embedder | None:
        """The embedder for offline sentence scoring (the retriever's, unless given)."""
        if self.embedder is not None:
            return self.embedder
        return self.retriever.embedder if self.retriever is not None else None

    @property
    def corpus_reranker(self) -> Reranker | None:
        """The reranker for filing hits (the retriever's, unless given)."""
        if self.reranker is not None:
            return self.reranker
        return self.retriever.reranker if self.retriever is not None else None

    @property
    def backend(self) -> str:
        if self.llm is None:
            return "offline engine"
        name = getattr(self.llm, "model_name", None) or getattr(self.llm, "model", None)
        return f"llm:{name or type(self.llm).__name__}"


def current_run_id() -> str:
    """The LangGraph thread id of the run being executed ("" outside a graph run)."""
    try:
        from langgraph.config import get_config

        return str(get_config().get("configurable", {}).get("thread_id") or "")
    except (ImportError, RuntimeError):
        return ""


@dataclass
class RoleCall(Generic[M]):
    """One role's LLM call: the value (None: use the offline rule), usage, and a warning."""

    value: M | None
    usage: RoleUsage
    warning: str | None = None

    def fell_back(self, reason: str) -> RoleCall[M]:
        """This call with its reply set aside: counted as a fallback, ``reason`` as warning."""
        if self.usage.fallbacks:
            return self
        usage = self.usage.model_copy(update={"fallbacks": 1})
        warning = f"{self.warning} {reason}" if self.warning else reason
        return RoleCall(None, usage, warning)


def to_role_usage(usage: Any, fallback: bool = False, skipped: bool = False) -> RoleUsage:
    """Convert ``core.llm.usage.Usage`` (or None) to ``RoleUsage``."""
    return RoleUsage(
        calls=getattr(usage, "calls", 0) or 0,
        prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
        completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
        fallbacks=1 if fallback else 0,
        skipped=1 if skipped else 0,
    )


def ask_llm(deps: AgentDeps, role: str, schema: type[M], messages: list[Any]) -> RoleCall[M]:
    """Run one structured call for ``role``; any failure gives ``value=None`` and a warning.

    The call goes through the run's guard (``deps.llm_guard()``): once the endpoint has
    failed the same way twice in this run no request is sent (the call is counted as
    skipped, without a warning), and the call that opened the breaker says so, once.
    """
    if deps.llm is None:
        return RoleCall(None, RoleUsage())
    from core.llm.failures import redact

    key, hit = cached_llm(deps, role, schema, messages)
    if hit is not None:
        return RoleCall(hit, RoleUsage(cache_hits=1))
    from core.llm.structured import call_structured

    guard = deps.llm_guard()
    try:
        result = call_structured(deps.llm, schema, messages, deps.settings, role=role,
                                 guard=guard)
    except Exception as exc:  # noqa: BLE001 - every failure degrades to the offline rule
        kind = getattr(exc, "kind", "")
        skipped = kind == "skipped" or (kind == "deadline" and not getattr(exc, "attempts", 1))
        usage = to_role_usage(getattr(exc, "usage", None), fallback=True, skipped=skipped)
        notice = guard.announce()
        if kind == "skipped":
            return RoleCall(None, usage, notice)
        msg = redact(f"{role}: no usable LLM reply ({exc}); used the offline rule instead."
                     + (f" {notice}" if notice else ""), deps.settings)
        log.warning(msg)
        return RoleCall(None, usage, msg)
    call = RoleCall(result.value, to_role_usage(result.usage).model_copy(update={"answered": 1}))
    store_llm(deps, key, call.value)
    return call
