"""The vector index: a Chroma collection fed with our own embeddings.

Chroma is never asked to embed anything (its default embedding function
downloads a model and fails offline): the collection is created with
``embedding_function=None`` in cosine space and every call passes
``embeddings=`` / ``query_embeddings=``. Telemetry is off.

One client per process per location: opening a second ``PersistentClient`` on
the same path with other Chroma settings raises, so clients are cached here.

A local ``PersistentClient`` keeps the collection's HNSW index in memory and never re-reads
what another process wrote to the folder: its queries then miss new documents and fail on
deleted ones (``InternalError: Error finding id``). :func:`reopen_client` replaces the
process's client by a fresh one, which loads the index as it is now on disk; the store calls
it when the registry's generation moved (:mod:`core.store.corpus_store`). A Chroma server is
one index for every process and needs none of this.
"""

from __future__ import annotations

import threading
from urllib.parse import urlparse

import numpy as np

from core.foundation.config import Settings
from core.foundation.errors import StoreError
from core.foundation.types import Chunk

_CLIENTS: dict[tuple[str, str], object] = {}
_CLIENTS_LOCK = threading.Lock()


def _chroma_settings():
    from chromadb.config import Settings as ChromaSettings

    return ChromaSettings(anonymized_telemetry=False, allow_reset=False)


def _client_key(settings: Settings) -> tuple[str, str]:
    if settings.chroma_url:
        return ("http", settings.chroma_url.rstrip("/"))
    return ("path", str(settings.chroma_dir.resolve()))


def reopen_client(settings: Settings, stale):
    """A fresh local client in place of ``stale`` (if another caller has not replaced it yet).

    The stale client's system is dropped from Chroma's per-path cache but not stopped: a query
    still running on it in another thread finishes; it is freed with its last reference."""
    key = _client_key(settings)
    if key[0] == "http":
        return get_client(settings)
    with _CLIENTS_LOCK:
        if _CLIENTS.get(key) is stale:
            del _CLIENTS[key]
            from chromadb.api.shared_system_client import SharedSystemClient

            ident = getattr(stale, "_identifier", None)
            SharedSystemClient._identifier_to_system.pop(ident, None)
            SharedSystemClient._identifier_to_refcount.pop(ident, None)
    return get_client(settings)


def get_client(settings: Settings):
    """The process-wide Chroma client for these settings (HTTP when ``chroma_url`` is set)."""
    import chromadb

    key = _client_key(settings)
    with _CLIENTS_LOCK:
        if key in _CLIENTS:
            return _CLIENTS[key]
        try:
            if settings.chroma_url:
                url = urlparse(settings.chroma_url)
                client = chromadb.HttpClient(
                    host=url.hostname or "localhost",
                    port=url.port or (443 if url.scheme == "https" else 8000),
                    ssl=url.scheme == "https",
                    settings=_chroma_settings(),
                )
                client.heartbeat()
            else:
                settings.chroma_dir.mkdir(parents=True, exist_ok=True)
                client = chromadb.PersistentClient(
                    path=str(settings.chroma_dir), settings=_chroma_settings()
                )
        except Exception as exc:  # chromadb raises many types here
            where = settings.chroma_url or settings.chroma_dir
            raise StoreError(
                f"Could not open the vector store at {where}: {exc}. "
                "Check that the folder is writable or that the Chroma server is running."
            ) from exc
        _CLIENTS[key] = client
        return client


def collection_name(settings: Settings) -> str:
    """The collection for this corpus.

    Locally the folder already separates corpora. On a server, several data
    folders may share it, so the name carries a short hash of the data folder:
    each registry pairs with its own vectors.
    """
    if not settings.chroma_url:
        return settings.collection
    from core.store.storage import corpus_digest  # the data folder, or the team database

    return f"{settings.collection}-{corpus_digest(settings)}"


class EmbedderMismatch(StoreError):
    """The collection's vectors were computed by another embedder (the fingerprint is the
    embedder's name: model, backend and precision, ``core.foundation.models.identity``)."""

    def __init__(self, message: str, recorded: str):
        super().__init__(message)
        self.recorded = recorded


def _where(doc_ids: list[str], sections: list[str] | None) -> dict:
    clauses: list[dict] = [{"doc_id": {"$in": list(doc_ids)}}]
    if sections:
        clauses.append({"section": {"$in": list(sections)}})
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


class VectorIndex:
    """Chunk vectors in one Chroma collection, with doc/section metadata."""

    def __init__(self, settings: Settings, embedder_name: str, dim: int):
        self.settings, self.embedder_name, self.dim = settings, embedder_name, dim
        self.client = get_client(settings)
        self._open()
        self._batch = int(self.client.get_max_batch_size())

    @property
    def local(self) -> bool:
        return not self.settings.chroma_url

    def reopen(self) -> None:
        """Load the collection as it is now on disk (after another process changed it)."""
        if not self.local:
            return
        self.client = reopen_client(self.settings, self.client)
        self._open()

    def _open(self) -> None:
        settings, embedder_name, dim = self.settings, self.embedder_name, self.dim
        name = collection_name(settings)
        try:
            self.collection = self.client.get_or_create_collection(
                name,
                embedding_function=None,
                configuration={"hnsw": {"space": "cosine"}},
                metadata={"embedder": embedder_name, "dim": dim},
            )
        except Exception as exc:
            raise StoreError(f"Could not open the Chroma collection '{name}': {exc}") from exc
        meta = self.collection.metadata or {}
        if meta.get("embedder") not in (None, embedder_name) or meta.get("dim") not in (None, dim):
            from core.foundation.models import identity_difference

            recorded = str(meta.get("embedder"))
            what = identity_difference(recorded, embedder_name) or (
                f"dimension: the corpus {meta.get('dim')}, these settings {dim}")
            raise EmbedderMismatch(
                f"The corpus at {settings.data_dir} was embedded by {recorded!r}, not by "
                f"{embedder_name!r} as these settings would; vectors of two embedders are "
                f"never mixed. What differs: {what}. Pin the setting named to open it, or "
                "ingest the filings into a new data folder (DTR_DATA_DIR) to re-embed them "
                "(DTR_EMBEDDING_BACKEND=auto follows the corpus's backend).",
                recorded=recorded,
            )

    def add(self, chunks: list[Chunk], vectors: np.ndarray) -> None:
        """Upsert chunk vectors (idempotent by chunk id)."""
        for start in range(0, len(chunks), self._batch):
            part = chunks[start : start + self._batch]
            self.collection.upsert(
                ids=[c.chunk_id for c in part],
                embeddings=np.asarray(vectors[start : start + len(part)], dtype=np.float32),
                metadatas=[_metadata(c) for c in part],
            )

    def delete_doc(self, doc_id: str) -> None:
        self.collection.delete(where={"doc_id": doc_id})

    def query(
        self, vector: np.ndarray, k: int, doc_ids: list[str], sections: list[str] | None = None
    ) -> list[tuple[str, float]]:
        """Top ``k`` chunk ids by cosine similarity within ``doc_ids`` (and ``sections``)."""
        if not doc_ids or k <= 0:
            return []
        res = self.collection.query(
            query_embeddings=np.asarray(vector, dtype=np.float32).reshape(1, -1),
            n_results=k,
            where=_where(doc_ids, sections),
            include=["distances"],
        )
        pairs = zip(res["ids"][0], res["distances"][0], strict=True)
        return [(cid, 1.0 - float(d)) for cid, d in pairs]

    def query_ids(self, vector: np.ndarray, k: int, ids: list[str]) -> list[tuple[str, float]]:
        """Top ``k`` (chunk_id, cosine) among the given chunk ids (Chroma's ``ids=`` subset:
        several times faster than a metadata ``where`` for a filing's chunks)."""
        if not ids or k <= 0:
            return []
        res = self.collection.query(
            query_embeddings=np.asarray(vector, dtype=np.float32).reshape(1, -1),
            n_results=min(k, len(ids)),
            ids=list(ids),
            include=["distances"],
        )
        return [(cid, 1.0 - float(d)) for cid, d in zip(res["ids"][0], res["distances"][0],
                                                         strict=True)]

    def query_open(self, vector: np.ndarray, n: int) -> list[tuple[str, float]]:
        """Top ``n`` (chunk_id, cosine) over the whole collection, with no ``where`` clause:
        chunks of pending (half-added) documents may be among them; the caller drops them."""
        if n <= 0:
            return []
        res = self.collection.query(
            query_embeddings=np.asarray(vector, dtype=np.float32).reshape(1, -1),
            n_results=n,
            include=["distances"],
        )
        return [(cid, 1.0 - float(d)) for cid, d in zip(res["ids"][0], res["distances"][0],
                                                         strict=True)]

    def get_vectors(self, ids: list[str]) -> dict[str, np.ndarray]:
        """Stored vectors by chunk id (missing ids are absent from the result, those whose
        vector the segment lost too)."""
        if not ids:
            return {}
        try:
            res = self.collection.get(ids=list(ids), include=["embeddings"])
        except Exception as exc:
            if not lost_vector(exc):
                raise
            ids = sorted(self.readable(list(ids)))
            if not ids:
                return {}
            res = self.collection.get(ids=ids, include=["embeddings"])
        embs = res["embeddings"]
        return {cid: np.asarray(embs[i], dtype=np.float32) for i, cid in enumerate(res["ids"])}

    def count(self) -> int:
        return int(self.collection.count())

    def readable(self, ids: list[str]) -> set[str]:
        """The ids among ``ids`` whose vector can be read. A local collection whose segment
        folder was lost (``chroma/<uuid>/`` deleted, ``chroma.sqlite3`` kept) still lists
        every id (``present``) but has the vectors only of what it had not flushed; reading
        the others fails, so a failing batch is split until each id is known."""
        found: set[str] = set()
        for start in range(0, len(ids), self._batch):
            found |= self._readable(ids[start : start + self._batch])
        return found

    def _readable(self, ids: list[str]) -> set[str]:
        if not ids:
            return set()
        try:
            return set(self.collection.get(ids=ids, include=["embeddings"])["ids"])
        except Exception as exc:
            if not lost_vector(exc):
                raise
            if len(ids) == 1:
                return set()
            mid = len(ids) // 2
            return self._readable(ids[:mid]) | self._readable(ids[mid:])

    def all_ids(self) -> list[str]:
        """Every chunk id the collection holds (paged)."""
        out: list[str] = []
        while True:
            got = self.collection.get(include=[], limit=self._batch, offset=len(out))["ids"]
            out.extend(got)
            if len(got) < self._batch:
                return out

    def delete_ids(self, ids: list[str]) -> None:
        for start in range(0, len(ids), self._batch):
            self.collection.delete(ids=ids[start : start + self._batch])

    def present(self, ids: list[str]) -> set[str]:
        """The ids among ``ids`` that have a stored vector."""
        found: set[str] = set()
        for start in range(0, len(ids), self._batch):
            got = self.collection.get(ids=ids[start : start + self._batch], include=[])
            found.update(got["ids"])
        return found


def lost_vector(exc: BaseException) -> bool:
    """Whether Chroma failed because a listed id has no vector in its segment."""
    return "Error finding id" in str(exc)


def _metadata(chunk: Chunk) -> dict:
    meta = {"doc_id": chunk.doc_id, "section": chunk.section, "kind": chunk.kind,
            "index": chunk.index}
    if chunk.page is not None:
        meta["page"] = chunk.page
    return meta
