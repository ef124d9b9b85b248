"""Reading an analysis question into figure requests and the spec that combines them.

1. **Subjects**: the companies the question names, in the order it names them
   (``core.retrieval.scope.match_companies``); "which of the companies loaded", "among the
   companies", or no company at all when several are loaded and the question asks which is
   highest, mean every company of the corpus that holds facts. One company and none named:
   that company.
2. **Kind**, from the shape: several subjects with "rank" / "order ... from highest to
   lowest" / "highest first" is a *rank*; several subjects asked yes/no ("Did A have a
   higher X than B?") a *verdict* between them; several subjects with a comparison word
   ("which ... higher", "A vs B", "compare") a *compare*, and without one a table of them
   (*multi*). One subject asked yes/no with a test (positive / negative, grew / declined,
   less / more than another figure or a threshold, improving / worsening) is a *verdict*;
   one subject with several measures joined by "and" is *multi*.
3. **Measures**: the catalogue's names in the question (``core.figures.phrases.Names``, the
   question's own definitions included), company names and periods blanked first.
4. Each (subject, measure) becomes a plain figure question in one shape, "What was
   <company>'s <measure> in <period>?" (no period: the company's latest fiscal year), read
   by ``core.figures.question.parse_figure_question``, so every figure of an analysis is
   read exactly as the same figure asked alone. A test of change reads the measure's growth;
   "improving" reads the measure in each year given (or the filing's three years).

Anything else (one company, one measure, no test) is None here: a plain figure question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.analysis.kinds import asked_first, rank_order, spec_of
from core.analysis.measures import GROWTH, growth_words, measures, names_measure, ratios, unique
from core.analysis.measures import span as span_of
from core.analysis.members import member_kind, member_names, with_member
from core.analysis.model import AnalysisSpec
from core.analysis.rows import possessive
from core.analysis.subjects import (
    Subject,
    corpus_subjects,
    latest_annual,
    subjects_named,
    unloaded,
)
from core.analysis.words import (
    ALL_COMPANIES,
    DIFFERENCE,
    GROWS,
    PICK,
    RANK,
    SUPERLATIVE,
    YES_NO,
    asks_existence,
    comparative_direction,
    factor_of,
    yes_no,
)
from core.figures.asked import decimals_asked, periods_asked
from core.figures.definitions import definition, read_definitions
from core.figures.model import FigureRequest
from core.figures.precision import unmapped_measure
from core.foundation.types import DocumentMeta
from core.ingest.facts.members import find_name
from core.metrics.criteria import comparison_asked, criterion_asked

_SENTENCE = re.compile(r"(?<=[.?!])\s+(?=[A-Z(\[])")
_PERIOD = re.compile(
    r"\b(?:(?:in|for|during|of|over)\s+)?(?:(?:the|its|their)\s+)?(?:(?:most\s+recent|latest|"
    r"last|current)\s+)?(?:(?:Q[1-4]\s*(?:of\s+)?)?(?:FY\s*['\u2019]?|fiscal\s+(?:years?\s+)?)"
    r"\d{2,4}(?:\s*-?\s*Q[1-4])?|(?<![\d$.,])(?:19|20)\d\d(?!\d|,\d)|fiscal\s+years?|years?)\b",
    re.I)


@dataclass
class AnalysisPlan:
    """An analysis question read: how to combine (``spec``) the figures ``requests`` ask
    for; ``questions`` are the plain figure questions they were read from (a plan step asks
    them again when it runs)."""

    spec: AnalysisSpec
    requests: list[FigureRequest] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    subjects: list[Subject] = field(default_factory=list)

    @property
    def who(self) -> list[str]:
        """The company of each request, as the question names it."""
        if len(self.subjects) > 1 and len(self.subjects) == len(self.requests):
            return [s.words for s in self.subjects]
        return [self.subjects[0].words] * len(self.requests) if self.subjects else []


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    for a, b in spans:
        text = text[:a] + " " * (b - a) + text[b:]
    return text


def _company_spans(text: str, subjects: list[Subject]) -> list[tuple[int, int]]:
    spans = []
    for s in subjects:
        for m in re.finditer(rf"{re.escape(s.words)}(?:['\u2019]s|['\u2019])?", text):
            spans.append(m.span())
    return spans


def _period_words(question: str) -> list[str]:
    """The periods named, as figure questions name them ('FY2024', 'Q1 FY2024')."""
    out = []
    for label in periods_asked(question):
        out.append(f"Q{label[-1]} FY{label[2:6]}" if "-Q" in label else label)
    return out


def _assign_periods(body: str, subjects: list[Subject], documents: list[DocumentMeta]
                    ) -> None:
    """Each subject's period: the one named after it and before the next company when every
    company has its own ("Acme's 2017 ... Birch's fiscal 2023 ..."), else the period the
    question names for all, else the company's latest fiscal year."""
    starts = [max(body.find(s.words), 0) for s in subjects]
    bounds = sorted(starts) + [len(body)]
    own = []
    for start in starts:
        end = next(b for b in bounds if b > start) if start < len(body) else len(body)
        own.append(_period_words(body[start:end]))
    shared = _period_words(body)
    each = len(subjects) > 1 and all(own) and len({p[-1] for p in own}) > 1
    for s, mine in zip(subjects, own, strict=True):
        s.period = mine[-1] if each else (shared[-1] if shared else "")
        if not s.period and not _QUARTER_ASKED.search(body):
            s.period = latest_annual(s.doc_ids, documents)


_QUARTER_ASKED = re.compile(r"\b(?:quarter(?:ly)?|10-?Q|Q[1-4])\b", re.I)


def _figure_question(subject: Subject, words: str, period: str | None = None) -> str:
    period = subject.period if period is None else period
    when = f" in {period}" if period else ""
    return f"What was {possessive(subject.words)} {words}{when}?"


def _read(text: str, documents, store, decimals: int | None) -> FigureRequest | None:
    from core.figures.question import parse_figure_question

    request = parse_figure_question(text, documents, store)
    if request is not None and decimals is not None:
        request = request.model_copy(update={"decimals": decimals})
    return request


def _main_sentence(sentences: list[str]) -> str:
    """The sentence that asks: the first question (not a definition, not an instruction
    such as "If X is not a useful metric, state that"), else the first sentence."""
    plain = [s for s in sentences if not definition(s)] or sentences
    asking = [s for s in plain if s.endswith("?")]
    return (asking or plain)[0]


def parse_analysis(question: str, documents: list[DocumentMeta], store=None
                   ) -> AnalysisPlan | None:
    """The analysis ``question`` asks for, or None (see the module docstring)."""
    text = " ".join(question.replace("\u2019", "'").split())
    sentences = [s for s in _SENTENCE.split(text) if s.strip()]
    body = _main_sentence(sentences)
    defs = " ".join(s for s in sentences if definition(s))
    _, names, _ = read_definitions(sentences)
    subjects = _subjects(body, documents, store)
    if not subjects or asks_existence(body):
        return None
    _assign_periods(body, subjects, documents)
    decimals = decimals_asked(question)
    picked = PICK.search(body)
    if picked and len(subjects) == 1:
        return _pick_plan(picked, subjects[0], documents, store, decimals)
    absent = _absent(body, subjects, store)  # "... than Zenith": named, no filing loaded
    several = len(subjects) + len(absent) > 1
    compared = comparison_asked(body) if several and not names_measure(body) else None
    reading = ""
    if compared is not None:  # "more leveraged than": the criterion's measure, compared
        word = compared.direction
        if compared.superlative:
            word = "highest" if word == "higher" else "lowest"
        body = f"{body[:compared.start]}{word} {compared.criterion.compare}{body[compared.end:]}"
        reading = compared.reading
    criterion = criterion_asked(body)
    if criterion is not None and len(subjects) == 1:
        return _criterion_plan(criterion, subjects[0], documents, store, decimals)
    plain = _blank(body, _company_spans(body, subjects))
    plain = _PERIOD.sub(lambda m: " " * len(m.group(0)), plain)
    found = ratios(plain, measures(plain, names), yes_no(body))
    if yes_no(body):  # the measure the yes / no asks, before one a "why" clause names
        found = asked_first(found, plain)
    found = unique(found)
    kind = member_kind(body) if len(subjects) == 1 else None
    if kind is not None:
        return _members_plan(body, kind, found, subjects[0], documents, store, decimals)
    if not found or any(unmapped_measure(plain, a, b, False) for _, _, a, b in found[:1]):
        return None  # "wages expense as a percent of net sales": a measure not catalogued
    periods = _period_words(body)
    read = spec_of(body, plain, found, several)
    asks = yes_no(body)
    way = comparative_direction(plain) if not several and asks else None
    pair = _than_periods(body) if way and len(found) == 1 else []
    if pair:  # "Was its gross margin higher in Q1 FY2024 than in Q1 FY2023?"
        read = AnalysisSpec(kind="verdict", name=found[0][1],
                            test="more" if way == "higher" else "less")
    two = _two_members(body, subjects[0], store, found[0][0]) if way else []
    if two:  # "Did its Cloud revenue exceed its Devices revenue?", "... grow faster than ..."
        return _member_pair_plan(two, found[0][1], bool(GROWS.search(body)), subjects[0],
                                 documents, store, decimals, way)
    if read is None:
        return None
    spec, power = read if isinstance(read, tuple) else (read, None)
    spec.reading = reading
    spec.difference = bool(DIFFERENCE.search(body))
    if spec.kind == "verdict" and spec.test in ("more", "less"):
        spec.factor = factor_of(plain)
    if several and spec.kind == "compare" and asks and SUPERLATIVE.search(body):
        spec.expect = _asked_about(body, subjects)  # "Among A, B and C, was B the most ..."
    plan = AnalysisPlan(spec=spec, subjects=subjects)
    _, words, _, _ = found[0]
    if not several and spec.kind != "multi":
        named = with_member(body, plain, found[0], words, subjects[0], store)
        if named != words and spec.name == words:
            spec.name = named  # "North America segment revenue", not the company's
        words = named
    series = spec.test in ("improving", "worsening", "stable")
    span = pair or span_of(spec, several, periods, subjects[0], found[0][0])
    if spec.kind in ("compare", "rank", "verdict"):
        spec.absent = absent
    if several and spec.kind in ("compare", "rank", "verdict", "multi"):
        words = growth_words(words, spec)
        plan.questions = [_figure_question(s, words) for s in subjects]
        spec.labels = [s.words for s in subjects]
    elif span:
        plan.questions = [_figure_question(subjects[0], words, p) for p in span]
        spec.labels = span
    elif series:
        years = periods if len(periods) > 1 else []
        plan.questions = [_figure_question(subjects[0], words, p)
                          for p in years or [subjects[0].period]]
        spec.labels = years or [subjects[0].period or "latest"]
    elif spec.kind in ("multi", "compare") or spec.test in ("less", "more", "equal"):
        plan.questions = [_figure_question(subjects[0], w) for _, w, _, _ in found[:6]]
        spec.labels = [w for _, w, _, _ in found[:6]]
    else:
        plan.questions = [_figure_question(subjects[0], growth_words(words, spec))]
        spec.labels = [subjects[0].words]
    for q in plan.questions:
        request = _read(f"{q} {defs}".strip(), documents, store, decimals)
        if request is None:
            return None
        plan.requests.append(request)
    if series and len(periods) < 2:
        plan = _over_years(plan, documents, store, decimals, words, defs)
    if spec.threshold is not None and power:
        spec.threshold = _in_unit(spec.threshold * 10 ** power, plan.requests[0].unit or "")
    return plan


def _than_periods(body: str) -> list[str]:
    """The two periods a "... in A than in B" compares, in that order; [] otherwise."""
    before, than, after = body.partition(" than ")
    first, second = _period_words(before), _period_words(after)
    if not than or not first or not second or first[-1] == second[0]:
        return []
    return [first[-1], second[0]]


_WHO = re.compile(r"\b(?:which|who|whose)\b", re.I)
""""Which company had the highest ...", "who grew the fastest": with no company named, a
superlative asks among every company loaded."""


def _subjects(body: str, documents: list[DocumentMeta], store) -> list[Subject]:
    """The companies the question is about (step 1 of the module docstring)."""
    subjects = subjects_named(body, documents)
    if ALL_COMPANIES.search(body) or (not subjects and (RANK.search(body) or (
            _WHO.search(body) and SUPERLATIVE.search(body) and member_kind(body) is None))):
        return corpus_subjects(documents, store) or subjects
    if not subjects:
        groups = corpus_subjects(documents, store)
        return groups if len(groups) == 1 else []
    return subjects


def _members_plan(body: str, kind: str, found: list, subject: Subject, documents, store,
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
        question = _figure_question(subject, f"{name} {words}")
        request = _read(question, documents, store, decimals)
        if request is None or request.member is None:
            continue  # "Corporate", "Other": no segment the question's words can name
        spec.labels.append(name)
        plan.questions.append(question)
        plan.requests.append(request)
    return plan if len(plan.requests) >= 2 else None


def _asked_about(body: str, subjects: list[Subject]) -> str:
    """The subject a yes/no names after its verb ("Among A, B and C, was B the most ...":
    B); the first named when none follows it."""
    verb = YES_NO.match(body)
    after = verb.end() if verb else 0
    at = [(body.find(s.words, after), s.words) for s in subjects]
    found = sorted(p for p in at if p[0] >= after)
    return found[0][1] if found else subjects[0].words


_MEMBER_GROWTH = re.compile(r"\b(?:grew|grow(?:s|ing|n)?|growth|expanded|increased)\b.{0,30}?"
                            r"\b(?:fastest|most|quickest|slowest|least)\b|\b(?:fastest|slowest)"
                            r"[-\s]growing\b", re.I)


def _absent(body: str, subjects: list[Subject], store) -> list[str]:
    """Companies the question names that no loaded filing is of; a segment of a named
    company ("than its Cloud segment") is none of them."""
    names = unloaded(body, subjects)
    if not names or store is None:
        return names
    known = {n.lower() for s in subjects
             for n in member_names(store, s.doc_ids, "revenue", s.period, None)}
    return [n for n in names if n.lower() not in known]


def _two_members(body: str, subject: Subject, store, key: str) -> list[str]:
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


def _member_pair_plan(two: list[str], words: str, grew: bool, subject: Subject,
                      documents, store, decimals, way: str | None) -> AnalysisPlan | None:
    """Two members' figures (or their growth) related (more / less), the first named
    against the second."""
    name = f"{words} growth" if grew else words
    spec = AnalysisSpec(kind="verdict", name=name, test="more" if way == "higher" else "less",
                        labels=[f"{m} {name}" for m in two])
    plan = AnalysisPlan(spec=spec, subjects=[subject])
    for label in spec.labels:
        question = _figure_question(subject, label)
        request = _read(question, documents, store, decimals)
        if request is None or request.member is None:
            return None
        plan.questions.append(question)
        plan.requests.append(request)
    return plan


def _pick_plan(picked: re.Match, subject: Subject, documents, store, decimals
               ) -> AnalysisPlan | None:
    """The largest (smallest) line of a balance sheet: the side's total looked up (its
    filing and date), the lines read beside it."""
    way = picked.group("way").lower()
    side = "asset" if picked.group("side").lower().startswith("asset") else "liability"
    spec = AnalysisSpec(kind="pick", name=f"{way} {side}",
                        direction="lower" if way in ("smallest", "lowest") else "higher",
                        labels=[subject.words])
    question = _figure_question(subject, f"total {'assets' if side == 'asset' else 'liabilities'}")
    request = _read(question, documents, store, decimals)
    if request is None:
        return None
    return AnalysisPlan(spec=spec, requests=[request], questions=[question], subjects=[subject])


def _criterion_plan(criterion, subject: Subject, documents, store, decimals
                    ) -> AnalysisPlan | None:
    """A judgement decided by a named criterion: one figure per test of the criterion."""
    spec = AnalysisSpec(kind="criterion", name=criterion.label, criterion=criterion.key,
                        labels=[t.name for t in criterion.tests])
    plan = AnalysisPlan(spec=spec, subjects=[subject])
    plan.questions = [_figure_question(subject, t.measure) for t in criterion.tests]
    for q in plan.questions:
        request = _read(q, documents, store, decimals)
        if request is None:
            return None
        plan.requests.append(request)
    return plan


_UNIT_POWER = {"USD": 0, "USD thousands": 3, "USD millions": 6, "USD billions": 9}


def _in_unit(amount: float, unit: str) -> float:
    """A threshold amount in base units, in the figure's unit ($50 billion in USD millions:
    50,000)."""
    return amount / 10 ** _UNIT_POWER.get(unit, 0)


def _over_years(plan: AnalysisPlan, documents, store, decimals, words: str, defs: str
                ) -> AnalysisPlan:
    """"Improving" with no years named: the measure in each of the latest filing's three
    fiscal years, oldest first."""
    latest = plan.requests[0].periods[-1] if plan.requests[0].periods else None
    if not latest or "-" in latest:
        return plan
    year = int(latest[2:6])
    years = [f"FY{y}" for y in range(year - 2, year + 1)]
    subject = plan.subjects[0]
    plan.questions = [_figure_question(subject, words, y) for y in years]
    plan.requests = [r for q in plan.questions
                     if (r := _read(f"{q} {defs}".strip(), documents, store, decimals))]
    plan.spec.labels = years
    return plan
