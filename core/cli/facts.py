"""``python -m core facts``: list, summarise and rebuild the financial facts of the corpus.

* ``facts`` — facts per document (XBRL / table), or that a document has none extracted yet;
* ``facts [DOC_ID...] [--metric capex] [--period FY2018] [--source xbrl|table] [--concept ...]
  [--statement cash_flow] [--limit N]`` — one line per fact: label, metric, period, value
  as printed and in base units, unit, source, page, chunk (no id but a filter: every
  document's; an unknown metric is named with the nearest catalogue keys);
* ``facts --rebuild [DOC_ID...]`` — re-extracts from the kept originals
  (``core.store.files.original_path``) the facts of the documents given, or of every document,
  with progress. Chunks are those stored (the same parse gives the same offsets); no
  model is loaded.
"""

from __future__ import annotations

import re
import sys
import time

from core.foundation.config import Settings
from core.foundation.errors import AppError

_PERIOD = re.compile(r"^(?:FY)?(\d{4})(?:-?(Q[1-4]|H1|9M))?$", re.I)


def _registry(settings: Settings):
    from core.store.storage import storage_for

    return storage_for(settings).registry()


def _period(text: str | None) -> tuple[int | None, str | None]:
    if not text:
        return None, None
    m = _PERIOD.match(text.strip())
    if m is None:
        raise AppError(f"'{text}' is not a period: write FY2018, 2018, FY2024-Q1 or 2024-H1.")
    return int(m.group(1)), (m.group(2) or "").upper() or None


def _amount(value: float, unit: str) -> str:
    if unit == "percent":
        return f"{value:g}%"
    if unit in ("USD/share", "pure"):
        return f"{value:,.4g} {unit}"
    return f"{value:,.0f} {unit}"


def fact_line(f) -> str:
    """One fact for the terminal."""
    period = f"FY{f.fiscal_year}" if f.fiscal_year is not None else "?"
    if f.fiscal_period and f.fiscal_period != "FY":
        period += f"-{f.fiscal_period}"
    when = f"{f.period_type} {'at' if f.period_type == 'instant' else 'to'} {f.end or '?'}"
    where = f"p.{f.page}" if f.page else "p.-"
    dims = f"  [{f.dims}]" if f.dims else ""
    shown = f.printed or "-"
    return (f"{f.label[:60]:60}  {f.metric or '-':14} {period:11} {shown:>14} = "
            f"{_amount(f.value, f.unit):>24}  {f.source:5} {where:6} {f.chunk_id or '-'}  "
            f"({when}; {f.statement or 'no statement'}; {f.concept or '-'}){dims}")


def cmd_facts(args, settings: Settings) -> int:
    if args.limit < 0:
        raise AppError(f"--limit must be 0 (every fact) or a positive number (got {args.limit}).")
    if args.rebuild:
        return rebuild(args, settings)
    registry = _registry(settings)
    try:
        filtered = any((args.metric, args.period, args.source, args.concept, args.statement,
                        args.limit))
        if args.doc_id or filtered:
            return _list(registry, args)
        return _summary(registry)
    finally:
        registry.close()


def _summary(registry) -> int:
    docs = registry.documents()
    if not docs:
        print("The corpus is empty. Add filings with `python -m core ingest FILE`.")
        return 0
    status = registry.facts_status()
    missing = 0
    for d in docs:
        if d.doc_id not in status:
            missing += 1
            print(f"{d.doc_id}  {d.file_name:36} not extracted (ingested before facts)")
            continue
        facts = registry.facts([d.doc_id])
        xbrl = sum(f.source == "xbrl" for f in facts)
        linked = sum(f.chunk_id is not None for f in facts)
        stated = sum(f.statement is not None for f in facts)
        print(f"{d.doc_id}  {d.file_name:36} {len(facts):6} facts ({xbrl} xbrl, "
              f"{len(facts) - xbrl} table; {stated} in statements; {linked} linked to chunks)")
    if missing:
        print(f"{missing} document(s) have no facts yet: `python -m core facts --rebuild` "
              "extracts them from the kept originals.")
    _warn_gaps(registry, None)
    from core.ingest.facts import reader_version

    current = reader_version()
    other = [i for i, reader in registry.facts_readers().items() if reader != current]
    if other:
        print(f"{len(other)} document(s) have facts read by another version of the facts "
              f"reader (this one is {current}): `python -m core facts --rebuild` reads them "
              "again from the kept originals.")
    return 0


def check_metric(metric: str | None) -> str | None:
    """A catalogue key as given, or AppError naming the nearest catalogue keys."""
    if metric is None:
        return None
    import difflib

    from core.metrics import catalog

    cat = catalog()
    key = metric.strip()
    if key in cat.metrics:
        return key
    named = [m.key for m in cat.metrics.values()
             if key.lower() in (n.lower() for n in (*m.names, m.label))]
    near = named or difflib.get_close_matches(key.lower(), sorted(cat.metrics), n=5, cutoff=0.5)
    hint = f"nearest catalogue names: {', '.join(near)}" if near else \
        f"catalogue names include {', '.join(sorted(cat.metrics)[:8])}, ..."
    raise AppError(f"Unknown metric {metric!r}: {hint} (core/metrics/catalog.toml lists them).")


def _wanted(registry, args) -> list[str]:
    """The documents to list: those given (each checked), else every one with facts."""
    docs = registry.documents()
    given = list(dict.fromkeys([args.doc_id, *args.more])) if args.doc_id else []
    unknown = [d for d in given if d not in {doc.doc_id for doc in docs}]
    if unknown:
        raise AppError(f"No document {', '.join(unknown)} in the corpus; `python -m core docs` "
                       "lists the ids.")
    status = registry.facts_status()
    for doc_id in given:
        if doc_id not in status:
            print(f"No facts extracted for {doc_id} yet: `python -m core facts --rebuild "
                  f"{doc_id}`.")
    return [d for d in (given or [doc.doc_id for doc in docs]) if d in status]


def _list(registry, args) -> int:
    metric = check_metric(args.metric)
    year, part = _period(args.period)
    wanted = _wanted(registry, args)
    facts = registry.facts(wanted, metric=metric,
                           fiscal_years=[year] if year is not None else None,
                           concept=args.concept, statement=args.statement) if wanted else []
    if part:
        facts = [f for f in facts if f.fiscal_period == part]
    elif year is not None and args.period and args.period.upper().startswith("FY"):
        facts = [f for f in facts if f.fiscal_period in ("FY", "")]
    if args.source:
        facts = [f for f in facts if f.source == args.source]
    several = len(wanted) > 1
    for f in facts[: args.limit] if args.limit else facts:
        print((f"{f.doc_id}  " if several else "") + fact_line(f))
    shown = min(len(facts), args.limit) if args.limit else len(facts)
    where = f" in {len(wanted)} document(s)" if several or not args.doc_id else ""
    print(f"{shown} of {len(facts)} fact(s){where}")
    _warn_gaps(registry, wanted)
    return 0


def _warn_gaps(registry, doc_ids: list[str] | None) -> None:
    """Say, on stderr, the filings whose facts were lost or damaged (never a silent 0)."""
    from core.store.facts_table import gaps, gaps_line

    line = gaps_line(gaps(registry, doc_ids))
    if line:
        print(f"Warning: {line}", file=sys.stderr)


def rebuild(args, settings: Settings) -> int:
    """Re-extract facts from the kept originals (see the module docstring)."""
    from core.ingest.facts import extract_facts
    from core.ingest.pipeline import reparse
    from core.store.facts_table import with_statements
    from core.store.files import original_path

    registry = _registry(settings)
    try:
        docs = registry.documents()
        wanted = set(args.doc_id and [args.doc_id, *args.more] or [])
        unknown = wanted - {d.doc_id for d in docs}
        if unknown:
            raise AppError(f"No document {sorted(unknown)[0]!r} in the corpus; "
                           "`python -m core docs` lists the ids.")
        todo = [d for d in docs if not wanted or d.doc_id in wanted]
        failed = 0
        for i, doc in enumerate(todo, start=1):
            path = original_path(settings, doc)
            if path is None:
                failed += 1
                print(f"[{i}/{len(todo)}] ✗ {doc.file_name}: no kept original or source file; "
                      "ingest the file again to extract its facts.", flush=True)
                continue
            t0 = time.perf_counter()
            data = path.read_bytes()
            try:
                chunks = registry.chunks(doc.doc_id)
                parsed = reparse(data, doc.file_name, chunks, settings.pdf_text)
                parse_s = time.perf_counter() - t0
                t1 = time.perf_counter()
                facts = with_statements(extract_facts(doc, parsed, chunks, data), chunks)
                facts_s = time.perf_counter() - t1
                registry.write_facts(doc.doc_id, facts)
            except AppError as exc:
                failed += 1
                print(f"[{i}/{len(todo)}] ✗ {doc.file_name}: {exc}", flush=True)
                continue
            xbrl = sum(f.source == "xbrl" for f in facts)
            print(f"[{i}/{len(todo)}] ✓ {doc.file_name} [{doc.doc_id}]: {len(facts)} facts "
                  f"({xbrl} xbrl, {len(facts) - xbrl} table; parse {parse_s:.1f}s, "
                  f"facts {facts_s:.2f}s)", flush=True)
        return 1 if failed else 0
    finally:
        registry.close()


def add_facts_parser(sub) -> None:
    s = sub.add_parser("facts", help="financial facts: summary, list one document's, rebuild")
    s.add_argument("doc_id", nargs="?", help="document id (default: a summary per document, "
                   "or with a filter every document's facts)")
    s.add_argument("more", nargs="*", help="more document ids")
    s.add_argument("--metric", help="catalogue key, e.g. capex, revenue")
    s.add_argument("--period", help="fiscal period, e.g. FY2018, FY2024-Q1")
    s.add_argument("--source", choices=("xbrl", "table"))
    s.add_argument("--concept", help="XBRL concept, e.g. us-gaap:Revenues")
    s.add_argument("--statement", choices=("income", "balance", "cash_flow", "equity",
                                           "comprehensive_income"))
    s.add_argument("--limit", type=int, default=0, help="show at most N facts")
    s.add_argument("--rebuild", action="store_true",
                   help="re-extract facts from the kept originals (all documents, or those given)")
    s.set_defaults(func=cmd_facts)
