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

from core.analysis.model import AnalysisSpec
from core.analysis.words import (
    ALL_COMPANIES,
    COMPARATIVE,
    RANK,
    comparative_direction,
    relation_between,
    test_of,
    threshold_of,
    yes_no,
)
from core.figures.asked import decimals_asked, periods_asked
from core.figures.definitions import definition, read_definitions
from core.figures.model import FigureRequest
from core.foundation.types import DocumentMeta
from core.retrieval.scope import match_companies

_SENTENCE = re.compile(r"(?<=[.?!])\s+(?=[A-Z(\[])")
_PERIOD = re.compile(
    r"\b(?:(?:in|for|during|of|over)\s+)?(?:(?:the|its|their)\s+)?(?:(?:most\s+recent|latest|"
    r"last|current)\s+)?(?:(?:Q[1-4]\s*(?:of\s+)?)?(?:FY\s*['\u2019]?|fiscal\s+(?:years?\s+)?)"
    r"\d{2,4}(?:\s*-?\s*Q[1-4])?|(?<![\d$.,])(?:19|20)\d\d(?!\d|,\d)|fiscal\s+years?|years?)\b",
    re.I)
_GROWTH = re.compile(r"\b(?:growth|change|increase|decrease|cagr)\b", re.I)
_MULTI_GAP = re.compile(r"^\s*(?:,\s*)?(?:(?:and|as\s+well\s+as|&|plus)\s+)?(?:(?:its|their|the"
                        r"|his|her)\s+)?$", re.I)


@dataclass
class Subject:
    """A company the question is about: its words in the question, its registry name."""

    words: str
    company: str
    doc_ids: list[str]
    period: str = ""
    """The period asked for this company ('FY2024', 'Q1 FY2024'); '' for its latest fiscal
    year."""


_SUFFIX = re.compile(r"[\s,]+(?:inc|incorporated|corp|corporation|company|co|ltd|limited|plc|"
                     r"llc|lp|the)\.?$", re.I)


def short_name(company: str) -> str:
    """A registry name as an analyst writes it: corporate suffixes dropped, capitals only
    where the filer's name is not all capitals ("COCA COLA CO" -> "Coca Cola", "GAINSCO,
    INC." -> "Gainsco", "Alphabet Inc." -> "Alphabet")."""
    name = company.strip()
    while (cut := _SUFFIX.sub("", name)) != name and cut:
        name = cut
    name = name.strip(" ,.")
    if name.isupper():
        name = " ".join(w if len(w) <= 3 and w.isalpha() else w.capitalize()
                        for w in name.split())
    return name or company


def latest_annual(doc_ids: list[str], documents: list[DocumentMeta]) -> str:
    """The latest fiscal year of an annual report among ``doc_ids`` ('FY2024'); '' when there
    is none (a company known only by its 10-Qs: their latest period is read as asked)."""
    from core.figures.question import doc_period

    annual = [d for d in documents if d.doc_id in doc_ids
              and (d.form_type or "").upper().startswith(("10-K", "20-F", "40-F"))]
    dated = sorted(((d.period_end or d.period or "", p) for d in annual
                    if (p := doc_period(d)) and "-" not in p), key=lambda x: x[0])
    return dated[-1][1] if dated else ""


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


def subjects_named(question: str, documents: list[DocumentMeta]) -> list[Subject]:
    """The companies ``question`` names, in the order it names them."""
    found = match_companies(question, documents)
    order = sorted(found, key=lambda raw: question.find(raw))
    out: list[Subject] = []
    for raw in order:
        shown, ids = found[raw]
        if not any(s.company == shown for s in out):
            out.append(Subject(raw.rstrip(".,;:") if raw[-2:-1].islower() or raw.endswith(
                (",", ";", ":")) or raw[:-1].isupper() else raw, shown, ids))
    return out


def corpus_subjects(documents: list[DocumentMeta], store) -> list[Subject]:
    """Every company of the corpus whose filings hold facts, by name (each under the name its
    filings are grouped by)."""
    from core.store.companies import companies

    counts = _fact_counts(store)
    out = []
    for group in companies(documents):
        ids = [i for i in group.doc_ids if counts is None or counts.get(i, 0) > 0]
        if ids and group.name != "unknown":
            out.append(Subject(short_name(group.name), group.name, ids))
    return out


def _fact_counts(store) -> dict[str, int] | None:
    try:
        return store.facts_status()
    except (AttributeError, TypeError):
        return None


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


def _measures(text: str, names) -> list[tuple[str, str, int, int]]:
    """``(metric key, words, start, end)`` of the measures named in ``text``."""
    return [(key, " ".join(text[a:b].split()), a, b) for key, a, b in names.find(text)]


def _period_words(question: str) -> list[str]:
    """The periods named, as figure questions name them ('FY2024', 'Q1 FY2024')."""
    out = []
    for label in periods_asked(question):
        out.append(f"Q{label[-1]} FY{label[2:6]}" if "-Q" in label else label)
    return out


def _assign_periods(body: str, subjects: list[Subject], documents: list[DocumentMeta]
                    ) -> None:
    """Each subject's period: the one named after it and before the next company when every
    company has its own ("Amazon's 2017 ... NVIDIA's fiscal 2023 ..."), else the period the
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
    return f"What was {subject.words}'s {words}{when}?"


def _read(text: str, documents, store, decimals: int | None) -> FigureRequest | None:
    from core.figures.question import parse_figure_question

    request = parse_figure_question(text, documents, store)
    if request is not None and decimals is not None:
        request = request.model_copy(update={"decimals": decimals})
    return request


def parse_analysis(question: str, documents: list[DocumentMeta], store=None
                   ) -> AnalysisPlan | None:
    """The analysis ``question`` asks for, or None (see the module docstring)."""
    text = " ".join(question.replace("\u2019", "'").split())
    sentences = [s for s in _SENTENCE.split(text) if s.strip()]
    asked = [s for s in sentences if not definition(s)] or sentences
    body = " ".join(asked)
    defs = " ".join(s for s in sentences if definition(s))
    _, names, _ = read_definitions(sentences)
    subjects = subjects_named(body, documents)
    everyone = bool(ALL_COMPANIES.search(body))
    if everyone or (not subjects and RANK.search(body)):
        subjects = corpus_subjects(documents, store) or subjects
    elif not subjects:
        groups = corpus_subjects(documents, store)
        subjects = groups if len(groups) == 1 else []
    if not subjects:
        return None
    plain = _blank(body, _company_spans(body, subjects))
    plain = _PERIOD.sub(lambda m: " " * len(m.group(0)), plain)
    found = _measures(plain, names)
    if not found:
        return None
    periods = _period_words(body)
    _assign_periods(body, subjects, documents)
    decimals = decimals_asked(question)
    several = len(subjects) > 1
    read = _spec(body, plain, found, several)
    if read is None:
        return None
    spec, power = read if isinstance(read, tuple) else (read, None)
    plan = AnalysisPlan(spec=spec, subjects=subjects)
    key, words, _, _ = found[0]
    if spec.kind in ("compare", "rank") or (several and spec.kind in ("verdict", "multi")):
        words = _growth_words(words, spec)
        for s in subjects:
            plan.questions.append(_figure_question(s, words))
        spec.labels = [s.words for s in subjects]
    elif spec.test in ("improving", "worsening"):
        years = periods if len(periods) > 1 else []
        for p in years or [subjects[0].period]:
            plan.questions.append(_figure_question(subjects[0], words, p))
        spec.labels = years or [subjects[0].period or "latest"]
    elif spec.kind == "multi" or (spec.kind == "verdict" and spec.test in ("less", "more")):
        for _, w, _, _ in found[:4]:
            plan.questions.append(_figure_question(subjects[0], w))
        spec.labels = [w for _, w, _, _ in found[:4]]
    else:
        words = _growth_words(words, spec)
        plan.questions.append(_figure_question(subjects[0], words))
        spec.labels = [subjects[0].words]
    for q in plan.questions:
        request = _read(f"{q} {defs}".strip(), documents, store, decimals)
        if request is None:
            return None
        plan.requests.append(request)
    if spec.test in ("improving", "worsening") and len(periods) < 2:
        plan = _over_years(plan, documents, store, decimals, words, defs)
    if spec.threshold is not None and power:
        spec.threshold = _in_unit(spec.threshold * 10 ** power, plan.requests[0].unit or "")
    return plan


_UNIT_POWER = {"USD": 0, "USD thousands": 3, "USD millions": 6, "USD billions": 9}


def _in_unit(amount: float, unit: str) -> float:
    """A threshold amount in base units, in the figure's unit ($50 billion in USD millions:
    50,000)."""
    return amount / 10 ** _UNIT_POWER.get(unit, 0)


def _growth_words(words: str, spec: AnalysisSpec) -> str:
    """A test of change reads the measure's growth ("revenue" -> "revenue growth")."""
    if spec.test in ("grew", "declined") and not _GROWTH.search(words):
        return f"{words} growth"
    return words


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


def _spec(body: str, plain: str, found: list, several: bool
          ) -> AnalysisSpec | tuple[AnalysisSpec, int | None] | None:
    """The kind and settings of the analysis, or None for a plain figure question; a
    threshold comes with the power of ten it was written in ("$50 billion": 9)."""
    name = found[0][1]
    if several:
        if RANK.search(body):
            return AnalysisSpec(kind="rank", name=name, direction=_rank_order(body))
        if yes_no(body):
            test = test_of(plain, found[0][3])
            more = comparative_direction(body)
            if more is not None and test in (None, "more", "less"):
                return AnalysisSpec(kind="verdict", name=name,
                                    test="more" if more == "higher" else "less")
        direction = comparative_direction(body)
        if direction is not None or COMPARATIVE.search(body):
            return AnalysisSpec(kind="compare", name=name, direction=direction or "higher")
        return AnalysisSpec(kind="multi", name=name)
    if yes_no(body):
        if len(found) >= 2:
            relation = relation_between(plain, found[0][3], found[1][2])
            if relation:
                return AnalysisSpec(kind="verdict", name=f"{name} and {found[1][1]}",
                                    test=relation)
        threshold = threshold_of(plain, found[0][3])
        if threshold is not None:
            test, value, power = threshold
            return AnalysisSpec(kind="verdict", name=name, test=test, threshold=value), power
        test = test_of(plain, found[0][3])
        if test is not None:
            return AnalysisSpec(kind="verdict", name=name, test=test)
        return None
    if len(found) >= 2 and all(_MULTI_GAP.match(plain[a[3]:b[2]])
                               for a, b in zip(found, found[1:], strict=False)):
        return AnalysisSpec(kind="multi", name=" and ".join(w for _, w, _, _ in found[:4]))
    return None


def _rank_order(body: str) -> str:
    low = body.lower()
    if re.search(r"\blowest\s+(?:first|to\s+highest)|\bfrom\s+(?:the\s+)?lowest|\bascending|"
                 r"\bsmallest\s+(?:first|to\s+largest)|\bleast\s+to\s+most", low):
        return "lower"
    return "higher"
