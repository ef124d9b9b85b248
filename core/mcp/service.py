"""What the tools share: the settings, the corpus's registry and, on first use, the corpus.

The registry (SQLite in a data folder, or the team database) answers the figure tools, the
reading and the listings with no model loaded: a client's first ``figure`` is answered in
milliseconds, not after the embedding model loads. ``corpus`` (search, ask, writes) and
``research`` (the deep agent, its runs saved where the dashboard lists them) are opened on
first use, once, whichever thread asks first. Every read goes to the store, so a filing
another process adds or deletes is seen on the next call.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from core.foundation.config import Settings
from core.foundation.types import DocumentMeta, Fact


class Facts:
    """The registry as the figures layer reads a store: documents, facts, chunks, and the
    registry itself (``answer_figure`` reads its facts' health from it).

    A filing's facts are parsed once and kept (the filings read last, ``KEPT`` facts at
    most: about 4 KB each, a 10-K holds 2,000-4,500) while the corpus is unchanged: its
    generation, and each filing's facts count and reader (a ``facts --rebuild`` or
    ``doctor --repair`` changes them). A look-up filters the kept facts as the registry's
    query does (same filters, same order); parsing a 10-K's few thousand facts again on
    every call cost more than the whole look-up."""

    KEPT = 40_000

    def __init__(self, registry: Any):
        self.registry = registry
        self._lock = threading.Lock()
        self._stamp: tuple | None = None
        self._kept: OrderedDict[str, list[Fact]] = OrderedDict()

    def documents(self) -> list[DocumentMeta]:
        return self.registry.documents()

    def get_document(self, doc_id: str) -> DocumentMeta | None:
        return self.registry.get_document(doc_id)

    def _of(self, doc_id: str, stamp: tuple) -> list[Fact]:
        with self._lock:
            if stamp != self._stamp:
                self._stamp, self._kept = stamp, OrderedDict()
            found = self._kept.get(doc_id)
            if found is not None:
                self._kept.move_to_end(doc_id)
                return found
        found = self.registry.facts([doc_id])
        with self._lock:
            if stamp == self._stamp:
                self._kept[doc_id] = found
                while len(self._kept) > 1 and sum(map(len, self._kept.values())) > self.KEPT:
                    self._kept.popitem(last=False)
        return found

    def facts(self, doc_ids=None, *, metric=None, fiscal_years=None, concept=None,
              statement=None) -> list[Fact]:
        if doc_ids is None:
            return self.registry.facts(None, metric=metric, fiscal_years=fiscal_years,
                                       concept=concept, statement=statement)
        status = self.registry.facts_status()  # in document order, as the query sorts
        stamp = (self.registry.generation(), tuple(status.items()),
                 tuple(self.registry.facts_readers().items()))
        wanted, years = set(doc_ids), set(fiscal_years) if fiscal_years is not None else None
        return [f for doc_id in status if doc_id in wanted for f in self._of(doc_id, stamp)
                if (years is None or f.fiscal_year in years)
                and (metric is None or f.metric == metric)
                and (concept is None or f.concept == concept)
                and (statement is None or f.statement == statement)]

    def facts_status(self) -> dict[str, int]:
        return self.registry.facts_status()

    def get_chunks(self, ids):
        return self.registry.get_chunks(ids)

    def chunks(self, doc_id=None, section=None):
        return self.registry.chunks(doc_id, section)

    def sections(self) -> dict[str, list[str]]:
        return self.registry.sections()


class _CorpusEmbedder:
    """The corpus's embedder, opened only when something encodes (a reading falls back to
    the nearest catalogue name by it, as the agent's reading does)."""

    def __init__(self, service: McpService):
        self._service = service

    @property
    def name(self) -> str:
        return self._service.corpus.embedder.name

    def encode(self, texts):
        return self._service.corpus.embedder.encode(texts)


class McpService:
    """One server's view of one corpus (see the module docstring)."""

    def __init__(self, settings: Settings, *, allow_writes: bool = False,
                 corpus_factory: Callable[[Settings], Any] | None = None,
                 research_factory: Callable[[Settings, Any], Any] | None = None,
                 ingest_roots: list[str] | None = None):
        """``corpus_factory(settings)``: a ``core.app.corpus.Corpus`` (default: with the
        configured embedder); ``research_factory(settings, corpus)``: a
        ``core.app.research.ResearchService`` (default: the CLI's, with the configured LLM
        and web search). ``ingest_roots``: folders local ingests must lie in (None: any path
        the CLI accepts)."""
        from core.store.storage import storage_for

        self.settings = settings
        self.allow_writes = allow_writes
        self.ingest_roots = list(ingest_roots or [])
        self.registry = storage_for(settings).registry()
        self.facts = Facts(self.registry)
        self.embedder = _CorpusEmbedder(self)
        self._corpus_factory = corpus_factory or _default_corpus
        self._research_factory = research_factory or _default_research
        self._corpus: Any = None
        self._research: Any = None
        self._periods: dict[tuple, list[str]] = {}
        self._lock = threading.Lock()  # the small caches
        self._opening = threading.Lock()  # the corpus and the research service (slow)

    @property
    def corpus(self):
        """The corpus service (search, ingest, delete), opened on first use."""
        with self._opening:
            if self._corpus is None:
                self._corpus = self._corpus_factory(self.settings)
            return self._corpus

    @property
    def research(self):
        """The deep research service over ``corpus``, built on first use."""
        corpus = self.corpus
        with self._opening:
            if self._research is None:
                self._research = self._research_factory(self.settings, corpus)
            return self._research

    def documents(self) -> list[DocumentMeta]:
        """The filings loaded now, each under its filer's canonical name."""
        return self.registry.documents()

    def periods(self, doc_ids: list[str]) -> list[str]:
        """The periods the facts of ``doc_ids`` report (``names.periods_with_figures``),
        read again when the corpus or its facts change."""
        from core.mcp.names import periods_with_figures

        key = (self.registry.generation(), tuple(self.registry.facts_status().items()),
               tuple(sorted(doc_ids)))
        with self._lock:
            found = self._periods.get(key)
        if found is None:
            found = periods_with_figures(self.facts.facts(list(doc_ids)))
            with self._lock:
                if len(self._periods) > 256:
                    self._periods.clear()
                self._periods[key] = found
        return list(found)

    def close(self) -> None:
        with self._opening:
            if self._research is not None:
                self._research.close()
            if self._corpus is not None:
                self._corpus.close()
            self.registry.close()


def _default_corpus(settings: Settings):
    from core.app.corpus import Corpus

    return Corpus(settings)


def _default_research(settings: Settings, corpus):
    from core.app.research import ResearchService
    from core.llm.factory import make_chat_model
    from core.retrieval.web import get_web_search

    return ResearchService.from_corpus(settings, corpus, llm=make_chat_model(settings),
                                       web=get_web_search(settings))
