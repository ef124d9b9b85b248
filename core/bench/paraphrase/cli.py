"""``python -m core bench paraphrase``: the generated paraphrase suite over a corpus.

Generates about ``--n`` questions (``--seed``; ``--kinds``; ``--slots company=typo,...``)
over the corpus of ``--data-dir`` (default: the configured one), computes their gold from
the facts, asks the offline deep agent each (as ``python -m core ask "Q" --approve``),
judges every answer and prints the pass rate per kind and per slot value, the wrong-question
count and p50/p95 seconds per answer; ``--out`` saves the run, ``--compare OLD.json``
prints the before/after delta, ``--show-misses K`` prints K misses; ``--cases RUN.json``
asks the questions of a saved run again (same gold), for an exact before/after;
``--rejudge RUN.json`` judges a saved run's answers again (``--compare`` runs always are).
"""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from core.foundation.config import Settings
from core.foundation.errors import AppError


def cmd_paraphrase(args, settings: Settings) -> int:
    from core.bench.paraphrase.generate import Generated, generate, parse_slots
    from core.bench.paraphrase.grammar import KINDS
    from core.bench.paraphrase.model import BenchRun
    from core.bench.paraphrase.report import load_run
    from core.bench.paraphrase.runner import (
        AgentAnswerer,
        AnalysisAnswerer,
        rejudge,
        run_cases,
    )

    if args.data_dir:
        from core.foundation.config import load_settings

        settings = load_settings(data_dir=Path(args.data_dir))
    kinds = [k.strip() for k in args.kinds.split(",")] if args.kinds else list(KINDS)
    try:
        only = parse_slots(args.slots)
    except ValueError as exc:
        raise AppError(str(exc)) from None
    old = load_run(args.compare) if args.compare else None
    if old is not None:
        old.outcomes = rejudge(old.outcomes)
    if args.rejudge:  # a saved run's answers judged again: no corpus, no agent
        run = load_run(args.rejudge)
        run.outcomes = rejudge(run.outcomes)
        _print(run, old, args)
        return 0
    t0 = time.perf_counter()
    started = datetime.now(UTC).isoformat(timespec="seconds")
    if args.answerer == "agent":
        answerer = AgentAnswerer.for_settings(settings)
        store = answerer.service.store
    else:
        from core.app.corpus import Corpus

        store = Corpus(settings).store
        answerer = AnalysisAnswerer(store)
    print(f"corpus {settings.data_dir}: {len(store.documents())} documents; start-up "
          f"{time.perf_counter() - t0:.1f} s", flush=True)
    if args.cases:  # the same questions and gold as an earlier run
        earlier = load_run(args.cases)
        gen = Generated(cases=[o.case for o in earlier.outcomes if o.case.kind in kinds],
                        skipped=earlier.skipped)
        print(f"{len(gen.cases)} questions and their gold from {args.cases} (seed "
              f"{earlier.seed})", flush=True)
    else:
        try:
            gen = generate(store, n=args.n, seed=args.seed, kinds=kinds, only=only)
        except ValueError as exc:
            raise AppError(str(exc)) from None
        print(f"generated {len(gen.cases)} questions in {time.perf_counter() - t0:.1f} s "
              f"({gen.skipped} drawn cases skipped: gold not computable"
              + (f"; {', '.join(f'{k} {v}' for k, v in gen.skipped_by_kind.items())}"
                 if gen.skipped_by_kind else "") + ")", flush=True)
    if not gen.cases:
        print("No question could be generated: the corpus has no annual report with facts.")
        return 1

    def progress(i, outcome) -> None:
        if (i + 1) % 50 == 0:
            print(f"  {i + 1} answered ({time.perf_counter() - t0:.0f} s)", flush=True)

    outcomes = run_cases(gen.cases, answerer, progress)
    run = BenchRun(seed=earlier.seed if args.cases else args.seed, n=args.n,
                   data_dir=str(settings.data_dir), cases_from=args.cases or "",
                   answerer=answerer.name, kinds=kinds, slots=list(args.slots or []),
                   generated=len(gen.cases), skipped=gen.skipped, started_at=started,
                   wall_s=round(time.perf_counter() - t0, 1), outcomes=outcomes)
    _print(run, old, args)
    return 0


def _print(run, old, args) -> None:
    from core.bench.paraphrase.report import (
        print_compare,
        print_misses,
        print_tables,
        save_run,
    )

    print_tables(run, sys.stdout)
    if old is not None:
        print_compare(run, old, sys.stdout)
    if args.show_misses:
        print_misses(run.outcomes, args.show_misses, sys.stdout)
    if args.out:
        save_run(run, args.out)
        print(f"\nsaved {args.out}")


def add_paraphrase_parser(bsub) -> None:
    """``bench paraphrase`` under ``python -m core bench``."""
    s = bsub.add_parser("paraphrase", help="generated paraphrases of analysts' questions, "
                        "gold from the facts, pass rate per kind and slot")
    s.add_argument("--data-dir", help="corpus folder (default: DTR_DATA_DIR)")
    s.add_argument("--n", type=int, default=360, help="questions to generate (about)")
    s.add_argument("--seed", type=int, default=7)
    s.add_argument("--kinds", help="comma-separated kinds (default: all): figure, figures, "
                   "compare, rank, difference, growth_compare, verdict, trend, share, "
                   "largest_member, balance_line, text")
    s.add_argument("--slots", action="append", metavar="SLOT=VALUE[,...]",
                   help="keep only these slot values, e.g. company=ticker-lower,period=FYyy "
                   "(repeatable)")
    s.add_argument("--answerer", choices=["agent", "analysis"], default="agent",
                   help="agent: the offline deep agent (as `ask --approve`); analysis: the "
                   "analysis layer alone")
    s.add_argument("--cases", metavar="RUN.json", help="ask the questions of a saved run "
                   "again, with their gold (an exact before/after; no generation)")
    s.add_argument("--rejudge", metavar="RUN.json", help="judge a saved run's answers again "
                   "(after a change of the judge) and print its tables; asks nothing")
    s.add_argument("--out", help="save the run as JSON")
    s.add_argument("--compare", metavar="OLD.json", help="before/after against a saved run")
    s.add_argument("--show-misses", type=int, default=0, metavar="K",
                   help="print K misses (question, gold, first line, class)")
    s.set_defaults(func=cmd_paraphrase)
