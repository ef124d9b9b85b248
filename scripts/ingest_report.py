"""Per-file ingest fidelity figures (no embedding, nothing stored).

    HF_HUB_OFFLINE=1 .venv/bin/python scripts/ingest_report.py FILE... [--json out.json]

For each file: the Items found (10-Q items as "I-1", "II-1A"), chunks filed under "Cover"
(or "Document" when no Item was found), tables, table chunks, footer-only chunks, metadata and
the seconds ``prepare`` took. A chunk counts as footer-only when it is short (<= 120 chars) and
its text with digits masked occurs three times or more among the document's chunks (a running
header or footer such as "Apple Inc. | Q3 2022 Form 10-Q | 19"). A file that fails is reported
with its error and the batch goes on. Runs against any checkout (``PYTHONPATH=checkout``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # PYTHONPATH=checkout wins
_DIGITS = re.compile(r"\d+")
_ITEM = re.compile(r"(?:Part (?P<part>I{1,2}) — )?Items? (?P<item>\w+)")
SHORT = 120


def _items(sections: list[str]) -> list[str]:
    found = []
    for title in sections:
        m = _ITEM.match(title)
        if m:
            found.append(f"{m['part']}-{m['item']}" if m["part"] else m["item"])
    return found


def _footer_only(texts: list[str]) -> int:
    keys = Counter(_DIGITS.sub("#", t) for t in texts if len(t) <= SHORT)
    return sum(1 for t in texts if len(t) <= SHORT and keys[_DIGITS.sub("#", t)] >= 3)


def report(path: Path, settings) -> dict:
    from core.ingest.pipeline import prepare

    t0 = time.perf_counter()
    try:
        prepared = prepare(path.read_bytes(), path.name, settings)
    except Exception as exc:  # noqa: BLE001 - report and go on
        return {"file": path.name, "error": f"{type(exc).__name__}: {exc}"[:200]}
    return figures(path, prepared, time.perf_counter() - t0)


def figures(path: Path, prepared, seconds: float) -> dict:
    """The report's row for one ``Prepared`` document."""
    meta, chunks = prepared.meta, prepared.chunks
    by_section = Counter(c.section for c in chunks)
    return {
        "file": path.name,
        "items": _items(meta.sections),
        "cover": by_section.get("Cover", 0) + by_section.get("Document", 0),
        "chunks": len(chunks),
        "tables": meta.n_tables,
        "table_chunks": sum(c.kind == "table" for c in chunks),
        "footer_only": _footer_only([c.text for c in chunks]),
        "labels": sum(1 for c in chunks if getattr(c, "page_label", None)),
        "context": sum(1 for c in chunks if getattr(c, "context", "")),
        "company": meta.company,
        "form": meta.form_type,
        "period": meta.period,
        "ticker": getattr(meta, "ticker", ""),
        "period_end": getattr(meta, "period_end", ""),
        "seconds": round(seconds, 2),
        "parse_s": round(prepared.timings.get("parse", 0.0), 2),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--json", help="also write the rows to this JSON file")
    args = ap.parse_args(argv)
    from core.foundation.config import Settings

    settings = Settings()
    rows = []
    for name in args.files:
        row = report(Path(name), settings)
        rows.append(row)
        if "error" in row:
            print(f"{row['file']}: FAILED {row['error']}", flush=True)
            continue
        print(
            f"{row['file'][:30]:30} items={','.join(row['items']) or '-'} cover={row['cover']} "
            f"chunks={row['chunks']} tables={row['tables']} footer_only={row['footer_only']} "
            f"labels={row['labels']} ctx={row['context']} | {row['company']} | {row['form']} | "
            f"{row['period']} | {row['ticker']} | {row['period_end']} | {row['seconds']}s",
            flush=True,
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
