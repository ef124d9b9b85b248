"""pypdf's layout mode against PDFium (``core.ingest.pdf_pdfium``) on the same PDFs, in one run.

    HF_HUB_OFFLINE=1 .venv/bin/python scripts/measure_pdf_text.py PDF... [--json out.json]

For each file, both engines in turn (the order alternates from file to file): the
``scripts/ingest_report.py`` figures (Items found, Cover chunks, tables, table chunks,
footer-only chunks, page labels, metadata), the parse seconds and ``prepare``'s seconds,
and how many of pypdf's chunk texts PDFium's chunks repeat exactly. Prints a row per file
and engine, the fields that differ, and totals with the ratio of parse seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))
sys.path.append(str(Path(__file__).resolve().parent))

FIELDS = ("items", "cover", "chunks", "tables", "table_chunks", "footer_only", "labels",
          "company", "form", "period", "ticker", "period_end")


def main(argv: list[str] | None = None) -> int:
    import time

    from ingest_report import figures

    from core.foundation.config import Settings
    from core.ingest.pipeline import prepare

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    base = Settings()
    rows, totals = [], {"pypdf": [0.0, 0.0], "pdfium": [0.0, 0.0]}
    same_chunks = all_chunks = 0
    for k, name in enumerate(args.files):
        path = Path(name)
        order = ("pypdf", "pdfium") if k % 2 == 0 else ("pdfium", "pypdf")
        pair, texts = {}, {}
        data = path.read_bytes()
        for engine in order:
            t0 = time.perf_counter()
            try:
                prepared = prepare(data, path.name, base.model_copy(update={"pdf_text": engine}))
            except Exception as exc:  # noqa: BLE001 - report and go on
                pair[engine] = {"error": f"{type(exc).__name__}: {exc}"[:200]}
                continue
            pair[engine] = figures(path, prepared, time.perf_counter() - t0)
            texts[engine] = {c.text for c in prepared.chunks}
        a, b = pair["pypdf"], pair["pdfium"]
        if "error" in a or "error" in b:
            print(f"{path.name}: pypdf {a.get('error', 'ok')} | pdfium {b.get('error', 'ok')}")
            rows.append(pair)
            continue
        same = len(texts["pypdf"] & texts["pdfium"])
        same_chunks += same
        all_chunks += len(texts["pypdf"])
        for e in totals:
            totals[e][0] += pair[e]["parse_s"]
            totals[e][1] += pair[e]["seconds"]
        diff = {f: (a[f], b[f]) for f in FIELDS if a[f] != b[f]}
        print(f"{path.name[:34]:34} parse {a['parse_s']:6.2f}s -> {b['parse_s']:5.2f}s "
              f"({b['parse_s'] / max(a['parse_s'], 1e-9):.2f}x)  chunks {a['chunks']} -> "
              f"{b['chunks']}, tables {a['tables']} -> {b['tables']}, table chunks "
              f"{a['table_chunks']} -> {b['table_chunks']}, same texts {same}/"
              f"{len(texts['pypdf'])}", flush=True)
        for f, (x, y) in diff.items():
            if f not in ("chunks", "tables", "table_chunks"):
                print(f"    {f}: {x} -> {y}", flush=True)
        rows.append({**pair, "same_texts": same})
    p, q = totals["pypdf"], totals["pdfium"]
    print(f"\nall files: parse {p[0]:.1f}s (pypdf) vs {q[0]:.1f}s (pdfium) = "
          f"{q[0] / max(p[0], 1e-9):.2f}x; prepare {p[1]:.1f}s vs {q[1]:.1f}s = "
          f"{q[1] / max(p[1], 1e-9):.2f}x; pypdf chunk texts repeated exactly by pdfium: "
          f"{same_chunks}/{all_chunks}")
    for f in ("chunks", "tables", "table_chunks", "cover", "footer_only", "labels"):
        sa = sum(r["pypdf"][f] for r in rows if "error" not in r["pypdf"]
                 and "error" not in r["pdfium"])
        sb = sum(r["pdfium"][f] for r in rows if "error" not in r["pypdf"]
                 and "error" not in r["pdfium"])
        print(f"  {f:13} {sa:7d} -> {sb:7d}")
    items_a = sum(len(r["pypdf"]["items"]) for r in rows if "error" not in r["pypdf"]
                  and "error" not in r["pdfium"])
    items_b = sum(len(r["pdfium"]["items"]) for r in rows if "error" not in r["pypdf"]
                  and "error" not in r["pdfium"])
    print(f"  {'items found':13} {items_a:7d} -> {items_b:7d}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
