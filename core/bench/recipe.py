"""The plain recipe's ingest, timed: what ``bench ingest --vs-recipe`` compares ours with.

The walk-through's recipe: the file's text as the simplest loader gives it (a PDF: pypdf's
default ``extract_text`` per page, joined by newlines; HTML: BeautifulSoup's ``get_text``,
as langchain's ``BSHTMLLoader`` reads it), langchain's RecursiveCharacterTextSplitter at
1000/150, all-MiniLM-L6-v2 under sentence-transformers in float32 on torch at its default
batch size (32), vectors stacked in memory (no vector database: the recipe's own index
would only add to its time, so the ratio printed errs in the recipe's favour).
"""

from __future__ import annotations

import io
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

RECIPE_BATCH = 32  # sentence-transformers' default
STAGES = ("parse", "split", "embed", "index")


@dataclass
class RecipeRun:
    """Seconds per stage of the recipe on one file, and its chunk count."""

    timings: dict[str, float] = field(default_factory=dict)
    n_chunks: int = 0

    @property
    def total(self) -> float:
        return sum(self.timings.get(s, 0.0) for s in STAGES)


def recipe_text(data: bytes, name: str) -> str:
    """The file's text as the recipe reads it (see the module docstring)."""
    head = data[:1024].lstrip().lower()
    if head.startswith(b"%pdf") or name.lower().endswith(".pdf"):
        from pypdf import PdfReader

        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            reader.decrypt("")
        return "\n".join(page.extract_text() or "" for page in reader.pages)
    import warnings

    from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning

    with warnings.catch_warnings():  # iXBRL filings are XHTML; the recipe reads them as HTML
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        return BeautifulSoup(data, "lxml").get_text()


def recipe_embedder(model_ref: str) -> Any:
    """The recipe's model: sentence-transformers on torch, float32, batch 32."""
    from core.foundation.models import SentenceEmbedder

    return SentenceEmbedder(model_ref, batch_size=RECIPE_BATCH, dtype="float32")


def run_recipe(path: str | Path, embedder: Any) -> RecipeRun:
    """Read, split, embed and stack one file the recipe's way, timing each stage."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    run = RecipeRun()
    t0 = time.perf_counter()
    p = Path(path)
    text = recipe_text(p.read_bytes(), p.name)
    run.timings["parse"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=150)
    pieces = splitter.split_text(text)
    run.timings["split"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    vecs = embedder.encode(pieces)
    run.timings["embed"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    index = np.ascontiguousarray(np.asarray(vecs, dtype=np.float32))
    run.timings["index"] = time.perf_counter() - t0
    run.n_chunks = int(index.shape[0])
    return run
