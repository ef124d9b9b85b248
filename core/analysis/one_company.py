"""Analyses of one company: its segments or product lines compared (``members_plan``),
two of its members related (``member_pair_plan``), the largest line of its balance sheet
(``pick_plan``), a judgement by a named criterion (``criterion_plan``) and a measure over
its latest three fiscal years (``over_years``). Every figure is read over the company's own
filings (``core.analysis.plan.read_figure``).
"""

from __future__ import annotations

import re

from core.analysis.kinds import rank_order
from core.analysis.measures import GROWTH
from core.analysis.members import member_names
from core.analysis.model import AnalysisSpec
from core.analysis.plan import AnalysisPlan, figure_question, read_figure
from core.analysis.subjects import Subject
from core.analysis.words import RANK, comparative_direction, yes_no
from core.ingest.facts.members import find_name


def members_plan(body: str, kind: str, found: list, subject: Subject, documents, store,
                  decimals) -> AnalysisPlan | None:
    """Every member of ``kind`` compared by the measure named (revenue when none is)."""
    key, words = (found[0][0], found[0][1]) if found else ("revenue", "revenue")
    names = member_names(store, subject.doc_ids, key, subject.period, kind)
    if len(names) < 2:
        return None
    if _MEMBER_GROWTH.search(body) and not GROWTH.search(words):
        words = f"{words} growth"  # "which segment grew the fastest": growth compared
    way = comparative_direction(body) or "higher"
    ranked = bool(RANK.search(body))  # "Rank its segments by operating income"
    spec = AnalysisSpec(kind="rank" if ranked else "compare", name=words,
                        direction=rank_order(body) if ranked else way, labels=names)
    if yes_no(body):  # "Was its Cloud segment the largest?"
        spec.expect = next((n for n in names if find_name(n, body)), "")
    plan = AnalysisPlan(spec=spec, subjects=[subject])
    spec.labels = []
    for name in names:
        question = figure_question(subject, f"{name} {words}")
        request = read_figure(question, documents, store, decimals, subject)
        if request is None or request.member is None:
            continue  # "Corporate", "Other": no segment the question's words can name
        spec.labels.append(name)
        plan.questions.append(question)
        plan.requests.append(request)
    return plan if len(plan.requests) >= 2 else None


_MEMBER_GROWTH = re.compile(r"\b(?:grew|grow(?:s|ing|n)?|growth|expanded|increased)\b.{0,30}?"
                            r"\b(?:fastest|most|quickest|slowest|least)\b|\b(?:fastest|slowest)"
                            r"[-\s]growing\b", re.I)


def two_members(body: str, subject: Subject, store, key: str) -> list[str]:
    """The two members a question names, in its order ("Cloud ... than Devices"); [] when it
    names fewer or more."""
    names = member_names(store, subject.doc_ids, key, subject.period, None) if store else []
    at = sorted((hit[0], n) for n in names if (hit := find_name(n, body))
                and not _is_measure_name(n))
    return [n for _, n in at] if len(at) == 2 else []


def _is_measure_name(name: str) -> bool:
    """A member printed under a measure's own name ("Revenues"): no segment to compare."""
    from core.metrics import find_metrics

    found = find_metrics(name)
    return bool(found) and found[0].end - found[0].start >= len(name.strip()) - 1


def member_pair_plan(two: list[str], words: str, grew: bool, subject: Subject,
                      documents, store, decimals, way: str | None) -> AnalysisPlan | None:
    """Two members' figures (or their growth) related (more / less), the first named
    against the second."""
    name = f"{words} growth" if grew else words
    spec = AnalysisSpec(kind="verdict", name=name, test="more" if way == "higher" else "less",
                        labels=[f"{m} {name}" for m in two])
    plan = AnalysisPlan(spec=spec, subjects=[subject])
    for label in spec.labels:
        question = figure_question(subject, label)
        request = read_figure(question, documents, store, decimals, subject)
        if request is None or request.member is None:
            return None
        plan.questions.append(question)
        plan.requests.append(request)
    return plan


def pick_plan(picked: tuple[str, str], subject: Subject, documents, store, decimals
              ) -> AnalysisPlan | None:
    """The largest (smallest) line of a balance sheet (``picked``: the way and side asked,
    ``words.pick_asked``): the side's total looked up (its filing and date), the lines
    read beside it."""
    way = picked[0].lower()
    side = "asset" if picked[1].lower().startswith("asset") else "liability"
    spec = AnalysisSpec(kind="pick", name=f"{way} {side}",
                        direction="lower" if way in ("smallest", "lowest") else "higher",
                        labels=[subject.label])
    question = figure_question(subject, f"total {'assets' if side == 'asset' else 'liabilities'}")
    request = read_figure(question, documents, store, decimals, subject)
    if request is None:
        return None
    return AnalysisPlan(spec=spec, requests=[request], questions=[question], subjects=[subject])


def criterion_plan(criterion, subject: Subject, documents, store, decimals
                    ) -> AnalysisPlan | None:
    """A judgement decided by a named criterion: one figure per test of the criterion."""
    spec = AnalysisSpec(kind="criterion", name=criterion.label, criterion=criterion.key,
                        labels=[t.name for t in criterion.tests])
    plan = AnalysisPlan(spec=spec, subjects=[subject])
    plan.questions = [figure_question(subject, t.measure) for t in criterion.tests]
    for q in plan.questions:
        request = read_figure(q, documents, store, decimals, subject)
        if request is None:
            return None
        plan.requests.append(request)
    return plan


_UNIT_POWER = {"USD": 0, "USD thousands": 3, "USD millions": 6, "USD billions": 9}


def in_unit(amount: float, unit: str) -> float:
    """A threshold amount in base units, in the figure's unit ($50 billion in USD millions:
    50,000)."""
    return amount / 10 ** _UNIT_POWER.get(unit, 0)


def over_years(plan: AnalysisPlan, documents, store, decimals, words: str, defs: str
                ) -> AnalysisPlan:
    """"Improving" with no years named: the measure in each of the latest filing's three
    fiscal years, oldest first."""
    latest = plan.requests[0].periods[-1] if plan.requests[0].periods else None
    if not latest or "-" in latest:
        return plan
    year = int(latest[2:6])
    years = [f"FY{y}" for y in range(year - 2, year + 1)]
    subject = plan.subjects[0]
    plan.questions = [figure_question(subject, words, y) for y in years]
    plan.requests = [r for q in plan.questions
                     if (r := read_figure(f"{q} {defs}".strip(), documents, store, decimals,
                                         subject))]
    plan.spec.labels = years
    return plan
