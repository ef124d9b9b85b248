"""The comparison's verdict: one count of the parts each answer covers (``coverage_count``,
shown alike by the verdict line and the sub-question table) and the one-line verdict."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from core.app.compare import Verdict, figures_stated, headings_of, sentences


@dataclass
class Overall:
    """The one-line verdict of a comparison and the figures behind it."""

    winner: Literal["deep", "baseline", "tie"]
    line: str
    reasons: list[str]


SIDE_NAME = {"deep": "the deep agent", "baseline": "the baseline"}


@dataclass(frozen=True)
class CoverageCount:
    """How many parts one answer covers: fully, partly, of how many."""

    covered: int
    partial: int
    total: int

    @property
    def value(self) -> float:
        """What ranks two answers: a part partly covered counts half."""
        return self.covered + 0.5 * self.partial

    def words(self) -> str:
        """'3 of 4', '2 of 4 (1 more partly)'."""
        more = f" ({self.partial} more partly)" if self.partial else ""
        return f"{self.covered} of {self.total}{more}"


def coverage_count(verdict_rows: Sequence[Verdict], side: str) -> CoverageCount:
    """The one count of the parts ``side`` ("deep" or "baseline") covers, shown alike by
    the verdict line and the sub-question table."""
    rows = [getattr(v, side).coverage for v in verdict_rows]
    return CoverageCount(rows.count("covered"), rows.count("partial"), len(rows))


def no_winner(verdict_rows: Sequence[Verdict], side: str) -> list[str]:
    """The parts asking which company wins that ``side`` addresses without naming one."""
    return [v.sub_question for v in verdict_rows if getattr(v, side).note == "names no winner"]


def _tally(record: Any, verdict_rows: Sequence[Verdict], side: str, heads: Sequence[str]
           ) -> dict[str, float]:
    answer = getattr(record, "answer", None)
    claims = sentences(answer.text if answer else "", heads)
    cited = {n for s in claims for n in s.markers}
    kinds = {c.n: c.kind for c in (answer.citations if answer else [])}
    return {
        "covered": coverage_count(verdict_rows, side).value,
        "filing": sum(kinds.get(n) == "chunk" for n in cited),
        "figures": sum(bool(figures_stated(s.plain)) for s in claims if s.markers),
    }


def overall(deep: Any, baseline: Any, verdict_rows: Sequence[Verdict]) -> Overall:
    """Which answer is better, in one line with its reasons: which covers more
    sub-questions (a cited claim addresses it), then which cites more filing passages (the
    primary, gold-looking evidence), then which states figures in cited claims; the first
    of these that differs decides."""
    heads = headings_of(deep)
    t = {side: _tally(r, verdict_rows, side, heads)
         for side, r in (("deep", deep), ("baseline", baseline))}
    count = {side: coverage_count(verdict_rows, side) for side in ("deep", "baseline")}
    said = {"covered": lambda side: f"covers {count[side].words()} sub-question(s)",
            "filing": lambda side: f"cites {t[side]['filing']:g} filing passage(s)",
            "figures": lambda side: f"states figures in {t[side]['figures']:g} cited claim(s)"}
    short = {"covered": lambda side: count[side].words(),
             "filing": lambda side: f"{t[side]['filing']:g}",
             "figures": lambda side: f"{t[side]['figures']:g}"}
    winner: Literal["deep", "baseline", "tie"] = "tie"
    for name in said:  # in order of weight: the first that differs decides
        d, b = t["deep"][name], t["baseline"][name]
        if d != b:
            winner = "deep" if d > b else "baseline"
            break
    first = "deep" if winner == "tie" else winner
    other = "baseline" if first == "deep" else "deep"
    reasons = [f"{said[name](first)} ({other} {short[name](other)})" for name in said]
    head = ("Verdict: neither answer is clearly better — the deep agent " if winner == "tie"
            else f"Verdict: {SIDE_NAME[winner]}'s answer is better — it ")
    line = head + "; ".join(reasons) + "."
    for side in ("deep", "baseline"):
        missed = no_winner(verdict_rows, side)
        if missed:
            reasons.append(f"{SIDE_NAME[side]} names no winner for {len(missed)} part(s) that "
                           "ask which")
            line += f" {SIDE_NAME[side][:1].upper()}{SIDE_NAME[side][1:]} names no winner " \
                    f"where the question asks which ({len(missed)} part(s))."
    return Overall(winner, line, reasons)


def _same_words(a: str, b: str) -> bool:
    return " ".join((a or "").lower().split()) == " ".join((b or "").lower().split())


def pair_problems(baseline: Any, deep: Any) -> list[str]:
    """Why two saved runs cannot be judged against each other (a link naming any two runs):
    the baseline side must be a baseline run, the deep side a deep run, and both must answer
    the same question. [] when they can."""
    out = []
    for record, side in ((baseline, "baseline"), (deep, "deep")):
        kind = getattr(record, "kind", "deep")
        if kind != side:
            out.append(f"The {side} side is run {record.id}, a {kind} run: it is not the "
                       f"{SIDE_NAME[side]}'s answer.")
    if not _same_words(baseline.question, deep.question):
        out.append(f"The runs answer different questions: “{baseline.question}” "
                   f"(run {baseline.id}) and “{deep.question}” (run {deep.id}).")
    return out
