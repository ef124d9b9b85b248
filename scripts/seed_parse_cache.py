"""Seed the measure tool's parse cache from an existing corpus folder (same ingest code).

    python scripts/seed_parse_cache.py DATA_DIR [--root data/store/measure]

Writes ``{meta, chunks}`` of every ready document in DATA_DIR's registry to
``ROOT/parsed/<ingest fingerprint>/<file>.json``, so ``python -m core.bench.measure``
re-embeds instead of parsing the PDFs again. Only valid when DATA_DIR was built by the
current ingest code (the fingerprint says nothing about an older corpus).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from core.bench.measure.run import ingest_fingerprint
from core.foundation.config import Settings
from core.store.documents import SqliteRegistry


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data_dir")
    ap.add_argument("--root", default=None)
    args = ap.parse_args()
    settings = Settings()
    root = Path(args.root) if args.root else settings.data_dir / "measure"
    cache = root / "parsed" / ingest_fingerprint(settings)
    cache.mkdir(parents=True, exist_ok=True)
    registry = SqliteRegistry(Path(args.data_dir) / "registry.sqlite")
    for meta in registry.documents():
        chunks = [c.model_copy(update={"statement": None}) for c in registry.chunks(meta.doc_id)]
        out = cache / f"{meta.file_name}.json"
        out.write_text(json.dumps({"meta": meta.model_dump(),
                                   "chunks": [c.model_dump() for c in chunks]}), "utf-8")
        print(f"{out} ({len(chunks)} chunks)")


if __name__ == "__main__":
    main()
