"""The agent's use of ``core.foundation.cache``: identical LLM calls and identical filing
retrievals.

* **LLM** (namespace ``llm``): the key is the endpoint and model, every ``llm_*`` setting that
  shapes the reply (temperature, structured-output method, output bounds; never the key,
  timeouts or retry counts), the role, the output schema and the messages. Only validated
  replies are stored; a hit costs no call and counts as ``RoleUsage.cache_hits``.
* **Retrieval** (namespace ``retrieval``): the key is the query, strategy, k, document and
  section filters, the retrieval settings and the corpus **generation** (it moves whenever any
  process adds or removes a filing), so a corpus change never serves stale hits.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from core.foundation.cache import cache_key
from core.foundation.types import Hit

if TYPE_CHECKING:
    from core.foundation.cache import DiskCache
    from core.foundation.config import Settings

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)
_NOT_IN_KEY = {"llm_api_key", "llm_timeout_s", "llm_max_retries", "llm_retry_backoff_s"}
_RETRIEVAL_SETTINGS = ("top_k", "rrf_k", "vector_weight", "resolve_scope", "statement_ranking",
                       "embed_context", "expand_line_items", "embedding_model",
                       "embedding_backend", "embedding_max_tokens")
_HITS = TypeAdapter(list[Hit])


class CacheUser(Protocol):
    """What the cache reads of its caller: ``core.agent.deps.AgentDeps`` is one (deps asks
    this module; this module never imports deps)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def backend(self) -> str: ...

    @property
    def cache(self) -> DiskCache | None: ...

    @property
    def corpus_generation(self) -> Callable[[], int] | None: ...


def _messages(messages: list[Any]) -> list[list[str]]:
    from langchain_core.messages.utils import convert_to_messages

    return [[m.type, m.text if isinstance(m.content, list) else str(m.content)]
            for m in convert_to_messages(messages)]


def llm_key(deps: CacheUser, role: str, schema: type[BaseModel], messages: list[Any]) -> str:
    shaping = {k: v for k, v in deps.settings.model_dump(mode="json").items()
               if k.startswith("llm_") and k not in _NOT_IN_KEY}
    return cache_key("llm", deps.backend, shaping, role, schema.model_json_schema(),
                     _messages(messages))


def cached_llm(deps: CacheUser, role: str, schema: type[M], messages: list[Any]
               ) -> tuple[str | None, M | None]:
    """``(key, reply)``: the cached validated reply (None on a miss or with no cache)."""
    if deps.cache is None:
        return None, None
    key = llm_key(deps, role, schema, messages)
    raw = deps.cache.get("llm", key)
    if raw is None:
        return key, None
    try:
        return key, schema.model_validate_json(raw)
    except ValidationError:  # the schema changed since: a miss
        return key, None


def store_llm(deps: CacheUser, key: str | None, value: BaseModel | None) -> None:
    """Keep a validated reply under ``key`` (nothing without a cache, a key or a reply)."""
    if deps.cache is not None and key is not None and value is not None:
        deps.cache.put("llm", key, value.model_dump_json().encode("utf-8"))


def retrieval_key(deps: CacheUser, query: str, strategy: str, doc_ids: list[str] | None,
                  sections: list[str] | None) -> str | None:
    """The key of a filing search, or None when there is no cache or no corpus generation."""
    if deps.cache is None or deps.corpus_generation is None:
        return None
    try:
        generation = deps.corpus_generation()
    except Exception as exc:  # noqa: BLE001 - no generation, no caching
        log.warning("corpus generation unreadable (%s); retrieval not cached", exc)
        return None
    s = deps.settings
    from core.store.storage import storage_for

    corpus = (storage_for(s).corpus_key(), s.chroma_url)  # which corpus the generation counts
    return cache_key("retrieval", corpus, generation, query, strategy, s.top_k, doc_ids, sections,
                     {k: getattr(s, k) for k in _RETRIEVAL_SETTINGS})


def cached_hits(deps: CacheUser, key: str | None) -> tuple[list[Hit], dict] | None:
    """``(hits, filters)`` stored under ``key``, or None."""
    raw = deps.cache.get("retrieval", key) if key and deps.cache is not None else None
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        return _HITS.validate_python(data["hits"]), data["filters"]
    except (ValueError, KeyError, ValidationError):
        return None


def store_hits(deps: CacheUser, key: str | None, hits: list[Hit], filters: dict) -> None:
    if key and deps.cache is not None:
        payload = {"hits": _HITS.dump_python(hits, mode="json"), "filters": filters}
        deps.cache.put("retrieval", key, json.dumps(payload).encode("utf-8"))
