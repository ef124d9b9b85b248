"""The original file of each ingested document, kept so a citation can show it as filed.

A PDF citation renders its page (``core.app.render``) from this copy; an HTML or text
filing is shown from its chunks. Files live under ``data_dir/originals/`` named by
the document id (a hash of the content), never by the uploaded name, so no name
can reach outside the folder. Documents ingested before originals were kept, or
from a path on this machine, fall back to their ``source`` path when it still exists.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from core.foundation.config import Settings
from core.foundation.types import DocumentMeta

log = logging.getLogger(__name__)

_DOC_ID = re.compile(r"^[0-9a-f]{8,64}$")


def originals_dir(settings: Settings) -> Path:
    """The folder holding the kept originals."""
    return settings.data_dir / "originals"


def _kind(data: bytes) -> str:
    if b"%PDF-" in data[:1024]:
        return ".pdf"
    head = data[:4096].lstrip().lower()
    return ".html" if head.startswith((b"<", b"\xef\xbb\xbf<")) else ".txt"


def _checked(doc_id: str) -> str:
    if not _DOC_ID.match(doc_id or ""):
        raise ValueError(f"not a document id: {doc_id!r}")
    return doc_id


def keep_original(settings: Settings, doc_id: str, data: bytes) -> Path:
    """Write ``data`` as the original of ``doc_id`` (once; atomic); returns its path."""
    folder = originals_dir(settings)
    path = folder / f"{_checked(doc_id)}{_kind(data)}"
    if path.exists() and path.stat().st_size == len(data):
        return path
    folder.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    return path


def original_path(settings: Settings, doc: DocumentMeta | str) -> Path | None:
    """The kept original of a document (or its source file on this machine), if any."""
    doc_id = doc if isinstance(doc, str) else doc.doc_id
    if not _DOC_ID.match(doc_id or ""):
        return None
    for suffix in (".pdf", ".html", ".txt"):
        path = originals_dir(settings) / f"{doc_id}{suffix}"
        if path.is_file():
            return path
    source = "" if isinstance(doc, str) else (doc.source or "")
    if source and not source.startswith(("http://", "https://")):
        path = Path(source)
        if path.is_file():
            return path
    return None


def is_pdf(path: Path | None) -> bool:
    """Whether ``path`` is a PDF (by content, not by name)."""
    if path is None or not path.is_file():
        return False
    with path.open("rb") as fh:
        return b"%PDF-" in fh.read(1024)


def remove_original(settings: Settings, doc_id: str) -> None:
    """Delete the kept original of ``doc_id`` (no-op when there is none)."""
    if not _DOC_ID.match(doc_id or ""):
        return
    for suffix in (".pdf", ".html", ".txt"):
        path = originals_dir(settings) / f"{doc_id}{suffix}"
        try:
            path.unlink(missing_ok=True)
        except OSError:
            log.warning("could not delete %s", path, exc_info=True)


def orphaned_originals(settings: Settings, known: set[str]) -> list[tuple[str, Path]]:
    """(doc_id, path) of kept originals whose document is not in ``known``."""
    folder = originals_dir(settings)
    if not folder.is_dir():
        return []
    out = []
    for path in sorted(folder.iterdir()):
        doc_id = path.name.split(".", 1)[0]
        if path.is_file() and _DOC_ID.match(doc_id) and doc_id not in known:
            out.append((doc_id, path))
    return out
