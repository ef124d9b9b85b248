"""A synthetic corpus of N filings grown from the real filings of a seed corpus (benchmarks only).

Each synthetic filing is a seed filing's chunks (topped up with chunks of the next seed filings
until it reaches about ``chunks_per_filing``, so 55 filings make ~40k chunks and 500 ~370k)
with its texts perturbed, so that document frequencies stay realistic as N grows:

* the seed company's name and ticker become a made-up name, one per synthetic filing;
* every number is rescaled by a per-filing factor (years are shifted instead);
* about 3% of the seed's word types (mostly rare ones: names, products, places) are mapped
  consistently, within the filing, to made-up words, so the vocabulary grows as filings do.

Vectors are NOT model embeddings of the perturbed texts (370k encodes would take hours here):
each is the seed chunk's stored vector plus Gaussian noise, renormalised (cosine ~0.97 to it).
Queries against the corpus are still encoded by the real model.

The corpus is built once into its own data folder (registry + Chroma) with a manifest and
reused while the manifest matches; an interrupted build resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from core.foundation.config import Settings
from core.foundation.errors import StoreError
from core.foundation.types import Chunk, DocumentMeta

VERSION = 1
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")
_WORD = re.compile(r"[A-Za-z]{4,}")
_SYLLABLES = ("ka", "lo", "mi", "zen", "tor", "vex", "ra", "quo", "lin", "bar", "dex", "sol",
              "nix", "pra", "tel", "ux", "gro", "val", "cor", "fen")


@dataclass(frozen=True)
class SyntheticSpec:
    """What a synthetic corpus is made of (stored as its manifest)."""

    n_filings: int
    seed_doc_ids: tuple[str, ...]
    embedder: str
    chunks_per_filing: int = 740
    noise: float = 0.25
    swap_share: float = 0.03
    version: int = VERSION

    def manifest(self) -> dict:
        return {**asdict(self), "seed_doc_ids": list(self.seed_doc_ids)}


@dataclass
class Seed:
    """A real filing of the seed corpus: its meta, chunks and stored vectors."""

    meta: DocumentMeta
    chunks: list[Chunk]
    vectors: np.ndarray


def _fake_word(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(n))


def _stable_int(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("|".join(map(str, parts)).encode()).digest()[:8], "big")


class _Perturber:
    """The text changes of one synthetic filing (see the module docstring)."""

    def __init__(self, index: int, seed: Seed, spec: SyntheticSpec):
        self.index = index
        self.spec = spec
        rng = random.Random(_stable_int("filing", index))
        self.factor = rng.uniform(0.3, 3.0)
        self.year_shift = rng.randint(-12, 4)
        self.company = f"{_fake_word(rng, 2).capitalize()} {_fake_word(rng, 2).capitalize()}"
        self._names: dict[str, re.Pattern | None] = {}
        self._swaps: dict[str, str] = {}

    def number(self, m: re.Match) -> str:
        raw = m.group(0)
        plain = raw.replace(",", "")
        if "." not in plain and len(plain) == 4 and 1950 <= int(plain) <= 2035:
            return str(int(plain) + self.year_shift)
        value = float(plain) * self.factor
        if "." in plain:
            return f"{value:.{len(plain.split('.')[1])}f}"
        return f"{round(value):,}" if "," in raw else str(round(value))

    def word(self, m: re.Match) -> str:
        w = m.group(0)
        key = w.lower()
        if key not in self._swaps:
            hit = _stable_int("swap", self.index, key) % 10_000 < self.spec.swap_share * 10_000
            rng = random.Random(_stable_int("word", self.index, key))
            self._swaps[key] = _fake_word(rng, 3) if hit else ""
        new = self._swaps[key]
        if not new:
            return w
        return new.capitalize() if w[0].isupper() else new

    def _name_pattern(self, meta: DocumentMeta) -> re.Pattern | None:
        """The seed filing's own company name (first word) and ticker, as whole words."""
        if meta.doc_id not in self._names:
            names = re.findall(r"[A-Za-z]{3,}", meta.company)[:1]
            names += [t for t in re.split(r"[^A-Za-z]+", meta.ticker) if len(t) >= 2]
            self._names[meta.doc_id] = re.compile(
                r"\b(" + "|".join(map(re.escape, names)) + r")\b", re.I) if names else None
        return self._names[meta.doc_id]

    def text(self, text: str, source: DocumentMeta) -> str:
        names = self._name_pattern(source)
        if names is not None:
            text = names.sub(self.company.split()[0], text)
        text = _NUMBER.sub(self.number, text)
        return _WORD.sub(self.word, text)


def synthetic_filing(index: int, seeds: list[Seed], spec: SyntheticSpec):
    """The ``index``-th synthetic filing: (meta, chunks, vectors)."""
    base = seeds[index % len(seeds)]
    doc_id = _doc_id(spec, index)
    p = _Perturber(index, base, spec)
    rng = np.random.default_rng(_stable_int("target", index) % 2**32)
    target = int(spec.chunks_per_filing * rng.uniform(0.8, 1.2))
    picked: list[tuple[Chunk, np.ndarray, DocumentMeta]] = []
    k = 0
    while len(picked) < target and k < len(seeds):
        src = seeds[(index + k) % len(seeds)]
        picked += [(c, v, src.meta) for c, v in zip(src.chunks, src.vectors, strict=True)]
        picked = picked[:target]
        k += 1
    chunks, vectors, pos = [], [], 0
    for i, (c, v, source) in enumerate(picked):
        text = p.text(c.text, source)
        chunks.append(c.model_copy(update={
            "chunk_id": f"{doc_id}-{i:05d}", "doc_id": doc_id, "index": i, "text": text,
            "context": p.text(c.context, source) if c.context else "", "start": pos,
            "end": pos + len(text),
        }))
        pos += len(text) + 1
        vectors.append(v)
    vecs = np.asarray(vectors, dtype=np.float32)
    vecs = vecs + rng.normal(0, spec.noise / np.sqrt(vecs.shape[1]), vecs.shape).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    period = re.sub(r"\d{4}", lambda m: str(int(m.group(0)) + p.year_shift), base.meta.period)
    meta = DocumentMeta(
        doc_id=doc_id, file_name=f"synthetic-{index:04d}-{base.meta.file_name}",
        company=p.company, form_type=base.meta.form_type, period=period,
        sections=list(dict.fromkeys(c.section for c in chunks)), n_chunks=len(chunks),
        source=f"synthetic from {base.meta.doc_id}", ticker=p.company[:4].upper(),
    )
    return meta, chunks, vecs


def load_seeds(store) -> list[Seed]:
    """Every ready filing of ``store`` (a CorpusStore) with its stored vectors."""
    seeds = []
    for meta in store.documents():
        chunks = store.chunks(meta.doc_id)
        if not chunks:
            continue
        stored = {}
        for start in range(0, len(chunks), 2000):
            stored.update(store.get_vectors([c.chunk_id for c in chunks[start:start + 2000]]))
        keep = [c for c in chunks if c.chunk_id in stored]
        seeds.append(Seed(meta, keep, np.stack([stored[c.chunk_id] for c in keep])))
    return seeds


def build_synthetic(
    source, folder: Path, n_filings: int, *, chunks_per_filing: int = 740,
    progress: Callable[[str], None] = print,
) -> tuple[Settings, float]:
    """Build (or reuse) the synthetic corpus in ``folder``; returns its Settings and seconds spent.

    ``source`` is the seed CorpusStore (its embedder is the synthetic corpus's too).
    """
    from core.store.corpus_store import CorpusStore

    t0 = time.perf_counter()
    docs = source.documents()
    if not docs:
        raise StoreError("The seed corpus is empty: ingest a few real filings first.")
    spec = SyntheticSpec(n_filings=n_filings, seed_doc_ids=tuple(d.doc_id for d in docs),
                         embedder=source.embedder.name, chunks_per_filing=chunks_per_filing)
    manifest_path = folder / "synthetic.json"
    if folder.exists() and any(folder.iterdir()):
        if not manifest_path.exists():
            raise StoreError(f"{folder} holds something other than a synthetic corpus; "
                             "choose an empty or new folder.")
    folder.mkdir(parents=True, exist_ok=True)
    manifest_path.write_text(json.dumps(spec.manifest(), indent=1))
    settings = source.settings.model_copy(  # a local scratch corpus, never the team database
        update={"data_dir": folder, "chroma_url": None, "database_url": None})
    dst = CorpusStore(settings, source.embedder)
    try:
        wanted = {_doc_id(spec, i) for i in range(n_filings)}
        stale = [d for d in dst.registry.ready_ids() if d not in wanted]
        if stale:
            progress(f"{folder}: removing {len(stale)} filings of an earlier spec")
        for doc_id in stale:
            dst.delete(doc_id)
        ready = set(dst.registry.ready_ids())
        todo = [i for i in range(n_filings) if _doc_id(spec, i) not in ready]
        if todo:
            progress(f"building {len(todo)} synthetic filings from {len(docs)} real ones "
                     f"in {folder} (once; reused afterwards)")
            seeds = load_seeds(source)
        for done, i in enumerate(todo, start=1):
            meta, chunks, vecs = synthetic_filing(i, seeds, spec)
            if dst.registry.status(meta.doc_id) == "pending":
                dst._rollback(meta.doc_id)
            dst.registry.write_pending(meta, chunks)
            dst.vectors.add(chunks, vecs)
            dst.registry.mark_ready(meta.doc_id)
            if done % 25 == 0 or done == len(todo):
                progress(f"  {done}/{len(todo)} filings, {time.perf_counter() - t0:.0f}s")
    finally:
        dst.close()
    return settings, time.perf_counter() - t0


def _doc_id(spec: SyntheticSpec, index: int) -> str:
    """Filing ``index``'s id: the same for any N (a larger corpus extends a smaller one)."""
    recipe = {**spec.manifest(), "n_filings": None, "index": index}
    return hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:16]
