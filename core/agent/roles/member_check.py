"""Self-check of a figure stated for a segment, product line or region (a member).

"Data Center revenue was $15.01 billion, up 41%" states the Data Center segment's revenue
and growth, not the company's: its amounts are checked against that member's facts (every
period the filings report, and the change between any two of them, as an amount and in
percent), never against the entity's total revenue. The member is the one named in the
metric's own clause (``core.figures.segments_asked.named_member``), among the members of
the filings the run read. Without the fact store (a check run outside the agent) a metric
qualified by a proper name ("Gaming revenue") is left to the text rule, which finds the
figures in the cited text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.agent.state import SentenceCheck

_SEGMENT_WORDS = re.compile(r"\b(?:segments?|divisions?|regions?|geograph\w*)\b", re.I)
_PROPER_BEFORE = re.compile(r"(?:^|\s)(?:[A-Z][\w&.-]*\s+){1,3}$")
_KIND_WORD = re.compile(r"\s(?:segment|division|business|platform|market|region)s?\s+$", re.I)
_NOT_NAME = frozenset("The Its Our Their Total Net Company Consolidated In For Of And Fiscal "
                      "Year FY Q1 Q2 Q3 Q4 Annual GAAP".split())


@dataclass
class MemberFigures:
    """One member's figures of one metric, and the changes between them."""

    name: str
    values: list[float]
    chunk_ids: set[str]

    def pool(self) -> list[float]:
        return self.values + changes_of(self.values)


def _qualified_by_name(plain: str, start: int) -> bool:
    """Whether a capitalised name stands right before the metric ("Data Center revenue")."""
    m = _PROPER_BEFORE.search(_KIND_WORD.sub(" ", plain[:start]))
    if not m:
        return False
    words = m.group(0).split()
    return any(w not in _NOT_NAME and not w.endswith("'s") and
               not re.fullmatch(r"(?:FY|Q[1-4])?'?\d+", w) for w in words)


def member_named(plain: str, know) -> tuple[str, MemberFigures | None] | None:
    """``(metric, the member's figures)`` when ``plain`` states a metric of the run for a
    member; ``(metric, None)`` when a name qualifies the metric but no store is at hand to
    say which member it is; None when the sentence states the entity's figure."""
    from core.figures.clauses import clause_span
    from core.metrics import find_metrics

    wanted = know.metrics()
    for hit in find_metrics(plain):
        if hit.key not in wanted:
            continue
        if know.facts is None:
            if _qualified_by_name(plain, hit.start):
                return hit.key, None
            continue
        a, b = clause_span(plain, hit.start, hit.end)
        found = _member_figures(plain, hit.start, hit.end,
                                bool(_SEGMENT_WORDS.search(plain[a:b])), hit.key, know)
        if found is not None:
            return hit.key, found
    return None


def _member_figures(plain: str, start: int, end: int, anywhere: bool, metric: str,
                    know) -> MemberFigures | None:
    from core.figures.lookup import match_rank
    from core.figures.segments_asked import members_in_scope, named_member
    from core.metrics import catalog

    doc_ids = know.doc_ids()
    member = named_member(plain, start, end, anywhere, know.facts, doc_ids, metric)
    entry = catalog().get(metric)
    if member is None or entry is None:
        return None
    facts = [f for m, fs in members_in_scope(know.facts, doc_ids) if m == member
             for f in fs if match_rank(entry, f) is not None and f.fiscal_period == "FY"]
    if not facts:
        return None
    by_year = {}
    for f in sorted(facts, key=lambda f: (f.fiscal_year or 0)):
        by_year.setdefault(f.fiscal_year, f.value)
    return MemberFigures(member.name, [by_year[y] for y in sorted(by_year, key=lambda y: y or 0)],
                         {f.chunk_id for f in facts if f.chunk_id})


def member_verdict(sentence: str, marks: list[int], numbered: dict, metric: str,
                   figures: MemberFigures | None, stated: list[tuple[float, int]]
                   ) -> SentenceCheck | None:
    """The verdict on a member's stated figures, or None: the text rule decides (no store,
    or the figures agree but the sentence cites none of the member's facts)."""
    from core.agent.roles.figure_catalog import metric_label

    if figures is None:
        return None
    pool = figures.pool()
    wrong = [v for v, d in stated if not agrees(v, d, pool)]
    what = f"{figures.name} {metric_label(metric)}"
    base = dict(sentence=sentence, citations=marks, judge="offline")
    if wrong:
        return SentenceCheck(**base, verdict="unsupported", reason=(
            f"figure(s) {', '.join(f'{v:,g}' for v in wrong)} agree with no reported "
            f"{what} or change of it"))
    cited = {numbered[n].id for n in marks if n in numbered}
    if not cited & figures.chunk_ids:
        return None
    return SentenceCheck(**base, verdict="supported",
                         reason=f"figures agree with the reported {what} and its changes")


SCALES = (1.0, 1e-3, 1e-6, 1e-9, 1e3, 1e6)


def agrees(value: float, decimals: int, pool: list[float]) -> bool:
    """Whether ``value`` (printed with ``decimals``) is a number of ``pool`` at some scale
    (units, thousands, millions, billions), sign aside."""
    tol = 0.5 * 10 ** (-decimals) + 1e-9
    return any(abs(abs(g) * s - abs(value)) <= tol for g in pool for s in SCALES)


def changes_of(values: list[float]) -> list[float]:
    """``changes`` of values in period order."""
    out = []
    for k, old in enumerate(values):
        for new in values[k + 1:]:
            out.append(new - old)
            if old:
                out.append((new - old) / abs(old) * 100)
    return out
