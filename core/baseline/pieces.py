"""The walk-through's fixed-size pieces of a filing: 1000 characters, 150 overlap
(langchain's recursive splitter over the document's whole text), each labelled with the
page and section of the chunk it starts in."""

from __future__ import annotations

import bisect

from core.foundation.types import Chunk, DocumentMeta

CHUNK_SIZE = 1000
CHUNK_OVERLAP = 150


def document_text(chunks: list[Chunk]) -> str:
    """A document's text rebuilt from its chunks' exact offsets (gaps become spaces)."""
    out: list[str] = []
    pos = 0
    for c in sorted(chunks, key=lambda c: c.start):
        if c.end <= pos:
            continue
        if c.start > pos:
            out.append(" " * (c.start - pos) if pos else "")
            pos = c.start
        out.append(c.text[pos - c.start:])
        pos = c.end
    return "".join(out)


def split_document(doc: DocumentMeta, chunks: list[Chunk]) -> list[Chunk]:
    """The walk-through's fixed-size chunks of the whole text, labelled with page/section."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    text = document_text(chunks)
    splitter = RecursiveCharacterTextSplitter(chunk_size=CHUNK_SIZE, chunk_overlap=CHUNK_OVERLAP,
                                              add_start_index=True)
    ordered = sorted(chunks, key=lambda c: c.start)
    starts = [c.start for c in ordered]
    out = []
    for i, piece in enumerate(splitter.create_documents([text])):
        start = int(piece.metadata.get("start_index", 0))
        near = ordered[max(0, bisect.bisect_right(starts, start) - 1)] if ordered else None
        out.append(Chunk(chunk_id=f"{doc.doc_id}@{start}", doc_id=doc.doc_id, index=i,
                         text=piece.page_content, section=near.section if near else "Document",
                         page=near.page if near else None, start=start,
                         end=start + len(piece.page_content)))
    return out
