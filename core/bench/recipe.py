"""The plain recipe's ingest, timed: what ``bench ingest --vs-recipe`` compares ours with.

The walk-through's recipe: the file's text as its loader gives it, langchain's
RecursiveCharacterTextSplitter at 1000/150, all-MiniLM-L6-v2 under sentence-transformers in
float32 on torch at its default batch size (32), vectors stacked in memory (no vector
database: the recipe's own index would only add to its time, so the ratio printed errs in
the recipe's favour).

Two loaders (``LOADERS``), the same for a PDF (pypdf's default ``extract_text`` per page,
joined by newlines) and different for HTML:

- ``walkthrough``, the walk-through's own: Python's ``html.parser``, tables deleted, then the
  stripped text of every ``p``, ``div`` and ``span`` in turn, joined by blank lines, runs of
  whitespace collapsed. Nested elements are read once per ancestor, so on an EDGAR 10-K about
  half the text is read twice (nvda-10k-fy2023.html: 589k characters, 697 pieces; its plain
  text is 301k). DESIGN.md's "~37 s, 789 chunks, 40% duplicated" is this recipe.
- ``text``: BeautifulSoup's ``get_text`` over lxml, as langchain's ``BSHTMLLoader`` reads a
  page: every word once, tables kept (430 pieces on the same filing). A cleaner loader than
  the walk-through had, so ours / recipe is a stricter ratio against it.
"""

from __future__ import annotations

import io
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

RECIPE_BATCH = 32  # sentence-transformers' default
LOADERS = ("walkthrough", "text")
LABELS = {"walkthrough": "walk-through", "text": "get_text"}
STAGES = ("parse", "split", "embed", "index")


@dataclass
class RecipeRun:
    """Seconds per stage of the recipe on one file, and its chunk count."""

    timings: dict[str, float] = field(default_factory=dict)
    n_chunks: int = 0

    @property
    def total(self) -> float:
        return sum(self.timings.get(s, 0.0) for s in STAGES)


def recipe_text(data: bytes, name: str, loader: str = "walkthrough") -> str:
    """The file's text as the recipe's ``loader`` reads it (see the module docstring)."""
    if loader not in LOADERS:
        raise ValueError(f"loader must be one of {', '.join(LOADERS)}, not {loader!r}")
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
        if loader == "text":
            return BeautifulSoup(data, "lxml").get_text()
        soup = BeautifulSoup(data.decode("utf-8", errors="replace"), "html.parser")
    for table in soup.find_all("table"):
        table.decompose()
    text = "".join(el.get_text(strip=True) + "\n\n" for el in soup.find_all(["p", "div", "span"]))
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return re.sub(r"\s{2,}", " ", text).strip()


def recipe_embedder(model_ref: str) -> Any:
    """The recipe's model: sentence-transformers on torch, float32, batch 32."""
    from core.foundation.models import SentenceEmbedder

    return SentenceEmbedder(model_ref, batch_size=RECIPE_BATCH, dtype="float32")


def run_recipe(path: str | Path, embedder: Any, loader: str = "walkthrough") -> RecipeRun:
    """Read (with ``loader``), split, embed and stack one file the recipe's way, timing each
    stage."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    run = RecipeRun()
    t0 = time.perf_counter()
    p = Path(path)
    text = recipe_text(p.read_bytes(), p.name, loader)
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
