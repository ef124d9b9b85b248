"""Reading a figure question into a ``FigureRequest``.

1. Definitions the question gives ("X is defined as: ...", "Define X as ...", "X here is
   defined as ...", "X = ...") are read into formulas (``core.figures.phrases``); a defined
   name the catalogue knows ("DPO", "working capital ratio") takes the question's formula
   in place of the catalogue's, at every level ("CCC is defined as DIO + DSO - DPO. DIO is
   defined as ...").
2. The asked sentence (the one with the question) without its company names, periods and
   parenthetical asides gives the metric: catalogue names and defined names, longest first;
   metrics joined by operator words ("EBITDA less capex", "COGS as a % of revenue") make a
   formula; otherwise the first metric named is the one asked.
3. Aggregate, periods, unit and rounding come from ``core.figures.asked``; the formula is
   bound to absolute periods and expanded down to looked-up metrics.

A question asking for no figure ("What drove the margin change?", no metric named) gives
None.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from core.figures.asked import (
    aggregate_asked,
    assemble,
    decimals_asked,
    expand_range,
    periods_asked,
    unit_asked,
    years_span,
)
from core.figures.clauses import own_clause
from core.figures.dated import dated_periods
from core.figures.definitions import definition, expand, read_definitions
from core.figures.formula import (
    BinOp,
    FormulaError,
    Node,
    Ref,
    render,
)
from core.figures.model import FigureRequest
from core.figures.phrases import Names, percent_of, read_expression
from core.figures.precision import (
    asks_category,
    not_reported,
    share_numerator,
    share_of_period,
    span_not_read,
    times_of_an_amount,
    two_compared,
    unmapped_measure,
)
from core.figures.segments_asked import named_member, of_member, without_member
from core.figures.units import default_decimals, fits_unit, natural_unit
from core.foundation.types import DocumentMeta
from core.retrieval.scope import match_companies, resolve_scope

_SENTENCE = re.compile(r"(?<=[.?!])\s+(?=[A-Z(\[])|(?<=\?)\s*")
_CUE = re.compile(r"\b(?:what|how\s+much|how\s+many|calculate|compute|determine|find|give|"
                  r"state|report|how\s+(?:did|has|have|does|do)\b.*\b(?:change|trend|"
                  r"evolve|fluctuate|grow|compare))", re.I)
_NOT_FIGURE = re.compile(r"\b(?:why|drove|drive[sn]?|driver|drivers|reasons?|explain|"
                         r"describe|caused?|factors?|strateg\w*|risks?|discuss\w*)\b", re.I)
_PERIOD_WORDS = re.compile(
    r"\b(?:year[\s-]+end(?:ed|ing)?|at\s+the\s+end\s+of|end\s+of|as\s+of|for|in|during|of)?"
    r"\s*(?:(?:Q[1-4]\s*(?:of\s+)?)?(?:FY\s*['\u2019]?|fiscal\s+(?:year\s+)?)\d{2,4}"
    r"(?:\s*-?\s*Q[1-4])?|(?<![\d$.,])(?:19|20)\d\d(?!\d|,\d))", re.I)
_PAREN = re.compile(r"\([^()]*\)|\[[^\]]*\]")
_SEGMENT_WORDS = (r"(?:segments?|business(?:es)?|divisions?|products?|services|offerings?|"
                  r"devices?|regions?|launch(?:es)?|lines?|brands?|sales|group|units?)")
_QUALIFIED_AFTER = re.compile(rf"\s*(?:(?:was|were|is|are)\s+)?"
                              rf"(?:generated\s+|earned\s+|derived\s+|contributed\s+)?"
                              rf"(?:from|of|by|in|for)\s+(?:its\s+|the\s+|their\s+)?"
                              rf"(?:[\w&-]+\s+){{0,4}}?{_SEGMENT_WORDS}\b", re.I)
_PARTS = re.compile(r"\b(?:segments?|divisions?|product\s+(?:lines?|categor(?:y|ies)))\b",
                    re.I)
_PLAIN_WORDS = frozenset("""what how which did does do has have is was were in for from by the
    total net our its their please calculate compute determine find according based and of
    a an to at as on with""".split())
_SERIES = re.compile(r"\b(?:over\s+time|over\s+(?:the\s+|these\s+)?(?:reported\s+|past\s+|"
                     r"last\s+)?(?:quarters|periods|years)|across\s+(?:the\s+|these\s+)?"
                     r"(?:reported\s+)?(?:quarters|periods|years)|these\s+quarters|quarter\s+"
                     r"to\s+quarter|each\s+(?:reported\s+)?(?:period|quarter)|trend(?:s|ed)?|"
                     r"historical\s+periods|reported\s+(?:quarters|periods))\b", re.I)
_GAP_OK = re.compile(r"^\s*(?:(?:expenses?|spending|spend|costs?|outlays?|amounts?)\s+)?"
                     r"(?:[-+*/]|(?:as\s+an?\s+)?(?:%|percent(?:age)?|share|proportion|"
                     r"fraction)\s+of|divided\s+by|relative\s+to|less|minus|plus|times|over|"
                     r"to)\s*(?:the\s+|its\s+|total\s+)?$", re.I)


def _sentences(question: str) -> list[str]:
    text = " ".join(question.replace("\u2019", "'").split())
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def _asked_sentence(sentences: list[str]) -> str | None:
    plain = [s for s in sentences if not definition(s)] or sentences
    for test in (lambda s: s.endswith("?") and _CUE.search(s), lambda s: s.endswith("?"),
                 lambda s: _CUE.search(s)):
        found = [s for s in plain if test(s)]
        if found:
            return found[0]
    return None


# "How much cash did <company> generate from operating activities": the verb between the
# measure's words ("cash ... from operating activities") is not part of its name.
_DID_VERB = re.compile(r"\b(?:did|does|do)\s+(?=\s*(?:generate|produce)\b)|(?<=\s)(?:generate|"
                       r"produce)\s+(?=from\s)", re.I)


def _strip_for_metric(sentence: str, companies: list[str]) -> str:
    """The asked sentence without company names, periods and asides, same length (blanks)
    so offsets hold."""
    out = sentence
    for raw in sorted(companies, key=len, reverse=True):
        out = re.sub(rf"{re.escape(raw)}(?:'s|'|s')?", lambda m: " " * len(m.group(0)), out)
    out = _PAREN.sub(lambda m: " " * len(m.group(0)), out)
    out = _DID_VERB.sub(lambda m: " " * len(m.group(0)), out)
    return _PERIOD_WORDS.sub(lambda m: " " * len(m.group(0)), out)


def _qualified(text: str, start: int, end: int) -> bool:
    """Whether the metric named at ``text[start:end]`` is a part's ("Data Center segment
    revenue", "revenue from iPhone sales"), not the entity's."""
    text, start, end = own_clause(text, start, end)
    if _QUALIFIED_AFTER.match(text[end:]) or _PARTS.search(text):
        return True
    words = text[:start].split()
    if len(words) < 2:
        return False
    last = words[-1].strip(",;:")
    if re.fullmatch(_SEGMENT_WORDS, last, re.I):
        return True
    return any(ch.isupper() for ch in last) and last.lower() not in _PLAIN_WORDS


def _asked_metric(text: str, names: Names) -> tuple[Node, str, int, int] | None:
    """``(node with period t, words used, start, end)`` for the metric(s) asked."""
    found = names.find(text)
    if not found:
        return None
    group = [found[0]]
    for hit in found[1:]:
        if _GAP_OK.match(text[group[-1][2]:hit[1]]):
            group.append(hit)
        else:
            break
    start, end = group[0][1], group[-1][2]
    words = " ".join(text[start:end].split())
    if len(group) == 1:
        return Ref(group[0][0], "t"), words, start, end
    # "the ratio of net income to revenue": "to" between two metrics divides.
    span = "".join(text[a:b] if i == 0 else
                   re.sub(r"^\s*to\s*$", " / ", text[group[i - 1][2]:a]) + text[a:b]
                   for i, (_, a, b) in enumerate(group))
    try:
        return read_expression(span, names), words, start, end
    except FormulaError:
        return Ref(group[0][0], "t"), " ".join(text[group[0][1]:group[0][2]].split()), \
            start, group[0][2]


def _refined(asked: str, found: tuple[Node, str, int, int], sentences: list[str],
             companies: list[str], names: Names) -> tuple[str, str, tuple] | None:
    """An instruction beside the question naming a more specific metric than the asked
    sentence ("... sold its inventory? Calculate the inventory turnover ratio") takes its
    place: ``(sentence, stripped, found)``, or None."""
    node, words = found[0], found[1].lower()
    if not isinstance(node, Ref):
        return None
    for s in sentences:
        if s == asked or definition(s) or not _CUE.search(s):
            continue
        stripped = _strip_for_metric(s, companies)
        other = _asked_metric(stripped, names)
        if other and isinstance(other[0], Ref) and other[0].metric != node.metric and \
                re.search(rf"(?<![a-z0-9]){re.escape(words)}(?![a-z0-9])", other[1].lower()):
            return s, stripped, other
    return None


def doc_period(doc: DocumentMeta) -> str | None:
    """A filing's period as a formula period: 'FY2023', 'FY2024-Q1'; a 10-Q known only by
    its end date gets the calendar quarter of it (the look-up reads the filing's own
    fiscal quarter from its facts)."""
    m = re.fullmatch(r"(?:FY)?(\d{4})(?:-?(Q[1-4]))?", doc.period or "")
    if m:
        return f"FY{m.group(1)}" + (f"-{m.group(2)}" if m.group(2) else "")
    m = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", doc.period or "")
    if m:
        mid = date(*map(int, m.groups())) - timedelta(days=45)
        return f"FY{mid.year}-Q{(mid.month - 1) // 3 + 1}"
    return None


def _scope_periods(doc_ids: list[str], documents: list[DocumentMeta]) -> list[str]:
    """The periods of the filings in scope, oldest first."""
    docs = [d for d in documents if not doc_ids or d.doc_id in doc_ids]
    dated = sorted(((d.period_end or d.period or "", p) for d in docs
                    if (p := doc_period(d))), key=lambda x: x[0])
    return list(dict.fromkeys(p for _, p in dated))


def _latest_period(doc_ids: list[str], documents: list[DocumentMeta]) -> str | None:
    periods = _scope_periods(doc_ids, documents)
    return periods[-1] if periods else None


def _periods(text: str, documents: list[DocumentMeta], store) -> list[str]:
    """The periods ``text`` names: those named by an end date or as a part of a year on the
    filers' own calendar (``dated``), and the others as ``periods_asked`` reads them."""
    dated = dated_periods(text, documents, store)
    for a, b, _ in dated:
        text = text[:a] + " " * (b - a) + text[b:]
    labels = {label for _, _, label in dated} | set(periods_asked(text))
    return sorted(labels, key=lambda s: (int(s[2:6]), s))


def parse_figure_question(question: str, documents: list[DocumentMeta], store=None
                          ) -> FigureRequest | None:
    """The figure ``question`` asks for, or None when it asks for none (module docstring)."""
    sentences = _sentences(question)
    asked = _asked_sentence(sentences)
    if asked is None or _NOT_FIGURE.search(asked) or asks_category(asked):
        return None
    defs, names, definitions = read_definitions(sentences)
    companies = list(match_companies(question, documents)) if documents else []
    stripped = _strip_for_metric(asked, companies)
    found = _asked_metric(stripped, names)
    if found is None:
        return None
    refined = _refined(asked, found, sentences, companies, names)
    if refined:
        asked, stripped, found = refined
    node, words, start, end = found
    qualified = _qualified(stripped, start, end)
    if unmapped_measure(stripped, start, end, not isinstance(node, Ref)) or \
            not_reported(names.blank(stripped)):
        return None  # a measure the catalogue cannot map, or not a reported GAAP figure
    part = share_numerator(stripped, start, end, names.find) if isinstance(node, Ref) \
        else None
    scope = resolve_scope(question, documents) if documents else None
    doc_ids = list(scope.doc_ids or []) if scope else []
    member = named_member(stripped, start, end, qualified or part == "", store, doc_ids,
                          node.metric if isinstance(node, Ref) else None, asked)
    if member is None and (qualified or part == ""):
        # a part's figure ("Data Center segment revenue") no member of the filings names,
        # or "what percent of revenue ..." with no part named: never the entity total
        return None
    if member is not None:
        node, words = of_member(node, words, member, share=part == "")
    elif part:  # "what percentage of revenue went to R&D": R&D / revenue
        from core.metrics import get_metric

        share_of = get_metric(part).label if get_metric(part) else part
        node, words = BinOp("/", Ref(part, "t"), node), f"{share_of} as a % of {words}"
    margin = re.match(r"\s*%?\s*margin\b", stripped[end:], re.I)
    if margin and isinstance(node, Ref) and natural_unit(node, "value", False) == \
            "USD millions":
        # "COGS % margin", "SG&A margin": the line as a share of revenue.
        node = BinOp("/", node, Ref("revenue", "t", node.member))
        words = f"{words} % margin"
        end += margin.end()
    percent = unit_asked(question) == "percent" or percent_of(stripped[start:end]) or \
        bool(margin) or bool(part) or (member is not None and part == "")
    amount = natural_unit(node, "value", False, defs).startswith("USD")
    if times_of_an_amount(asked, natural_unit(node, "value", False, defs)):
        return None  # "how many times": a turnover, not the balance
    money_asked = (unit_asked(question) or "").startswith("USD")
    read = without_member(stripped, start, end, member) if member else (stripped, start, end)
    aggregate = aggregate_asked(*read, percent, amount, money_asked)
    in_scope = [d for d in documents if not doc_ids or d.doc_id in doc_ids]
    periods = _periods(asked, in_scope, store) or _periods(
        " ".join(s for s in sentences if s not in definitions), in_scope, store)
    if share_of_period(asked, periods) or span_not_read(asked, periods) or \
            two_compared(asked):
        return None  # a part of a year or a span not read; two growths compared
    if _SERIES.search(asked) and len(_scope_periods(doc_ids, documents)) > 1:
        periods = _scope_periods(doc_ids, documents)
    if not periods:
        latest = _latest_period(doc_ids, documents)
        periods = [latest] if latest else ["t"]
    periods = expand_range(asked, periods, aggregate, years_span(asked))
    if aggregate == "compare":
        aggregate = "value"
    used: set[str] = set()
    try:
        formula = expand(assemble(node, aggregate, periods), defs, used)
    except FormulaError:
        return None
    metric = node.metric if isinstance(node, Ref) else None
    unit = unit_asked(question)
    natural = natural_unit(node, aggregate, percent, defs)
    if unit is None or fits_unit(formula, unit, defs):
        unit = natural
    decimals = decimals_asked(question)
    if decimals is None:
        decimals = default_decimals(metric, unit)
    if any(u.startswith("question:") for u in used) or not isinstance(node, Ref):
        source = "question"
    elif used:
        source = "catalogue"
    else:
        source = "lookup"
    return FigureRequest(
        name=words, metric=metric, formula=render(formula), formula_source=source,
        periods=[p for p in periods if p != "t"],
        aggregate="formula" if aggregate == "value" and not isinstance(formula, Ref) else
        aggregate,
        unit=unit, decimals=decimals, companies=list(scope.companies) if scope else [],
        doc_ids=doc_ids, definition=" ".join(definitions),
        fiscal_quarters=fiscal_quarters(question),
        member=member.name if member is not None else None)


_FORMULA_QUARTER = re.compile(r"\bFY\d{4}-Q[1-4]\b")


def fiscal_quarters(text: str) -> bool:
    """Whether every quarter ``text`` names is named as fiscal ("Q1 FY2023", "the first
    quarter of fiscal 2024"). A formula's label ("FY2023-Q1", as plan steps write their
    periods) says nothing of how the question named it, so it is no fiscal name."""
    from core.retrieval.scope import question_periods

    quarters = [p for p in question_periods(_FORMULA_QUARTER.sub(" ", text))[0] if p.quarter]
    return bool(quarters) and all(p.fiscal for p in quarters)
