"""Command-line front end of the agent: ``python -m core ask|compare|runs``.

``ask`` streams the run's events as readable lines, pauses for plan review
(y/n/edit, unless ``--approve`` or ``--plan-file``) and prints the cited answer
with its sources; ``compare`` runs the baseline and the deep agent on one
question and prints both with time, LLM calls and tokens. Everything goes
through ``ResearchService`` and the typed events, as the UI does.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from core.agent.events import EventBase
from core.app.runs import (
    RunRecord,
    delete_run,
    export_json,
    export_markdown,
    list_runs,
    load_run,
    save_run,
    shown_status,
    unreadable_runs,
)
from core.cli.agent_figures import computation_table, figure_fields
from core.foundation.config import Settings
from core.foundation.errors import AppError, PlanValidationError, require_question


def _settings(settings: Settings, args: Any) -> Settings:
    update = {k: v for k, v in (("llm_base_url", getattr(args, "llm_base_url", None)),
                                ("llm_model", getattr(args, "llm_model", None)),
                                ("web_provider", getattr(args, "web", None))) if v}
    return settings.model_copy(update=update) if update else settings


def build_service(settings: Settings, *, offline: bool = False):
    """``(service, corpus)`` over the corpus of ``settings`` with its LLM and web search."""
    from core.app.corpus import Corpus
    from core.app.research import ResearchService
    from core.llm.factory import make_chat_model
    from core.retrieval.web import get_web_search

    corpus = Corpus(settings)
    llm = None if offline else make_chat_model(settings)
    return ResearchService.from_corpus(settings, corpus, llm=llm,
                                       web=get_web_search(settings)), corpus


def format_event(ev: EventBase) -> str | None:
    """One readable line (or a few) for an event, as the event says
    (``EventBase.line``); None for the answer (printed apart)."""
    return ev.line()


def print_plan(plan: list, out: IO[str]) -> None:
    for i, s in enumerate(plan, start=1):
        where = f" | section: {s.section}" if s.section else ""
        docs = f" | docs: {', '.join(s.doc_ids)}" if s.doc_ids else ""
        print(f"  {i}. [{s.tool}] {s.sub_question}{figure_fields(s)}{where}{docs}\n"
              f"     keywords: {', '.join(s.keywords) or '-'} — {s.justification}", file=out)


def print_record(record: RunRecord, out: IO[str]) -> None:
    """The answer, its sources and the cost line."""
    answer = record.answer
    print(f"\n=== Answer ({record.kind}, {record.backend}) ===\n", file=out)
    print(answer.text if answer else f"(no answer: {record.error})", file=out)
    if answer and answer.figures:
        print("\nComputation:" + "\n".join(computation_table(answer.figures,
                                                              record.evidence)), file=out)
    if record.evidence:
        print("\nSources:", file=out)
        for n, ev in enumerate(record.evidence, start=1):
            print(f"  [{n}] {ev.label} — {ev.url or ev.id}", file=out)
    if record.llm_note:
        print(f"\n{record.llm_note}", file=out)
    u = record.total_usage
    stop = f"; stop: {record.stop_reason.code}" if record.stop_reason else ""
    parts = [f"{name} {v:.2f} s" for name, v in (("start-up", record.startup_s),
                                                  ("planning", record.planning_s)) if v]
    planning = f" ({', '.join(parts)})" if parts else ""
    print(f"\ntime {record.wall_s:.2f} s{planning}; LLM calls {u.calls} ({u.cache_hits} cached); "
          f"tokens {u.total}{stop}; "
          f"run id {record.id}", file=out)


def _stream(stream, out: IO[str]) -> RunRecord:
    for ev in stream:
        line = format_event(ev)
        if line:
            print(line, file=out, flush=True)
    return stream.record


def _review(service, thread_id: str, out: IO[str], input_fn: Callable[[str], str],
            draft_plan: list | None = None):
    """Ask y/n/edit until a valid plan is accepted; None when the analyst declines.
    ``draft_plan``: the plan as edited in the dashboard, offered instead of the proposal."""
    print_plan(draft_plan or service.pending_plan(thread_id), out)
    while True:
        try:
            choice = input_fn("Run this plan? [y]es / [n]o / [e]dit: ").strip().lower()
        except EOFError:
            choice = "n"
        if choice in ("y", "yes", ""):
            return service.resume(thread_id, draft_plan)
        if choice in ("n", "no", "q"):
            print(f"Run {thread_id} left paused; resume it with "
                  f"`python -m core ask --resume {thread_id}`.", file=out)
            return None
        path = service.settings.data_dir / "plan-edits" / f"{thread_id}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps([s.model_dump() for s in
                                    draft_plan or service.pending_plan(thread_id)],
                                   indent=2), encoding="utf-8")
        try:
            input_fn(f"Edit {path}, save it, then press Enter: ")
            return service.resume(thread_id, path.read_text(encoding="utf-8"))
        except PlanValidationError as exc:
            print("The edited plan has problems:\n" + "\n".join(f"  - {p}" for p in exc.problems),
                  file=out)
        except EOFError:
            return None


def read_plan_file(path: str | Path) -> str:
    """The text of a ``--plan-file``: UTF-8 (BOM allowed) or UTF-16 with its BOM, holding
    JSON. Raises AppError with what to do for a missing, unreadable, non-UTF-8 or non-JSON
    file (checked before any run is created)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise AppError(f"Plan file {p} not found. Check the path.") from None
    except IsADirectoryError:
        raise AppError(f"Plan file {p} is a folder; give the JSON file's path.") from None
    except OSError as exc:
        raise AppError(f"Cannot read plan file {p}: {exc.strerror or exc}.") from None
    try:
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            text = data.decode("utf-16")
        else:
            text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise AppError(
            f"Plan file {p} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
            f"{exc.start}); save it as UTF-8 and try again."
        ) from None
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise AppError(f"Plan file {p} is not valid JSON (line {exc.lineno}, column "
                       f"{exc.colno}: {exc.msg}).") from None
    return text


def ask(question: str | None, *, settings: Settings, approve: bool = False,
        plan_file: str | None = None, doc_ids: list[str] | None = None,
        resume: str | None = None, offline: bool = False, service=None,
        out: IO[str] | None = None, input_fn: Callable[[str], str] = input,
        started_at: float | None = None) -> RunRecord | None:
    """Run the deep agent from the terminal; returns the record (None if left paused).
    ``out``: standard output as it is at the call (never the stream of the first import).
    ``started_at``: epoch seconds the command started; the run's wall-time bound
    (``DTR_MAX_WALL_S``) counts from it, start-up included (default: from the run's start)."""
    out = out or sys.stdout
    if not resume and not question:
        raise AppError("Give a question, or --resume RUN_ID to continue a paused run.")
    plan_text = read_plan_file(plan_file) if plan_file else None
    if service is None:
        service, _ = build_service(settings, offline=offline)
    if plan_text is not None:  # the whole plan is checked before a run exists
        from core.agent.plan_edit import check_plan

        check_plan(plan_text, service.deps.corpus.sections,
                   web_available=service.deps.web_available)
    draft_plan = None
    if resume:  # the same run session the dashboard renders (drafts, discarded, cancelled)
        from core.app import run_session
        from core.app.plan_draft import to_plan

        session = run_session.open_run(service, settings, resume)
        if session.phase == "interrupted" and session.resumable:
            print(f"Run {resume} was interrupted; continuing from its last checkpoint.",
                  file=out)
            record = _stream(service.continue_run(resume, **_timing(started_at)), out)
            print_record(record, out)
            return record
        if session.phase == "missing":
            raise AppError(session.message or f"No run {resume} in this data folder.")
        if session.phase != "review":
            print(session.message or f"Run {resume} is {session.phase}: no plan waits for "
                  "review.", file=out)
            return session.record
        thread_id = resume
        if session.draft and not plan_file:
            draft_plan = to_plan(session.draft)
            print(f"The plan as edited in the dashboard ({session.draft_saved_at}) is used.",
                  file=out)
    else:
        thread_id, _, events = service.start(question, doc_ids, **_timing(started_at))
        for ev in events:
            line = format_event(ev)
            if line:
                print(line, file=out)
    try:
        record = _finish(service, thread_id, plan_text, draft_plan, approve, out, input_fn,
                         started_at if resume else None)
    except AppError:
        if _paused(service, thread_id):
            print(f"Run {thread_id} is left paused: resume it with `python -m core ask --resume "
                  f"{thread_id}` or delete it with `python -m core runs --delete {thread_id}`.",
                  file=sys.stderr)
        raise
    if resume and record is not None:
        from core.app.run_index import clear_draft

        clear_draft(settings, thread_id)
    return record


def _timing(started_at: float | None) -> dict:
    """``started_at`` for the service's call when the command's start is known."""
    return {} if started_at is None else {"started_at": started_at}


def _paused(service, thread_id: str) -> bool:
    try:
        service.pending_plan(thread_id)
    except AppError:
        return False
    return True


def _finish(service, thread_id: str, plan_text: str | None, draft_plan, approve: bool,
            out: IO[str], input_fn: Callable[[str], str],
            resumed_at: float | None = None) -> RunRecord | None:
    """``resumed_at``: when a command resuming a paused run started (its start-up counts;
    not with the interactive review, whose wait does not)."""
    timing = _timing(resumed_at)
    if plan_text is not None:
        stream = service.resume(thread_id, plan_text, **timing)
    elif approve:
        print_plan(draft_plan or service.pending_plan(thread_id), out)
        stream = service.resume(thread_id, draft_plan, **timing)
    else:
        stream = _review(service, thread_id, out, input_fn, draft_plan)
        if stream is None:
            return None
    record = _stream(stream, out)
    print_record(record, out)
    return record


def compare(question: str, *, settings: Settings, doc_ids: list[str] | None = None,
            offline: bool = False, service=None, corpus=None,
            out: IO[str] | None = None) -> tuple[RunRecord, RunRecord]:
    """Baseline then deep agent on ``question``; prints both and a cost table."""
    out = out or sys.stdout
    from core.baseline.rag import run_baseline

    require_question(question)  # before loading models or running anything
    if service is None:
        service, corpus = build_service(settings, offline=offline)
    base = run_baseline(question, settings=settings, store=corpus.store,
                        embedder=corpus.embedder, llm=service.deps.llm, doc_ids=doc_ids)
    save_run(base, settings)
    print_record(base, out)
    deep = service.ask(question, approve=True, doc_ids=doc_ids)
    print_record(deep, out)
    print("\n            time (s)  LLM calls  tokens  citations", file=out)
    for r in (base, deep):
        u = r.total_usage
        cites = len(r.answer.citations) if r.answer else 0
        print(f"  {r.kind:<9} {r.wall_s:>8.2f}  {u.calls:>9}  {u.total:>6}  {cites:>9}", file=out)
    return base, deep


# --- argparse wiring (called by core.cli.main) -------------------------------------------

def _llm_options(p) -> None:
    p.add_argument("--doc", action="append", help="limit to a document id (repeatable)")
    p.add_argument("--offline", action="store_true", help="offline engine even if an LLM is set")
    p.add_argument("--llm-base-url", help="OpenAI-compatible endpoint (overrides DTR_LLM_BASE_URL)")
    p.add_argument("--llm-model", help="model name (overrides DTR_LLM_MODEL)")
    p.add_argument("--web", choices=["auto", "tavily", "snapshot", "none"], help="web provider")


def cmd_ask(args, settings: Settings) -> int:
    settings = _settings(settings, args)
    record = ask(args.question, settings=settings, approve=args.approve, plan_file=args.plan_file,
                 doc_ids=args.doc, resume=args.resume, offline=args.offline,
                 started_at=getattr(args, "started_at", None))
    return 0 if record is None or record.status == "done" else 1


def cmd_compare(args, settings: Settings) -> int:
    compare(args.question, settings=_settings(settings, args), doc_ids=args.doc,
            offline=args.offline)
    return 0


def cmd_runs(args, settings: Settings) -> int:
    if args.show or args.export:
        record = load_run(settings, args.show or args.export)
        text = export_json(record, settings) if args.format == "json" else \
            export_markdown(record, settings)
        print(text)
        return 0
    if args.delete:
        if not delete_run(settings, args.delete):
            print(f"✗ No saved run {args.delete}; `python -m core runs` lists them.",
                  file=sys.stderr)
            return 1
        print(f"deleted run {args.delete}")
        return 0
    from core.app.doctor_stores import paused_without_checkpoint

    runs = list_runs(settings)
    lost = paused_without_checkpoint(settings, [r.id for r in runs if r.status == "paused"])
    for r in runs:
        u = r.total_usage
        status = "lost plan" if r.id in lost else shown_status(r, settings)
        print(f"{r.id}  {r.kind:<8} {status:<11} {u.calls:>3} calls "
              f"{u.total:>6} tok  "
              f"{r.question[:70]}")
    if lost:
        print(f"warning: {len(lost)} run(s) paused at plan review cannot be resumed: their "
              "checkpoint is gone (`python -m core doctor --repair` marks them failed; ask "
              "the question again).", file=sys.stderr)
    bad = unreadable_runs(settings)
    if bad:
        print(f"warning: {len(bad)} run record(s) cannot be read and are not listed: "
              f"{', '.join(bad)} (`python -m core doctor` reports them).", file=sys.stderr)
    return 0


def add_agent_parsers(sub) -> None:
    """Add ``ask``, ``compare`` and ``runs`` to ``python -m core``."""
    s = sub.add_parser("ask", help="deep research: plan, review, research, cited answer")
    s.add_argument("question", nargs="?")
    s.add_argument("--approve", action="store_true", help="run the proposed plan without asking")
    s.add_argument("--plan-file", help="JSON list of steps to run instead of the proposed plan")
    s.add_argument("--resume", metavar="RUN_ID",
                   help="resume a run paused at plan review, or continue one a restart "
                        "interrupted (from its last checkpoint)")
    _llm_options(s)
    s.set_defaults(func=cmd_ask)
    s = sub.add_parser("compare", help="baseline RAG vs deep agent on one question")
    s.add_argument("question")
    _llm_options(s)
    s.set_defaults(func=cmd_compare)
    s = sub.add_parser("runs", help="list, show, export or delete saved runs")
    g = s.add_mutually_exclusive_group()
    g.add_argument("--show", metavar="RUN_ID")
    g.add_argument("--export", metavar="RUN_ID")
    g.add_argument("--delete", metavar="RUN_ID")
    s.add_argument("--format", choices=["md", "json"], default="md")
    s.set_defaults(func=cmd_runs)
