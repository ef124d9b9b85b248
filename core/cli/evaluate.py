"""``python -m core eval SET.jsonl``: run a question set, print the summary, save the results.

    python -m core eval data/questions/sample.jsonl \
        [--systems baseline,deep] [--strategies keyword,vector,hybrid,hybrid+rerank] \
        [--out NAME] [--judge auto|llm|offline] [--offline] [--ingest FILE ...] [--limit N]
    python -m core eval --list

Results go to ``settings.data_dir/evals/<NAME>/``; running again with the same
``--out`` continues a stopped evaluation and reuses every unchanged result.
"""

from __future__ import annotations

import sys
from typing import IO

from core.evaluation.results import STRATEGIES, SYSTEMS
from core.foundation.config import Settings
from core.foundation.errors import AppError


def _csv(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()] if value else []


def cmd_list(settings: Settings, out: IO[str]) -> int:
    from core.evaluation.storage import list_evals

    evals = list_evals(settings)
    if not evals:
        print(f"No evaluations under {settings.data_dir / 'evals'} yet: "
              "run `python -m core eval data/questions/sample.jsonl`.", file=out)
    for m in evals:
        print(f"{m.id}  {m.status:<7} {m.set_name} ({m.n_questions} q)  systems "
              f"{','.join(m.systems) or '-'}  judge {m.judge}  {m.created}", file=out)
    return 0


def cmd_eval(args, settings: Settings, out: IO[str] | None = None) -> int:
    """Entry of the ``eval`` subcommand (``out``: standard output as it is at the call)."""
    out = out or sys.stdout
    if args.list:
        return cmd_list(settings, out)
    if not args.set:
        raise AppError("Give a question set (e.g. data/questions/sample.jsonl) or --list.")
    from core.app.corpus import Corpus
    from core.evaluation.judge import make_judge
    from core.evaluation.questions import load_question_set
    from core.evaluation.report import format_summary
    from core.evaluation.runner import run_eval
    from core.llm.factory import make_chat_model
    from core.retrieval.web import get_web_search

    qset = load_question_set(args.set)
    if args.limit:
        qset = qset.model_copy(update={"questions": qset.questions[: args.limit]})
    corpus = Corpus(settings)
    for path in args.ingest or []:
        report = corpus.ingest_path(path)
        state = "ingested" if report.added else "already in the corpus"
        print(f"{report.meta.file_name} [{report.meta.doc_id}] {state}", file=out)
    llm = None if args.offline else make_chat_model(settings)
    mode = "offline" if args.offline and args.judge == "auto" else args.judge
    judge = make_judge(settings, corpus.embedder, llm, mode)

    def progress(p) -> None:
        print(f"[{p.done}/{p.total}] {p.message}", file=out, flush=True)

    saved = run_eval(qset, settings=settings, corpus=corpus, judge=judge,
                     systems=_csv(args.systems), strategies=_csv(args.strategies),
                     eval_id=args.out, llm=llm, web=get_web_search(settings),
                     on_progress=progress)
    print("", file=out)
    print(format_summary(saved.manifest, saved.summary), file=out)
    print(f"\nsaved under {settings.data_dir / 'evals' / saved.manifest.id}; "
          f"`--out {saved.manifest.id}` resumes or refreshes it", file=out)
    failed = sum(saved.summary.failures.values()) if saved.summary else 0
    return 1 if failed else 0


def add_eval_parser(sub) -> None:
    """Add ``eval`` to ``python -m core``."""
    s = sub.add_parser("eval", help="evaluate baseline and deep agent on a question set")
    s.add_argument("set", nargs="?", metavar="SET.jsonl", help="question set (JSONL)")
    s.add_argument("--systems", default=",".join(SYSTEMS),
                   help=f"comma-separated, from {','.join(SYSTEMS)} (empty: none)")
    s.add_argument("--strategies", default=",".join(STRATEGIES),
                   help=f"comma-separated, from {','.join(STRATEGIES)} (empty: none)")
    s.add_argument("--out", metavar="NAME", help="evaluation name; an existing one is resumed")
    s.add_argument("--judge", choices=["auto", "llm", "offline"], default="auto",
                   help="answer-metric judge (auto: the configured LLM if any, else offline)")
    s.add_argument("--offline", action="store_true",
                   help="run the systems with the offline engine even if an LLM is configured")
    s.add_argument("--ingest", action="append", metavar="FILE",
                   help="ingest a filing before running (repeatable)")
    s.add_argument("--limit", type=int, default=0, help="only the first N questions")
    s.add_argument("--list", action="store_true", help="list saved evaluations")
    s.set_defaults(func=cmd_eval)
