"""Self-check of verdicts: an answer may not contradict the comparison the run computed.

The run's analyses (``core.analysis``) decided a question from its figures; a sentence that
says otherwise is unsupported, whatever its citations (the rule wins over the LLM judge):

* **a comparison**: a sentence naming two of the companies compared with a comparison word
  ("Acme had the higher operating margin", "Birch's margin was lower than Acme's")
  must name as higher (or lower) the company the figures put there;
* **a yes/no**: an answer whose first word is "Yes" or "No" must give the verdict the
  figures decided (``verdict_problem``, checked on the whole answer: "Yes." alone is too
  short to be a claim).
"""

from __future__ import annotations

import re

from core.agent.state import SentenceCheck
from core.analysis.model import AnalysisResult
from core.analysis.words import comparative_direction

_MARK = re.compile(r"\[(\d+)\]")
_FIRST_WORD = re.compile(r"^\W*(yes|no)\b", re.I)


def named_at(sentence: str, label: str) -> int:
    """Where ``sentence`` names ``label`` as a whole phrase (-1: nowhere)."""
    m = re.search(rf"(?<![\w]){re.escape(label)}(?![\w])", sentence, re.I)
    return m.start() if m else -1


def claimed_first(sentence: str, result: AnalysisResult) -> str | None:
    """The company a comparison sentence puts first (higher for 'higher', lower for
    'lower'), or None when it compares none of the result's companies."""
    named = sorted((p, r.label) for r in result.rows if r.value is not None
                   and (p := named_at(sentence, r.label)) >= 0)
    if len(named) < 2:
        return None
    first, other = named[0][1], named[1][1]
    rest = sentence[named[0][0] + len(first):]  # after the name: "Best Widgets" is no "best"
    for _, label in named:
        rest = re.sub(rf"(?<![\w]){re.escape(label)}(?![\w])", " ", rest, flags=re.I)
    word = comparative_direction(rest)
    if word is None:
        return None
    return first if word == result.spec.direction else other


def contradiction(sentence: str, analyses: list[AnalysisResult]) -> str | None:
    """Why ``sentence`` contradicts a computed comparison, or None."""
    plain = _MARK.sub("", sentence)
    for a in analyses:
        if a.spec.kind != "compare" or not a.verdict or a.verdict == "tie":
            continue
        first = winner(a)
        said = claimed_first(plain, a)
        if said is not None and first and said != first:
            return f"it puts {said} first, but the figures put {first} first ({a.basis})"
    return None


def winner(result: AnalysisResult) -> str:
    """The subject a comparison puts first: its verdict, or for a yes/no about one of them
    ("Was Cloud the largest segment?") the first ranked row."""
    if result.spec.expect:
        return next((r.label for r in result.rows if r.rank == 1), "")
    return result.verdict


def check_analyses(checks: list[SentenceCheck], analyses: list[AnalysisResult]
                   ) -> list[SentenceCheck]:
    """``checks`` with sentences that contradict a computed comparison unsupported."""
    if not analyses:
        return checks
    out = []
    for c in checks:
        why = contradiction(c.sentence, analyses) if c.verdict != "uncited" else None
        out.append(c if why is None else c.model_copy(update={
            "verdict": "unsupported", "judge": "offline", "reason": why}))
    return out


def verdict_problem(text: str, analyses: list[AnalysisResult]) -> str | None:
    """Why an answer's opening "Yes" / "No" disagrees with the run's verdict, or None."""
    verdicts = [a for a in analyses if (a.spec.kind == "verdict" or a.spec.expect)
                and a.verdict in ("Yes", "No")]
    m = _FIRST_WORD.match(text.strip())
    if not verdicts or m is None:
        return None
    said, computed = m.group(1).capitalize(), verdicts[0].verdict
    if said != computed:
        return (f"it answers {said!r} but the figures decide {computed!r} "
                f"({verdicts[0].basis})")
    return None

