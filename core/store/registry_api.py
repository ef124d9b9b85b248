"""The document registry's contract, kept by ``SqliteRegistry`` (``core.store.documents``,
one data folder) and ``PgRegistry`` (``core.store.documents_pg``, the team database).

Documents are written ``pending`` with their chunks (and facts), flipped to ``ready`` once
their vectors are stored; every read sees ready documents only. The corpus *generation*
moves with every change of the set of documents, by any process.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from core.foundation.types import Chunk, DocumentMeta, Fact


@runtime_checkable
class Registry(Protocol):
    # --- reads (ready documents only) ------------------------------------------------
    def status(self, doc_id: str) -> str | None:
        """``"pending"``, ``"ready"`` or None for an unknown document (any status)."""

    def documents(self) -> list[DocumentMeta]:
        """Ready documents in the order they were added, each under its filer's canonical
        company name (``core.store.companies.with_identity``)."""

    def get_document(self, doc_id: str) -> DocumentMeta | None:
        """A ready document as ``documents`` shows it, or None."""

    def documents_of(self, cik: str) -> list[DocumentMeta]:
        """Ready documents registered under a CIK (any spelling, "1045810" too)."""

    def chunks(self, doc_id: str | None = None, section: str | None = None) -> list[Chunk]:
        """Chunks of ready documents, ordered by document then position."""

    def get_chunks(self, ids: Iterable[str]) -> list[Chunk]:
        """Chunks by id, in the order asked; unknown or not-ready ids are skipped."""

    def sections(self) -> dict[str, list[str]]:
        """doc_id -> distinct section titles in reading order."""

    def statement_chunk_ids(self, statements: list[str], doc_ids: list[str] | None = None,
                            sections: list[str] | None = None) -> list[str]:
        """Ids of chunks tagged with one of ``statements``, in reading order."""

    def facts(self, doc_ids: list[str] | None = None, *, metric: str | None = None,
              fiscal_years: list[int] | None = None, concept: str | None = None,
              statement: str | None = None) -> list[Fact]:
        """Facts matching every filter given (``facts_table.query``)."""

    def facts_status(self) -> dict[str, int]:
        """doc_id -> number of facts, for documents whose facts were extracted."""

    def facts_readers(self) -> dict[str, str]:
        """doc_id -> the facts reader that extracted them ('' before readers were kept)."""

    def ready_ids(self) -> list[str]: ...

    def generation(self) -> int:
        """The corpus generation: moves whenever any process adds or removes a document."""

    # --- writes ----------------------------------------------------------------------
    def write_pending(self, meta: DocumentMeta, chunks: list[Chunk],
                      facts: list[Fact] | None = None) -> None:
        """Insert a document as ``pending`` with its chunks (and facts), one transaction."""

    def restore_chunks(self, doc_id: str, chunks: list[Chunk]) -> int:
        """Write back chunks the registry lost (held ones kept); returns the generation."""

    def write_facts(self, doc_id: str, facts: list[Fact]) -> None:
        """Replace a document's facts (one transaction)."""

    def update_document(self, doc_id: str, **fields: str) -> DocumentMeta:
        """Correct a ready document's company, form_type, period, ticker or cik."""

    def mark_ready(self, doc_id: str) -> int:
        """Flip a document to ``ready``; returns the new corpus generation."""

    def remove(self, doc_id: str) -> int:
        """Delete a document and its chunks (any status); returns the new generation."""

    def abandon(self, doc_id: str) -> None:
        """Leave a pending document for the next open to purge (its writer gave up)."""

    def stale_pending(self) -> list[str]:
        """Pending documents whose writer process is gone (a crash or kill mid-add)."""

    def close(self) -> None: ...
