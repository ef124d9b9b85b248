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

5. **Said, not decided** (``core.analysis.stated``): a company named twice ("Acme or ACME
   CORP"), a threshold that is no finite number or two thresholds at once ("above 20% and
   below 10%"), and each company asked its own measure ("Acme's revenue or Birch's
   margin") state the figures and say in ``AnalysisPlan.unread`` what was not decided.
   Every company a list names that no filing is of is kept as a row, said missing
   (``subjects.named_lists``).

Anything else (one company, one measure, no test) is None here: a plain figure question.
"""

from __future__ import annotations

import re

from core.analysis.kinds import asked_first, spec_of
from core.analysis.measures import growth_words, measures, names_measure, ratios, unique
from core.analysis.measures import span as span_of
from core.analysis.members import member_kind, member_names, with_member
from core.analysis.model import AnalysisSpec
from core.analysis.one_company import (
    criterion_plan,
    in_unit,
    member_pair_plan,
    members_plan,
    over_years,
    pick_plan,
    two_members,
)
from core.analysis.plan import AnalysisPlan, figure_question, read_figure
from core.analysis.stated import (
    asked_of,
    measures_differ,
    named_twice,
    own_measures,
    stated_plan,
)
from core.analysis.subjects import (
    Subject,
    corpus_subjects,
    latest_annual,
    named_lists,
    subjects_named,
)
from core.analysis.words import (
    ALL_COMPANIES,
    DIFFERENCE,
    GROWS,
    RANK,
    SUPERLATIVE,
    YES_NO,
    Unreadable,
    asks_existence,
    comparative_direction,
    factor_of,
    pick_asked,
    yes_no,
)
from core.figures.asked import decimals_asked, periods_asked
from core.figures.definitions import definition, read_definitions
from core.figures.precision import unmapped_measure
from core.foundation.types import DocumentMeta
from core.metrics.criteria import comparison_asked, criterion_asked

_figure_question = figure_question  # the name the agent and the MCP tools import
__all__ = ["AnalysisPlan", "parse_analysis"]

_SENTENCE = re.compile(r"(?<=[.?!])\s+(?=[A-Z(\[])")
_PERIOD = re.compile(
    r"\b(?:(?:in|for|during|of|over)\s+)?(?:(?:the|its|their)\s+)?(?:(?:most\s+recent|latest|"
    r"last|current)\s+)?(?:(?:Q[1-4]\s*(?:of\s+)?)?(?:FY\s*['\u2019]?|fiscal\s+(?:years?\s+)?)"
    r"\d{2,4}(?:\s*-?\s*Q[1-4])?|(?<![\d$.,])(?:19|20)\d\d(?!\d|,\d)|fiscal\s+years?|years?)\b",
    re.I)


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
    picked = pick_asked(body)
    if picked and len(subjects) == 1:
        return pick_plan(picked, subjects[0], documents, store, decimals)
    absent, twice = _absent(body, subjects, store)  # "... than Zenith": no filing loaded
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
    if criterion is not None and len(subjects) == 1 and not twice:
        return criterion_plan(criterion, subjects[0], documents, store, decimals)
    plain = _blank(body, _company_spans(body, subjects))
    plain = _PERIOD.sub(lambda m: " " * len(m.group(0)), plain)
    hits = ratios(plain, measures(plain, names), yes_no(body))
    found = unique(asked_first(hits, plain) if yes_no(body) else hits)
    kind = member_kind(body) if len(subjects) == 1 else None
    if kind is not None:
        return members_plan(body, kind, found, subjects[0], documents, store, decimals)
    if not found or any(unmapped_measure(plain, a, b, False) for _, _, a, b in found[:1]):
        return None  # "wages expense as a percent of net sales": a measure not catalogued
    if twice and not several:  # "Acme or ACME CORP": one company, nothing to compare
        asked = _safe_spec(body, plain, found, True)
        return stated_plan([(subjects[0], w) for _, w, _, _ in found[:6]],
                           [named_twice(subjects[0], asked_of(asked))], documents, store,
                           decimals, defs)
    try:
        read = spec_of(body, plain, found, several)
    except Unreadable as exc:  # "above 1e400%", "above 20% and below 10%": said, undecided
        pairs = [(subjects[0], w) for _, w, _, _ in found[:6]] if len(subjects) == 1 else \
            [(s, found[0][1]) for s in subjects]
        return stated_plan(pairs, [exc.said], documents, store, decimals, defs)
    own = own_measures(body, hits, subjects) if several and not absent else None
    if own is not None:  # "Acme's revenue or Birch's margin": each its own, not compared
        spec = read[0] if isinstance(read, tuple) else read
        unread = [measures_differ(own, asked_of(spec))] if spec is not None and \
            spec.kind in ("compare", "rank", "verdict") else []
        return stated_plan([(s, f[1]) for s, f in own], unread, documents, store, decimals,
                           defs)
    periods = _period_words(body)
    asks = yes_no(body)
    way = comparative_direction(plain) if not several and asks else None
    pair = _than_periods(body) if way and len(found) == 1 else []
    if pair:  # "Was its gross margin higher in Q1 FY2024 than in Q1 FY2023?"
        read = AnalysisSpec(kind="verdict", name=found[0][1],
                            test="more" if way == "higher" else "less")
    two = two_members(body, subjects[0], store, found[0][0]) if way else []
    if two:  # "Did its Cloud revenue exceed its Devices revenue?", "... grow faster than ..."
        return member_pair_plan(two, found[0][1], bool(GROWS.search(body)), subjects[0],
                                documents, store, decimals, way)
    if read is None and len(subjects) == 1 and subjects[0].qualifier:
        # one of two filers of a name, picked by its CIK or ticker: read from its filings
        return stated_plan([(subjects[0], found[0][1])], [], documents, store, decimals, defs)
    if read is None:
        return None
    spec, power = read if isinstance(read, tuple) else (read, None)
    spec.reading = reading or (f"{twice[0].company} is named twice: compared once."
                               if twice else "")
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
    if spec.kind in ("compare", "rank", "verdict"):
        spec.absent = absent
    askers = _questions(plan, several, found, words, periods, pair)
    for q, subject in zip(plan.questions, askers, strict=True):
        request = read_figure(f"{q} {defs}".strip(), documents, store, decimals, subject)
        if request is None:
            return None
        plan.requests.append(request)
    if spec.test in ("improving", "worsening", "stable") and len(periods) < 2:
        plan = over_years(plan, documents, store, decimals, words, defs)
    if spec.threshold is not None and power:
        spec.threshold = in_unit(spec.threshold * 10 ** power, plan.requests[0].unit or "")
    if several and spec.kind == "multi" and asks:  # "Did Acme (two filers) grow ...?"
        plan.unread.append("the yes / no: it is asked of " + ", ".join(
            s.label for s in subjects) + ", so each one's figure is given instead; ask of "
            "one company for its yes / no")
    return plan


def _safe_spec(body: str, plain: str, found: list, several: bool) -> AnalysisSpec | None:
    """The spec the words ask for, or None (a threshold it cannot read is said elsewhere)."""
    try:
        read = spec_of(body, plain, found, several)
    except Unreadable:
        return None
    return read[0] if isinstance(read, tuple) else read


def _questions(plan: AnalysisPlan, several: bool, found: list, words: str,
               periods: list[str], pair: list[str]) -> list[Subject]:
    """The plan's figure questions and labels by its kind; the company each question asks
    about, in order."""
    spec, subjects = plan.spec, plan.subjects
    series = spec.test in ("improving", "worsening", "stable")
    span = pair or span_of(spec, several, periods, subjects[0], found[0][0])
    if several and spec.kind in ("compare", "rank", "verdict", "multi"):
        words = growth_words(words, spec)
        plan.questions = [figure_question(s, words) for s in subjects]
        spec.labels = [s.label for s in subjects]
        return list(subjects)
    if span:
        plan.questions = [figure_question(subjects[0], words, p) for p in span]
        spec.labels = span
    elif series:
        years = periods if len(periods) > 1 else []
        plan.questions = [figure_question(subjects[0], words, p)
                          for p in years or [subjects[0].period]]
        spec.labels = years or [subjects[0].period or "latest"]
    elif spec.kind in ("multi", "compare") or spec.test in ("less", "more", "equal"):
        plan.questions = [figure_question(subjects[0], w) for _, w, _, _ in found[:6]]
        spec.labels = [w for _, w, _, _ in found[:6]]
    else:
        plan.questions = [figure_question(subjects[0], growth_words(words, spec))]
        spec.labels = [subjects[0].label]
    return [subjects[0]] * len(plan.questions)


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


def _asked_about(body: str, subjects: list[Subject]) -> str:
    """The subject a yes/no names after its verb ("Among A, B and C, was B the most ...":
    B); the first named when none follows it."""
    verb = YES_NO.match(body)
    after = verb.end() if verb else 0
    at = [(body.find(s.words, after), s.label) for s in subjects]
    found = sorted(p for p in at if p[0] >= after)
    return found[0][1] if found else subjects[0].label


def _absent(body: str, subjects: list[Subject], store
            ) -> tuple[list[str], list[Subject]]:
    """``(companies the question names that no loaded filing is of, companies it names
    twice)``; a segment of a named company ("than its Cloud segment") is none of them."""
    names, twice = named_lists(body, subjects)
    if not names or store is None:
        return names, twice
    known = {n.lower() for s in subjects
             for n in member_names(store, s.doc_ids, "revenue", s.period, None)}
    return [n for n in names if n.lower() not in known], twice


