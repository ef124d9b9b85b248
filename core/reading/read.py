"""Reading a question once: the analyst's words in the corpus's names, then the grammar.

1. **Words** (``normalise``): the lexicon's phrases ("how big a slice of" -> "what
   percentage of", "R&D intensity" -> "R&D as a % of revenue"), its measure words ("op
   margin" -> "operating margin"; never inside a longer catalogue name) and the companies
   (``core.reading.companies``: tickers in any case, lower-case names, typos, brands), each
   reading that changed the analyst's words kept as a ``Match``.
2. **Grammar**: the analysis reader (``core.analysis.question.parse_analysis``) and, for one
   figure, the figure reader (``core.figures.question.parse_figure_question``) read the
   normalised text; the lexicon's kind words then settle what the template words cannot: a
   difference is stated first, "weakest first" ranks lowest first, "largest operating loss"
   is the lowest operating income, "in each of the last three years" checks every year
   step.
3. **Reading**: the typed ``Reading`` of what was read (companies, measures, periods, kind,
   direction, threshold, the matches), with the plan or request the agent runs.
"""

from __future__ import annotations

import logging
import re

from core.analysis.plan import AnalysisPlan
from core.analysis.words import yes_no
from core.figures.asked import decimals_asked, periods_asked
from core.figures.model import FigureRequest
from core.foundation.types import DocumentMeta
from core.reading.companies import resolve_companies, shared_names
from core.reading.lexicon import lexicon
from core.reading.model import CompanyRef, Match, MeasureRef, Reading

log = logging.getLogger(__name__)
_NUMBER = {"two": 2, "three": 3, "four": 4, "five": 5}
_GROWTH = re.compile(r"\s+growth$")


def _inside_catalogue_name(text: str, start: int, end: int) -> bool:
    from core.metrics import find_metrics

    return any(h.start <= start and end <= h.end and (h.end - h.start) > (end - start)
               for h in find_metrics(text))


def normalise(question: str, documents: list[DocumentMeta], store=None
              ) -> tuple[str, list[Match]]:
    """``(the question in the corpus's names, each reading said)`` (step 1)."""
    lex = lexicon()
    text = " ".join(question.replace("\u2019", "'").split())
    for rx, repl in lex.phrases:
        text = rx.sub(repl, text)
    matches: list[Match] = []
    for rx, typed, name in lex.measures:
        for m in reversed(list(rx.finditer(text))):
            if _inside_catalogue_name(text, m.start(), m.end()):
                continue
            text = text[:m.start()] + name + text[m.end():]
            if typed.rstrip("s") != name.rstrip("s") and not any(
                    x.words.lower() == m.group(0).lower() for x in matches):
                matches.append(Match(words=m.group(0), read_as=name))
    text, companies = resolve_companies(text, documents, store)
    return _measures_in_lower_case(text, documents), companies + matches


def _measures_in_lower_case(text: str, documents: list[DocumentMeta]) -> str:
    """Catalogue names written in capitals ("Free Cash Flow", "SALES") in lower case, as the
    grammar reads measures (a capitalised word before a measure names a segment); company
    names are left as written."""
    from core.metrics import find_metrics
    from core.reading.companies import without_companies

    plain = without_companies(text, documents)
    for hit in find_metrics(plain):
        words = text[hit.start:hit.end]
        acronym = words.isupper() and " " not in words and \
            words.lower() not in lexicon().common  # R&D, EBIT; not SALES
        if words != words.lower() and plain[hit.start:hit.end] == words and not acronym:
            text = text[:hit.start] + words.lower() + text[hit.end:]
    return text


def _years_asked(text: str) -> int:
    m = re.search(r"\b(?:last|past|previous|prior|latest)\s+(two|three|four|five|\d)\s+"
                  r"(?:fiscal\s+)?years\b|\b(two|three|four|five|\d)\s+(?:straight|"
                  r"consecutive)\s+years\b", text, re.I)
    if not m:
        return 3
    word = (m.group(1) or m.group(2)).lower()
    return _NUMBER.get(word) or max(2, min(int(word) if word.isdigit() else 3, 10))


def _every_year(plan: AnalysisPlan, text: str, documents, store) -> AnalysisPlan:
    """A change asked "in each of the last N years": the measure in each of those years,
    every step tested (``AnalysisSpec.each``)."""
    from core.analysis.plan import figure_question, read_figure

    spec = plan.spec
    subject = plan.subjects[0]
    years = sorted(p for r in plan.requests for p in r.periods if re.fullmatch(r"FY\d{4}", p))
    if not years:
        return plan
    latest = years[-1]
    n = _years_asked(text)
    years = [f"FY{y}" for y in range(int(latest[2:]) - n + 1, int(latest[2:]) + 1)]
    words = _GROWTH.sub("", spec.name)
    questions = [figure_question(subject, words, y) for y in years]
    requests = [read_figure(q, documents, store, decimals_asked(text), subject)
                for q in questions]
    if any(r is None for r in requests):
        return plan
    up = spec.test in ("grew", "improving")
    new = spec.model_copy(update={"test": "improving" if up else "worsening", "each": True,
                                  "name": words, "labels": years})
    return AnalysisPlan(spec=new, requests=requests, questions=questions,
                        subjects=plan.subjects, unread=list(plan.unread))


def settle(plan: AnalysisPlan, text: str, documents, store) -> AnalysisPlan:
    """What the template words leave open, settled by the lexicon's kind words (step 2)."""
    lex = lexicon()
    spec = plan.spec
    several = len(plan.subjects) > 1 or len(spec.absent) > 0
    if lex.asks("difference", text) and spec.kind in ("compare", "multi", "verdict"):
        spec.difference = True
    order = lex.order(text)
    if order and spec.kind in ("rank", "compare") and (several or spec.kind == "rank"):
        spec.direction = order
        if spec.kind == "compare" and len(plan.requests) > 2:
            spec.kind = "rank"
    if spec.kind == "verdict" and spec.test in ("more", "less") and \
            len(plan.subjects) == 2 and _either(text, plan.subjects):
        # "Did A or B grow its EBIT slower?": which of the two, not yes or no
        spec.kind, spec.direction = "compare", "higher" if spec.test == "more" else "lower"
        spec.test = None
    if lex.asks("each_year", text) and spec.kind == "verdict" and len(plan.subjects) == 1 \
            and spec.test in ("grew", "declined", "improving", "worsening"):
        plan = _every_year(plan, text, documents, store)
    return plan


def _terse(text: str) -> bool:
    """A few words with no question in them ("lmt op margin fy22", "jnj net margin")."""
    from core.figures.question import _CUE, _NOT_FIGURE

    return len(text.split()) <= 8 and not _CUE.search(text) and not _NOT_FIGURE.search(text) \
        and not re.search(r"\b(?:did|does|do|was|is|were|are|has|have|which|who|whose|"
                          r"how|why|rank|compare|vs|versus|or)\b", text, re.I)


def _either(text: str, subjects) -> bool:
    """Whether the two companies are asked as alternatives ("A or B")."""
    a, b = (re.escape(x.words) for x in subjects)
    return bool(re.search(rf"{a}(?:'s)?\s+or\s+{b}|{b}(?:'s)?\s+or\s+{a}", text, re.I))


def _kind(plan: AnalysisPlan | None, request: FigureRequest | None) -> str:
    if plan is None:
        if request is None:
            return "text"
        return "share" if request.name.endswith(" share") or (
            request.member and request.unit == "percent") else "figure"
    spec = plan.spec
    if spec.kind == "verdict":
        if spec.each or spec.test in ("improving", "worsening", "stable"):
            return "trend"
        return "difference" if spec.difference else "verdict"
    if spec.kind in ("compare", "rank"):
        if spec.difference and spec.kind == "compare":
            return "difference"
        if len({r.member for r in plan.requests}) > 1:
            return "members"
        return "growth_compare" if "growth" in spec.name and spec.kind == "compare" \
            else spec.kind
    if spec.kind == "multi" and len(plan.requests) == 1:  # one figure stated, nothing decided
        return "figure"
    if spec.kind == "multi":
        return "difference" if spec.difference else "figures"
    return spec.kind


def reading_of(question: str, text: str, matches: list[Match], plan: AnalysisPlan | None,
               request: FigureRequest | None) -> Reading:
    """The typed reading of what the grammar read (step 3)."""
    reading = Reading(question=question, text=text, kind=_kind(plan, request),
                      matches=matches)
    if plan is not None:
        spec = plan.spec
        periods = [r.periods[-1] if r.periods else "" for r in plan.requests]
        for k, s in enumerate(plan.subjects):
            period = s.period or (periods[k] if k < len(periods) and len(plan.subjects) > 1
                                  else "")
            cik = s.qualifier[4:] if s.qualifier.startswith("CIK ") else ""
            reading.companies.append(CompanyRef(name=s.company, words=s.label, cik=cik,
                                                doc_ids=list(s.doc_ids), period=period))
        members = list(dict.fromkeys(r.member for r in plan.requests if r.member))
        name = _GROWTH.sub(" growth", spec.name)
        reading.measures = [MeasureRef(name=name, metric=plan.requests[0].metric if
                                       plan.requests else None,
                                       member=members[0] if len(members) == 1 else None)]
        if spec.kind == "multi" and len(plan.subjects) > 1 and \
                len({r.metric for r in plan.requests}) > 1:  # each company its own measure
            reading.measures = list({r.metric: MeasureRef(name=r.name, metric=r.metric)
                                     for r in plan.requests}.values())
        reading.direction = spec.direction if spec.kind in ("compare", "rank") else None
        reading.test, reading.threshold = spec.test, spec.threshold
        reading.each_year, reading.absent = spec.each, list(spec.absent)
        reading.periods = periods_asked(text)
    elif request is not None:
        reading.measures = [MeasureRef(name=request.name, metric=request.metric,
                                       member=request.member)]
        reading.periods = periods_asked(text)
        reading.companies = [CompanyRef(name=c, doc_ids=list(request.doc_ids),
                                        period=request.periods[-1] if request.periods
                                        else "") for c in request.companies]
    return reading


def read_question(question: str, documents: list[DocumentMeta], store=None, *,
                  embedder=None) -> tuple[Reading, AnalysisPlan | None, FigureRequest | None]:
    """``(reading, analysis plan or None, figure request or None)`` of ``question``: one
    of the two is set when figures answer it, neither for a text question. ``embedder``:
    the bundled model, for a measure the catalogue does not name (``nearest_measure``)."""
    from core.figures.formula import FormulaError
    from core.figures.question import parse_figure_question
    from core.reading.nearest import nearest_measure

    text, matches = normalise(question, documents, store)
    plan = request = None
    try:
        plan = read_analysis(text, documents, store) if store is not None else None
        if plan is None:
            request = parse_figure_question(text, documents, store)
    except (ValueError, KeyError, IndexError, FormulaError) as exc:  # never ends a run
        log.warning("reading failed (%s): read as a text question", exc)
        plan = request = None
    if plan is None and request is None and store is not None and _terse(text):
        asked = f"What was {text.rstrip('?. ')}?"
        try:  # "lmt op margin fy22": a figure asked in a few words, no verb
            plan = read_analysis(asked, documents, store)
            request = None if plan is not None else parse_figure_question(asked, documents,
                                                                          store)
        except (ValueError, KeyError, IndexError, FormulaError):
            plan = request = None
        if plan is not None or request is not None:
            text = asked  # what the planner reads again
    unread: list[str] = []
    near: list[str] = []
    if plan is None and request is None and store is not None:
        again = nearest_measure(text, documents, embedder, matches, unread, near)
        if again is not None:
            text = again
            try:
                plan = read_analysis(text, documents, store)
                request = parse_figure_question(text, documents, store) if plan is None \
                    else None
            except (ValueError, KeyError, IndexError, FormulaError):
                plan = request = None
    if plan is None and request is not None and not request.companies and store is not None:
        everyone = _every_company(text, request, documents, store)
        if everyone is not None:
            who = f"the companies that report {request.member}" if request.member else \
                "every company loaded"
            plan, request = everyone, None
            matches.append(Match(words="", read_as=who, how="no company named"))
            if yes_no(text):
                unread.append("the yes / no: the question names no company, so each "
                              "company's figures are given instead")
    if plan is None and request is not None:
        request = _own_filer(request, text, documents)
    reading = reading_of(question, text, matches, plan, request)
    reading.matches += shared_names(text, documents)
    unread += plan.unread if plan is not None else []
    reading.unread, reading.nearest = unread + _not_read(text, reading), near
    if not reading.figures:  # the companies named (and the analyst's correction)
        from core.reading.edit import company_choices
        from core.retrieval.scope import match_companies

        ids = {i for _, found in match_companies(text, documents).values() for i in found}
        reading.companies = [ref for ref in company_choices(documents).values()
                             if ids & set(ref.doc_ids)]
    _with_ciks(reading, documents)
    return reading, plan, request


def _with_ciks(reading: Reading, documents) -> None:
    """Each company's CIK from its filings, however it was named (a ticker, a typo): it was
    said only where two filers share a name."""
    ciks = {d.doc_id: d.cik for d in documents if getattr(d, "cik", None)}
    for ref in reading.companies:
        found = {ciks[i] for i in ref.doc_ids if i in ciks}
        if not ref.cik and len(found) == 1:
            ref.cik = found.pop()


def _own_filer(request: FigureRequest, text: str, documents) -> FigureRequest:
    """A figure of the one company the question names, read from that filer's filings only
    (a name another filer shares, picked by its CIK or ticker: "Acme (CIK 0000123456)")."""
    from core.analysis.subjects import subjects_named

    named = subjects_named(text, documents)
    if len(named) != 1 or not set(request.doc_ids) - set(named[0].doc_ids):
        return request
    own = [i for i in request.doc_ids if i in named[0].doc_ids] or list(named[0].doc_ids)
    return request.model_copy(update={"doc_ids": own})


def _every_company(text: str, request: FigureRequest, documents, store
                   ) -> AnalysisPlan | None:
    """A figure asked of no company while several are loaded: that figure of each of them
    (never one company's taken for all)."""
    from core.analysis.subjects import corpus_subjects
    from core.reading.requests import plan_from_reading

    everyone = corpus_subjects(documents, store)
    if len(everyone) < 2 or not request.metric or request.aggregate not in (
            "value", "formula", "change", "pct_change"):
        return None
    if request.member:  # a segment named with no company: the companies that report it
        from core.figures.segments import companies_of_member

        owners = {o.company for o in companies_of_member(store, request.member)}
        everyone = [s for s in everyone if s.company in owners] or everyone
        if len(everyone) < 2:
            return None
    change = request.aggregate in ("change", "pct_change")
    reading = Reading(question=text, kind="figures", test="grew" if change else None,
                      periods=[p for p in periods_asked(text) if not change or
                               p == request.periods[-1]],
                      companies=[CompanyRef(name=s.company, words=s.words,
                                            doc_ids=list(s.doc_ids)) for s in everyone],
                      measures=[MeasureRef(name=request.name, metric=request.metric,
                                           member=request.member)])
    made = plan_from_reading(reading, documents)
    return made if isinstance(made, AnalysisPlan) else None


def _not_read(text: str, reading: Reading) -> list[str]:
    """Parts the words ask for that the reading does not hold (said as not answered, never
    swapped for another question's result)."""
    if not reading.figures:
        return []
    lex, out = lexicon(), []
    name = " ".join(m.name for m in reading.measures)
    if lex.asks("difference", text) and reading.kind not in ("difference", "verdict",
                                                             "figures", "trend"):
        out.append("the difference asked")
    if lex.asks("growth_compare", text) and "growth" not in name and \
            reading.kind in ("compare", "rank", "figures"):
        out.append("growth compared (the figures compared are not growth)")
    if lex.asks("each_year", text) and not reading.each_year and reading.kind in (
            "verdict", "trend"):
        out.append("every year (only the latest change is tested)")
    return out


def read_analysis(question: str, documents: list[DocumentMeta], store
                  ) -> AnalysisPlan | None:
    """The analysis ``question`` asks for, read as ``read_question`` reads it (None: a plain
    figure or text question)."""
    from core.analysis.question import parse_analysis

    text, _ = normalise(question, documents, store)
    plan = parse_analysis(text, documents, store)
    if plan is None:
        return None
    plan = settle(plan, text, documents, store)
    if lexicon().asks("growth_compare", text) and plan.spec.kind in ("compare", "rank") and \
            "growth" not in plan.spec.name and not any(r.member for r in plan.requests):
        # "who grew revenue the fastest": growth compared, made again from the slots
        reading = reading_of(question, text, [], plan, None)
        reading.kind = "growth_compare"
        from core.reading.requests import plan_from_reading

        again = plan_from_reading(reading, documents)
        if isinstance(again, AnalysisPlan):
            again.spec.kind, again.spec.absent = plan.spec.kind, plan.spec.absent
            return again
    return plan


def read_plans(question: str, documents: list[DocumentMeta], store=None, *,
               embedder=None) -> tuple[Reading, list[AnalysisPlan], FigureRequest | None]:
    """``read_question`` with every measure and every fiscal year asked of several
    companies, one analysis each (``core.reading.several``): "Compare A and B on operating
    and net margins", "... in FY2024 and FY2023, A or B?"."""
    from core.reading.several import more_plans

    reading, plan, request = read_question(question, documents, store, embedder=embedder)
    if plan is None:
        return reading, [], request
    return reading, [plan, *more_plans(reading, plan, documents)], None
