"""Command line: ingest, fetch, docs, delete, search, facts, ask, compare, bench.

Run ``python -m core --help``. Settings come from the environment (DTR_*),
e.g. ``DTR_DATA_DIR=/tmp/corpus python -m core docs``.
"""

from __future__ import annotations

import argparse
import re
import sys
import time

import core.foundation.models  # noqa: F401  (sets OMP/HF env before torch loads)
from core.foundation.config import Settings, load_settings
from core.foundation.errors import AppError
from core.foundation.strategies import DEFAULT_STRATEGY, STRATEGY_NAMES

_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")


def _corpus(settings: Settings):
    from core.app.corpus import Corpus

    return Corpus(settings)


def cmd_ingest(args, settings: Settings) -> int:
    """Ingest files and URLs as a pipeline (the next parses while one embeds), printing each
    outcome in order as soon as it is known."""
    from core.app.ingest_jobs import BatchProgress, FileProgress, run_batch

    corpus = _corpus(settings)
    meta_kw = dict(company=args.company, form_type=args.form, period=args.period)

    def loader(item: str):
        if _URL.match(item):  # any scheme: the fetcher takes http(s) only, and says so
            return lambda **kw: corpus.ingest_url(item, **meta_kw, **kw)
        return lambda **kw: corpus.ingest_path(item, **meta_kw, **kw)

    items = [(item, 0, loader(item)) for item in args.items]
    progress = BatchProgress([FileProgress(item) for item in args.items])

    def show(i: int) -> None:
        fp = progress.files[i]
        if not fp.ok:
            print(f"✗ {args.items[i]}: {fp.error}", file=sys.stderr)
            return
        report, m = fp.report, fp.report.meta
        state = "ingested" if report.added else "already in the corpus (unchanged)"
        if report.corrected:
            state = f"already in the corpus; corrected {', '.join(report.corrected)}"
        stages = ", ".join(f"{k} {v:.2f}s" for k, v in report.timings.items())
        facts = "" if report.n_facts is None else f", {report.n_facts} facts"
        print(f"✓ {m.file_name} [{m.doc_id}] {state}: {m.company} {m.form_type} {m.period}; "
              f"{len(m.sections)} sections, {m.n_chunks} chunks, {m.n_tables} tables{facts} "
              f"({stages})", flush=True)
        for warning in report.warnings:
            print(f"  warning: {warning}", file=sys.stderr)

    run_batch(items, progress, on_file=show)
    return 0 if all(fp.ok for fp in progress.files) else 1


def cmd_fetch(args, settings: Settings) -> int:
    """``fetch TICKER... --form 10-K --years 2022-2024``: EDGAR by ticker, then ingest. The
    filings are listed before the corpus (and its model) opens, so an unreachable EDGAR
    fails at once with one line."""
    from core.app.edgar_load import list_filings, load_filings
    from core.ingest.edgar import EdgarUnreachable, parse_years

    years = parse_years(args.years)
    forms = args.form or ["10-K"]
    found, listed = [], True
    for ticker in args.tickers:
        try:
            filings = list_filings(settings, ticker, forms, years)
        except EdgarUnreachable:
            raise
        except AppError as exc:  # this company's listing; the others go on
            print(f"✗ {ticker.upper()}: {exc}", file=sys.stderr)
            listed = False
            continue
        span = f" for FY{years[0]}-FY{years[1]}" if years else ""
        head = f"{filings[0].company}, CIK {filings[0].cik}" if filings else "no filings"
        print(f"{ticker.upper()}: {len(filings)} {'/'.join(forms)} filing(s){span} ({head})")
        found.extend(filings)
    if args.list or not found:
        for f in found:
            print(f"  {f.label}  {f.archive_url}")
        return 0 if listed and (found or args.list) else 1
    corpus = _corpus(settings)
    last = [""]

    def progress(text: str, _done: float) -> None:
        if text != last[0]:
            print(f"  … {text}", file=sys.stderr)
            last[0] = text

    loaded = load_filings(corpus, found, progress)
    for item in loaded:
        if not item.ok:
            print(f"✗ {item.filing.label}: {item.error}", file=sys.stderr)
            continue
        m, added = item.report.meta, item.report.added
        m = corpus.store.get_document(m.doc_id) or m  # under its filer's canonical name
        state = "ingested" if added else "already in the corpus (unchanged)"
        print(f"✓ {m.file_name} [{m.doc_id}] {state}: {m.company} (CIK {m.cik or '-'}, "
              f"{m.ticker or '-'}) {m.form_type} {m.period}; {m.n_chunks} chunks")
        for warning in dict.fromkeys([*item.report.warnings, m.name_conflict]):
            if warning:
                print(f"  warning: {warning}", file=sys.stderr)
    return 0 if listed and all(item.ok for item in loaded) else 1


def _set_fields(pairs: list[str]) -> dict[str, str]:
    fields: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise AppError(f"'{pair}' is not FIELD=VALUE, e.g. company=\"3M COMPANY\" form=10-K "
                           "period=FY2023 ticker=MMM.")
        fields[name.strip()] = value
    return fields


def cmd_set(args, settings: Settings) -> int:
    """``docs --set DOC_ID FIELD=VALUE...``: correct a document's metadata."""
    from core.store.storage import storage_for

    doc_id, pairs = args.set[0], args.set[1:]
    fields = _set_fields(pairs)
    store = storage_for(settings).registry()  # no model needed; no keyword index lives here
    try:
        d = store.update_document(doc_id, **fields)
    finally:
        store.close()
    print(f"{d.doc_id}  {d.file_name}  {d.company} | {d.form_type} | {d.period} | "
          f"ticker {d.ticker or '-'}  (corrected: {', '.join(d.corrected)})")
    return 0


def cmd_docs(args, settings: Settings) -> int:
    from core.store.storage import describe, storage_for

    if args.set:
        return cmd_set(args, settings)
    store = storage_for(settings).registry()  # listing needs no model
    docs = store.documents()
    if not docs:
        print(f"The corpus ({describe(settings)}) is empty. "
              "Add filings with `python -m core ingest FILE`.")
        return 0
    if args.companies:
        from core.store.companies import companies

        for c in companies(docs):
            also = c.names[1:]
            print(f"{c.name}  CIK {c.cik or '-'}  {', '.join(c.tickers) or '-'}  "
                  f"{len(c.doc_ids)} filing(s)" + (f"  (also printed as: {'; '.join(also)})"
                                                    if also else ""))
        return 0
    for d in docs:
        print(f"{d.doc_id}  {d.file_name}  {d.company} | {d.form_type} | {d.period} | "
              f"{len(d.sections)} sections, {d.n_chunks} chunks, {d.n_tables} tables"
              + (f" | CIK {d.cik}" if d.cik else ""))
        if args.sections:
            counts = _section_counts(store, d.doc_id)
            for title in d.sections:
                print(f"    {title}  ({counts.get(title, 0)} chunks)")
    return 0


def _section_counts(store, doc_id: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for c in store.chunks(doc_id):
        counts[c.section] = counts.get(c.section, 0) + 1
    return counts


def cmd_delete(args, settings: Settings) -> int:
    corpus = _corpus(settings)
    for doc_id in args.doc_ids:
        if corpus.store.get_document(doc_id) is None:
            print(f"✗ No document {doc_id}; `python -m core docs` lists the ids.", file=sys.stderr)
            return 1
        corpus.delete(doc_id)  # chunks, vectors, facts, the original, baseline pieces
        print(f"deleted {doc_id}")
    return 0


def cmd_doctor(args, settings: Settings) -> int:
    from core.app.corpus import Corpus
    from core.app.doctor import examine, repair_until_sound

    def open_store():
        return Corpus(settings, sweep=False).store

    report = repair_until_sound(settings, open_store) if args.repair else \
        examine(settings, open_store)
    for finding in report.findings:
        print(("✓ " if finding.repaired else "✗ ") + finding.line())
    if not report.findings:
        print(f"✓ nothing wrong ({', '.join(report.checked)} checked)")
    elif not report.ok and not args.repair:
        if any(f._fix is not None for f in report.findings):
            print("run `python -m core doctor --repair` to repair what can be repaired")
        else:
            print("--repair cannot mend these here: each line says what to do")
    return 0 if report.ok else 1


def cmd_search(args, settings: Settings) -> int:
    corpus = _corpus(settings)
    result = corpus.search(
        args.query,
        strategy=args.strategy,
        k=args.k,
        doc_ids=args.doc or None,
        sections=args.section or None,
        rerank_query=args.rerank_query,
        rerank=not args.no_rerank,
        scope="all" if args.all else "auto",
    )
    if result.scope:
        print(f"scope: {result.scope.reason} (search every filing with --all, or pick with --doc)")
    if result.statements:
        print(f"statements: {', '.join(result.statements)}")
    if result.expansions:
        print(f"also searched for: {'; '.join(result.expansions)}")
    if result.reranker:
        info = result.reranker
        print(f"reranker: {info.name} ({info.kind}) — {info.reason}")
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if not result.hits:
        print("No matching chunks.")
    for hit in result.hits:
        c, d = hit.chunk, hit.document
        page = f" p.{c.page_label or c.page}" if c.page else ""
        scores = "  ".join(f"{s}#{v.rank}={v.score:.3f}" for s, v in hit.stages.items())
        name = d.file_name if d else c.doc_id
        print(f"\n[{hit.rank}] {name} — {c.section}{page}  ({c.chunk_id})\n    {scores}")
        text = " ".join(c.text.split())
        print("    " + (text[:400] + ("…" if len(text) > 400 else "")))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m core", description="Deep Filings command line.")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("ingest", help="ingest files or EDGAR URLs")
    s.add_argument("items", nargs="+", metavar="FILE_OR_URL")
    s.add_argument("--company")
    s.add_argument("--form", help="form type, e.g. 10-K")
    s.add_argument("--period", help="fiscal period, e.g. FY2023")
    s.set_defaults(func=cmd_ingest)

    s = sub.add_parser("fetch", help="download filings from EDGAR by ticker and ingest them")
    s.add_argument("tickers", nargs="+", metavar="TICKER", help="e.g. NVDA (or a CIK)")
    s.add_argument("--form", action="append",
                   help="EDGAR form type, e.g. 10-K (repeatable; default 10-K)")
    s.add_argument("--years", help="fiscal years, e.g. 2022-2024 or 2023 (default: all)")
    s.add_argument("--list", action="store_true", help="list the filings only, download none")
    s.set_defaults(func=cmd_fetch)

    s = sub.add_parser("docs", help="list documents")
    s.add_argument("--sections", action="store_true", help="also list sections and chunk counts")
    s.add_argument("--companies", action="store_true",
                   help="list the companies instead: one line per filer (CIK), canonical name")
    s.add_argument("--set", nargs="+", metavar=("DOC_ID", "FIELD=VALUE"),
                   help="correct a document's metadata: company=..., form=..., period=..., "
                        "ticker=..., cik=...")
    s.set_defaults(func=cmd_docs)

    s = sub.add_parser("doctor", help="check the corpus: registry, vectors, keyword index, "
                       "originals, runs")
    s.add_argument("--repair", action="store_true",
                   help="repair what can be repaired without losing data")
    s.set_defaults(func=cmd_doctor)

    s = sub.add_parser("delete", help="delete documents by id")
    s.add_argument("doc_ids", nargs="+")
    s.set_defaults(func=cmd_delete)

    s = sub.add_parser("search", help="ranked chunks for a query")
    s.add_argument("query")
    s.add_argument("--strategy", choices=STRATEGY_NAMES, default=DEFAULT_STRATEGY)
    s.add_argument("--section", action="append", help="section filter, e.g. 'Item 1A' (repeatable)")
    s.add_argument("--doc", action="append", help="document id filter (repeatable)")
    s.add_argument("--all", action="store_true",
                   help="search every filing, not only those of the companies/periods named")
    s.add_argument("-k", type=int, default=5, help="number of results")
    s.add_argument("--rerank-query", help="query the reranker scores (default: the query)")
    s.add_argument("--no-rerank", action="store_true")
    s.set_defaults(func=cmd_search)

    from core.cli.facts import add_facts_parser

    add_facts_parser(sub)
    from core.bench.run import add_bench_parser

    add_bench_parser(sub)
    try:
        from core.cli.agent import add_agent_parsers
    except ImportError:
        pass
    else:
        add_agent_parsers(sub)
    from core.cli.policy import add_policy_parser

    add_policy_parser(sub)
    from core.cli.mcp import add_mcp_parser

    add_mcp_parser(sub)
    try:
        from core.cli.evaluate import add_eval_parser
    except ImportError:
        pass
    else:
        add_eval_parser(sub)
    return p


QUICK_EXIT = frozenset({"ask", "compare"})
"""Commands whose process ends as soon as their work is done (``end_process``): they write
only files and SQLite rows committed before they return (no vectors)."""


def end_process(code: int) -> None:
    """Exit with ``code`` without Python's teardown: unloading ~2,500 modules and the native
    libraries (Chroma, ONNX Runtime) after the answer is printed and saved took 1.5-2 s on an
    idle machine and 5 s on a loaded one, and ``DTR_MAX_WALL_S`` bounds the whole command.
    The exit handlers run and the streams are flushed first; while another non-daemon thread
    still runs (work not finished), this is the normal exit."""
    import atexit
    import logging
    import os
    import threading

    main_thread = threading.main_thread()
    if any(t is not main_thread and not t.daemon and t.is_alive()
           for t in threading.enumerate()):
        sys.exit(code)
    atexit._run_exitfuncs()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # closed or a broken pipe: nothing more to write
            pass
    os._exit(code)


def main(argv: list[str] | None = None, *, started_at: float | None = None) -> int:
    """Run one command; ``started_at``: epoch seconds the process started (``core.__main__``;
    default: now), so ``ask``'s wall-time bound counts the start-up too."""
    started_at = time.time() if started_at is None else started_at
    args = build_parser().parse_args(argv)
    args.started_at = started_at
    try:
        return args.func(args, load_settings())
    except AppError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
