"""The composition root: ``current()`` is the one typed object a page works with.

``Services`` holds the session's ``Settings`` and the corpus, and gives the chat model,
web search, reranker and research service those settings choose; the pieces behind it
are cached per process and shared by every page and session (``st.cache_resource``).
The base ``Settings`` is read once from the environment (``DTR_*``). The Settings page
overrides LLM, web, reranker and limit fields: the non-secret ones are saved in the data
folder (``core.app.ui_settings``) and every new session starts from them; keys stay in
``st.session_state`` only. ``session_settings()`` applies the session's overrides.
Heavy libraries (torch, sentence-transformers, chromadb, langgraph) are imported inside
the builders, not at module import.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import streamlit as st

import core.foundation.models  # noqa: F401  (sets OMP/HF env before torch can load)
from components import keys
from core.foundation.config import PROJECT_ROOT, Settings, load_settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from core.app.corpus import Corpus
    from core.app.research import ResearchService
    from core.retrieval.rerank import Reranker
    from core.retrieval.web import WebSearch

SAMPLE_DIR = PROJECT_ROOT / "data" / "sample"
SAMPLE_SUFFIXES = {".htm", ".html", ".xhtml", ".xml", ".pdf", ".txt"}


@st.cache_resource(show_spinner=False)
def base_settings() -> Settings:
    """The process-wide Settings, read once from the environment and .env (raises
    ``SettingsError`` naming a bad ``DTR_*`` variable; nothing is cached then)."""
    return load_settings()


def session_settings() -> Settings:
    """Base settings with this session's overrides from the Settings page applied."""
    overrides = st.session_state.get(keys.APP_OVERRIDES) or {}
    return apply_overrides(base_settings(), overrides)


def apply_overrides(base: Settings, overrides: dict[str, Any]) -> Settings:
    """A validated copy of ``base`` with ``overrides`` (raises pydantic ValidationError)."""
    if not overrides:
        return base
    data = base.model_dump()
    data.update(overrides)
    return Settings.model_validate(data)


def saved_overrides() -> dict[str, Any]:
    """The non-secret settings saved in the data folder (a new session starts from them)."""
    from core.app.ui_settings import load

    return load(base_settings())


def _open_corpus(settings: Settings):
    from core.app.corpus import Corpus
    from core.app.ingest_jobs import ProgressEmbedder
    from core.foundation import models

    return Corpus(settings, embedder=ProgressEmbedder(models.get_embedder(settings)))


_warm: dict[str, Any] = {}  # corpora opened at server start, by settings, until first used
_warm_lock = threading.Lock()


def open_warm_corpus() -> None:
    """Open the configured corpus ahead of the first session (``components.warmup``, at
    server start, with no script running): ``corpus()`` takes it on its first call."""
    settings = load_settings()
    opened = _open_corpus(settings)
    with _warm_lock:
        _warm[settings.model_dump_json()] = opened


@st.cache_resource(show_spinner="Loading the corpus and the embedding model (first start only)…")
def corpus():
    """The Corpus facade (store, embedder, reranker) for the configured data folder: the one
    opened at server start when it was for these settings, else opened now.

    Its embedder reports chunk progress to ingest jobs (``core.app.ingest_jobs``)."""
    settings = base_settings()
    with _warm_lock:
        warm = _warm.pop(settings.model_dump_json(), None)
    return warm if warm is not None else _open_corpus(settings)


@st.cache_resource(show_spinner=False)
def _reranker(choice: str, base_url: str | None, model: str, key: str | None):
    from core.retrieval.rerank import get_reranker

    c = corpus()
    settings = base_settings().model_copy(update={
        "reranker": choice, "llm_base_url": base_url, "llm_model": model, "llm_api_key": key})
    return get_reranker(settings, c.embedder, c.store, llm=llm(settings))


def reranker(settings: Settings | None = None):
    """The reranker these settings choose (the corpus's own when unchanged)."""
    s = settings or session_settings()
    if s.reranker == base_settings().reranker:
        return corpus().reranker
    return _reranker(s.reranker, s.llm_base_url, s.llm_model, s.llm_api_key)


@st.cache_resource(show_spinner=False)
def _web_search(provider: str, tavily_key: str | None, tavily_url: str | None, snapshot: str):
    from core.retrieval.web import get_web_search

    settings = base_settings().model_copy(
        update={
            "web_provider": provider,
            "tavily_api_key": tavily_key,
            "tavily_base_url": tavily_url,
            "snapshot_dir": Path(snapshot),
        }
    )
    return get_web_search(settings)


def web_search(settings: Settings | None = None):
    """The web search provider for these settings (Tavily, snapshot or none)."""
    s = settings or session_settings()
    return _web_search(s.web_provider, s.tavily_api_key, s.tavily_base_url, str(s.snapshot_dir))


@st.cache_resource(show_spinner=False)
def _llm(base_url: str | None, model: str, key: str | None, timeout: float, temp: float):
    from core.llm.factory import make_chat_model

    settings = base_settings().model_copy(
        update={
            "llm_base_url": base_url,
            "llm_model": model,
            "llm_api_key": key,
            "llm_timeout_s": timeout,
            "llm_temperature": temp,
        }
    )
    return make_chat_model(settings)


def llm(settings: Settings | None = None):
    """The chat model for these settings, or None for the offline engine."""
    s = settings or session_settings()
    return _llm(s.llm_base_url, s.llm_model, s.llm_api_key, s.llm_timeout_s, s.llm_temperature)


def describe_llm(settings: Settings | None = None) -> str:
    """'model @ url' (key-free) or 'offline engine'."""
    from core.llm.factory import describe_llm as _describe

    return _describe(settings or session_settings())


def sample_files() -> list[Path]:
    """The project's sample filing(s) under data/sample/."""
    if not SAMPLE_DIR.is_dir():
        return []
    return sorted(p for p in SAMPLE_DIR.iterdir() if p.suffix.lower() in SAMPLE_SUFFIXES)


@st.cache_resource(show_spinner="Preparing the research agent…")
def _research(settings_json: str):
    from types import SimpleNamespace

    from core.app.research import ResearchService
    from core.retrieval.retriever import Retriever

    settings = Settings.model_validate_json(settings_json)
    c = corpus()
    rerank = reranker(settings)  # the session's choice, searched with the session's limits
    view = SimpleNamespace(retriever=Retriever(c.store, c.embedder, rerank, settings),
                           reranker=rerank, embedder=c.embedder, store=c.store)
    return ResearchService.from_corpus(settings, view, llm=llm(settings),
                                       web=web_search(settings))


def research_service(settings: Settings | None = None):
    """The ResearchService (compiled graph + SQLite checkpointer) for these settings."""
    s = settings or session_settings()
    return _research(s.model_dump_json())


@st.cache_data(show_spinner=False, max_entries=48)
def _page_png(path: str, stamp: int, page: int, passage: str, sentence: str):
    from core.app.render import render_page

    return render_page(Path(path), page, passage=passage, sentence=sentence)


def page_image(passage, page: int):
    """The PDF page ``page`` of a cited passage, rendered with the passage marked (cached)."""
    path = passage.original
    sentence = passage.text[slice(*passage.highlight)] if passage.highlight else ""
    return _page_png(str(path), path.stat().st_mtime_ns, page, passage.text, sentence)


def passages(record, *, answer: str, citations, radius: int = 2,
             root: Services | None = None) -> dict[int, Any]:
    """Each citation of an answer resolved to its passage (``core.app.cited``) in the corpus
    of ``root`` (the analyst's when None; the sample corpus for its runs)."""
    from core.app.cited import resolve_citation

    c = root.corpus if root is not None else corpus()
    settings = root.settings if root is not None else base_settings()
    out = {}
    for cit in citations:
        cit = dict(cit)
        out[int(cit.get("n") or 0)] = resolve_citation(c.store, settings, cit,
                                                       answer=answer, record=record,
                                                       radius=radius)
    return out


def graph_structure(service) -> tuple[list[str], list[tuple[str, str, bool]]] | None:
    """(nodes, edges) of the service's compiled graph with its step subgraph drawn inside,
    or None to use ``core.agent.graph.picture`` (the same graph compiled for drawing)."""
    from components.graph_view import structure_from_langgraph

    try:
        return structure_from_langgraph(service.graph.get_graph(xray=True))
    except Exception:  # noqa: BLE001 - the picture falls back to the graph compiled to draw
        return None


def app_url() -> str:
    """The app's origin as the browser sees it (for shareable links), or '' when unknown."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(st.context.url or "")
    except Exception:  # noqa: BLE001 - outside a browser session (tests, bare mode)
        return ""
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


@dataclass(frozen=True)
class Services:
    """What a page works with, for one session's settings (see the module docstring).

    The corpus is the process's; the rest is built (or taken from the process cache) the
    first time a page asks for it in this script run."""

    settings: Settings
    """The base settings with this session's overrides from the Settings page."""
    corpus: Corpus

    @cached_property
    def llm(self) -> BaseChatModel | None:
        """The chat model these settings choose, or None for the offline engine."""
        return llm(self.settings)

    @property
    def offline(self) -> bool:
        return self.llm is None

    @cached_property
    def web(self) -> WebSearch:
        """Web search: Tavily, the saved snapshot, or none."""
        return web_search(self.settings)

    @cached_property
    def reranker(self) -> Reranker:
        return reranker(self.settings)

    @cached_property
    def research(self) -> ResearchService:
        """The research agent (compiled graph and checkpointer) for these settings."""
        return research_service(self.settings)

    def describe_llm(self) -> str:
        """'model @ url' (key-free) or 'offline engine'."""
        return describe_llm(self.settings)

    @property
    def link(self) -> str:
        """How a Library link names this corpus (``?corpus=``): '' for the analyst's."""
        return ""


def current() -> Services:
    """The composition root of this script run (the session's settings, the corpus)."""
    return Services(settings=session_settings(), corpus=corpus())


# --- the sample corpus: the Evaluate page's sample set, kept apart from the analyst's -----

SAMPLE_CORPUS = "sample-corpus"  # folder under the data folder
SAMPLE_LINK = "sample"  # ?corpus=sample: the Library shows the sample corpus (read only)


def linked(name: str | None) -> Services:
    """The composition root a Library link names (``?corpus=``): the sample corpus for
    ``SAMPLE_LINK``, else the analyst's."""
    return sample() if name == SAMPLE_LINK else current()


def sample_settings(settings: Settings) -> Settings:
    """``settings`` pointed at the sample corpus: its own local folder (registry, vectors,
    run records, evaluations), never the analyst's corpus or team database."""
    folder = base_settings().data_dir / SAMPLE_CORPUS
    folder.mkdir(parents=True, exist_ok=True)
    return settings.model_copy(update={"data_dir": folder, "database_url": None,
                                       "chroma_url": None})


@st.cache_resource(show_spinner="Opening the sample corpus…")
def sample_corpus():
    """The Corpus of the sample corpus (the process's embedder, its own store)."""
    from core.app.corpus import Corpus

    return Corpus(sample_settings(base_settings()), embedder=corpus().embedder)


@st.cache_resource(show_spinner="Preparing the research agent…")
def _sample_research(settings_json: str):
    from types import SimpleNamespace

    from core.app.research import ResearchService
    from core.retrieval.retriever import Retriever

    settings = Settings.model_validate_json(settings_json)
    c = sample_corpus()
    view = SimpleNamespace(retriever=Retriever(c.store, c.embedder, c.reranker, settings),
                           reranker=c.reranker, embedder=c.embedder, store=c.store)
    return ResearchService.from_corpus(settings, view, llm=llm(settings),
                                       web=web_search(settings))


@dataclass(frozen=True)
class SampleServices(Services):
    """``Services`` over the sample corpus (the Evaluate page's sample questions)."""

    @cached_property
    def reranker(self) -> Reranker:
        return self.corpus.reranker

    @cached_property
    def research(self) -> ResearchService:
        return _sample_research(self.settings.model_dump_json())

    @property
    def link(self) -> str:
        return SAMPLE_LINK


def sample() -> SampleServices:
    """The composition root for the sample corpus (this session's other settings)."""
    return SampleServices(settings=sample_settings(session_settings()), corpus=sample_corpus())
