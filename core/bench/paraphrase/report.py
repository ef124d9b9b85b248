"""Printing a run: pass rate per kind and per slot value, misses by class, latency, the
before/after delta against an earlier run (``--compare``) and a sample of misses."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import IO

from core.bench.paraphrase.model import MISSES, BenchRun, Outcome

_SHORT = {"wrong-question": "wrong-q", "said-not-answered": "said-not", "wrong-value":
          "wrong-val", "no-answer": "no-ans"}
_SLOT_ORDER = ("company", "measure", "period", "order", "direction", "wording", "test",
               "member", "threshold")


def save_run(run: BenchRun, path: str | Path) -> None:
    Path(path).write_text(run.model_dump_json(indent=1), encoding="utf-8")


def load_run(path: str | Path) -> BenchRun:
    return BenchRun.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q * (len(values) - 1))))]


def group(outcomes: list[Outcome], key: Callable[[Outcome], list[str]]
          ) -> dict[str, list[Outcome]]:
    """Outcomes by each key ``key`` gives them (a slot value, a kind)."""
    out: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        for k in key(o):
            out[k].append(o)
    return out


def by_kind(outcomes: list[Outcome]) -> dict[str, list[Outcome]]:
    return group(outcomes, lambda o: [o.case.kind])


def by_slot(outcomes: list[Outcome]) -> dict[str, list[Outcome]]:
    """'company=ticker-lower' -> outcomes, in slot order then value."""
    raw = group(outcomes, lambda o: [f"{s}={v}" for s, v in o.case.slots.items()])

    def rank(key: str) -> tuple:
        slot = key.split("=", 1)[0]
        return (_SLOT_ORDER.index(slot) if slot in _SLOT_ORDER else 99, key)

    return {k: raw[k] for k in sorted(raw, key=rank)}


def rate(items: list[Outcome]) -> float:
    return 100.0 * sum(o.judgement.passed for o in items) / len(items) if items else 0.0


def _row(label: str, items: list[Outcome], width: int) -> str:
    counts = {m: sum(o.judgement.miss == m for o in items) for m in MISSES}
    return (f"{label:{width}} {len(items):5d} {sum(o.judgement.passed for o in items):5d} "
            f"{rate(items):6.1f}% " + " ".join(f"{counts[m]:>9d}" for m in MISSES))


def _header(first: str, width: int) -> str:
    return f"{first:{width}} {'n':>5} {'pass':>5} {'rate':>7} " + " ".join(
        f"{_SHORT[m]:>9}" for m in MISSES)


def print_tables(run: BenchRun, out: IO[str]) -> None:
    """Per kind, per slot value, the misses' openings and the latency."""
    outcomes = run.outcomes
    print(f"\nPass rate per kind ({len(outcomes)} questions, seed {run.seed}, answerer "
          f"{run.answerer}; {run.skipped} drawn cases skipped: gold not computable)", file=out)
    print(_header("kind", 16), file=out)
    for kind, items in by_kind(outcomes).items():
        print(_row(kind, items, 16), file=out)
    print(_row("all", outcomes, 16), file=out)
    print("\nPass rate per slot value", file=out)
    print(_header("slot=value", 34), file=out)
    for key, items in by_slot(outcomes).items():
        print(_row(key[:34], items, 34), file=out)
    wrong = sum(o.judgement.miss == "wrong-question" for o in outcomes)
    print(f"\nwrong-question answers: {wrong} of {len(outcomes)}", file=out)
    shapes = group([o for o in outcomes if not o.judgement.passed],
                   lambda o: [o.judgement.opening])
    print("openings of the misses: " + ", ".join(
        f"{k} {len(v)}" for k, v in sorted(shapes.items(), key=lambda kv: -len(kv[1]))),
        file=out)
    secs = [o.seconds for o in outcomes]
    print(f"seconds per answer: p50 {_pct(secs, .5):.2f}, p95 {_pct(secs, .95):.2f}, max "
          f"{max(secs, default=0):.2f}; run wall {run.wall_s:.0f} s", file=out)


def print_compare(run: BenchRun, old: BenchRun, out: IO[str]) -> None:
    """Before (``old``) and after (``run``) per kind and slot value, and flipped cases."""
    print(f"\nBefore/after (before: seed {old.seed}, {len(old.outcomes)} questions; after: "
          f"seed {run.seed}, {len(run.outcomes)})", file=out)
    for title, split, width in (("kind", by_kind, 16), ("slot=value", by_slot, 34)):
        before, after = split(old.outcomes), split(run.outcomes)
        print(f"{title:{width}} {'before':>7} {'after':>7} {'delta':>7} {'n':>5}", file=out)
        for key in list(dict.fromkeys([*after, *before])):
            b, a = before.get(key, []), after.get(key, [])
            bs = f"{rate(b):6.1f}%" if b else "      -"
            as_ = f"{rate(a):6.1f}%" if a else "      -"
            delta = f"{rate(a) - rate(b):+6.1f}" if a and b else "      -"
            print(f"{key[:width]:{width}} {bs:>7} {as_:>7} {delta:>7} {len(a):5d}", file=out)
    old_by = {(o.case.id, o.case.question): o for o in old.outcomes}
    same = [(old_by[k], o) for o in run.outcomes
            if (k := (o.case.id, o.case.question)) in old_by]
    fixed = sum(not b.judgement.passed and a.judgement.passed for b, a in same)
    broke = sum(b.judgement.passed and not a.judgement.passed for b, a in same)
    print(f"same questions in both: {len(same)}; newly passing {fixed}, newly failing "
          f"{broke}", file=out)


def instructive(outcomes: list[Outcome], k: int) -> list[Outcome]:
    """``k`` misses spread over kinds and classes: one of each (kind, class) in turn."""
    groups = group([o for o in outcomes if not o.judgement.passed],
                   lambda o: [f"{o.case.kind}/{o.judgement.miss}"])
    queues = [list(v) for _, v in sorted(groups.items())]
    picked: list[Outcome] = []
    while len(picked) < k and any(queues):
        for q in queues:
            if q and len(picked) < k:
                picked.append(q.pop(0))
    return picked


def print_misses(outcomes: list[Outcome], k: int, out: IO[str]) -> None:
    print(f"\n{k} misses (spread over kinds and classes)", file=out)
    for o in instructive(outcomes, k):
        g, j = o.case.gold, o.judgement
        expected = g.expect or (" > ".join(g.order) if g.order else "") or (
            f"{g.value:.2f} {g.unit}" if g.value is not None else "")
        print(f"- [{o.case.kind} / {j.miss}] {o.case.question}\n"
              f"    gold: {expected} ({g.detail})\n"
              f"    first line: {j.first_line[:220] or '(none)'}\n"
              f"    judged: opening {j.opening}; {j.reason}"
              + (f"\n    error: {o.error}" if o.error else ""), file=out)
