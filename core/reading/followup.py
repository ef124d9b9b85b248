"""A follow-up question read against the question before it ("and AMD?", "what about 2023?",
"rank them by net margin instead"): the slots it names replace the previous reading's, the
rest are carried over, and the result is one standalone question the agent runs as any other.

``follow_up`` decides whether the words are a follow-up at all (a cue such as "and", "what
about", "instead", "them", or a figure question missing the companies or the measure the
previous one named), merges the slots (companies named replace the previous ones, or join
them after "and" / "also" when the previous question compared several; a measure, period,
direction or kind named replaces the previous one), and writes the standalone question:
the previous question's own words with the changed names put in when only names change,
else the slots in plain words (``core.reading.requests.asked``). The standalone question is
read again and ``checked`` says whether it reads as the merged slots.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.foundation.types import DocumentMeta
from core.reading.lexicon import lexicon
from core.reading.model import CompanyRef, MeasureRef, Reading

_CUE = re.compile(r"^\s*(?:and|also|plus|what\s+about|how\s+about|same\s+(?:for|with)|now|"
                  r"then|ok(?:ay)?|instead|but|what\s+if|for)\b", re.I)
_REFER = re.compile(r"\b(?:them|they|those|these|both|their|it|its|the\s+same|instead|"
                    r"that\s+one|each\s+of\s+them|all\s+of\s+them)\b", re.I)
_ADD = re.compile(r"^\s*(?:and|also|plus|add(?:ing)?|include|with)\b", re.I)
_RANK = re.compile(r"\b(?:rank|ranked|ranking|order|sort|sorted)\b", re.I)
_COMPARE = re.compile(r"\b(?:which|who|whose)\b.*\b(?:higher|lower|more|less|better|worse|"
                      r"bigger|larger|smaller)\b|\bcompare\b|\bvs\.?\b|\bversus\b", re.I)
_BACK = re.compile(r"\b(?:the\s+(?:year|fiscal\s+year)\s+before|(?:a|one)\s+year\s+"
                   r"(?:earlier|before)|prior\s+(?:fiscal\s+)?year|previous\s+(?:fiscal\s+)?"
                   r"year|last\s+year)\b", re.I)
_YEAR = re.compile(r"(?<![\w-])(?:(?:in|for|during)\s+)?(?:(?:fiscal|FY)(?:\s+year)?\s*'?)?"
                   r"(?:19|20)\d{2}(?![\w-])|(?<![\w-])FY\s?'?\d{2}(?![\w-])", re.I)
_SHORT = 9
"""Words at most in a follow-up that carries a slot without a cue ("Alphabet's?")."""


@dataclass
class FollowUp:
    """The question to run and what it took from the previous one."""

    question: str
    is_follow_up: bool = False
    previous: str = ""
    carried: list[str] = field(default_factory=list)
    checked: bool = True
    """Whether ``question`` reads as the merged slots (said when it does not)."""

    def summary(self) -> str:
        """>>> FollowUp("q", True, "Which is higher?", ["operating margin"]).summary()
        "Follow-up of 'Which is higher?': carried operating margin."
        """
        if not self.is_follow_up:
            return ""
        took = f": carried {', '.join(self.carried)}" if self.carried else ""
        return f"Follow-up of '{self.previous}'{took}."


@dataclass
class _Said:
    """What the follow-up's own words name."""

    companies: list[tuple[str, str]]
    """(words as typed, the registry's name)."""
    measures: list[MeasureRef]
    periods: list[str]
    kind: str | None
    direction: str | None


def _said(text: str, documents: list[DocumentMeta], store) -> tuple[_Said, str]:
    from core.analysis.measures import measures, unique
    from core.figures.asked import periods_asked
    from core.figures.phrases import Names
    from core.metrics import get_metric
    from core.reading.read import normalise
    from core.retrieval.scope import match_companies

    norm, _ = normalise(text, documents, store)
    named = [(raw, shown) for raw, (shown, _) in match_companies(norm, documents).items()]
    named.sort(key=lambda rs: norm.find(rs[0]))
    found = []
    for key, *_ in unique(measures(norm, Names())):
        entry = get_metric(key)
        if entry is not None:
            found.append(MeasureRef(name=entry.label, metric=key))
    lex = lexicon()
    kind = "difference" if lex.asks("difference", norm) else \
        "growth_compare" if lex.asks("growth_compare", norm) else \
        "rank" if _RANK.search(norm) else "compare" if _COMPARE.search(norm) else None
    return _Said(named, found, periods_asked(norm), kind, lex.order(norm)), norm


def _back_one(prev: Reading, documents: list[DocumentMeta]) -> list[str]:
    """The year before the previous question's period ('FY2024' -> 'FY2023'; a quarter
    keeps its quarter), or before its companies' latest fiscal year when it named none."""
    periods = prev.periods
    if not periods:
        ids = {i for c in prev.companies for i in c.doc_ids}
        years = [d.period for d in documents if d.doc_id in ids and d.form_type == "10-K"
                 and re.fullmatch(r"FY\d{4}", d.period or "")]
        periods = [max(years)] if years else []
    return [f"FY{int(p[2:6]) - 1}{p[6:]}" for p in periods if re.match(r"FY\d{4}", p)]


def _is_follow_up(text: str, said: _Said, prev: Reading) -> bool:
    if _CUE.search(text) or _REFER.search(text) or _BACK.search(text):
        return True
    short = len(text.split()) <= _SHORT
    lacks_company = not said.companies and bool(prev.companies)
    lacks_measure = not said.measures and bool(prev.measures)
    return short and (lacks_company or (lacks_measure and prev.figures))


def _companies(said: _Said, prev: Reading, text: str, documents
               ) -> tuple[list[CompanyRef], bool, str | None]:
    """The merged companies, whether they were carried, and the kind they make: one
    company named after several compared joins them ("and C?", "what about C?"), or, when
    it was among them, asks its own figure; a ranking or comparison carried from one
    company ranks every company loaded."""
    from core.reading.edit import company_choices, refs_named

    choices = company_choices(documents)
    if not said.companies:
        if said.kind in ("rank", "compare") and len(prev.companies) < 2 and len(choices) > 1:
            return [c.model_copy(update={"how": "all"}) for c in choices.values()], False, \
                None
        return list(prev.companies), True, None
    new = [CompanyRef(**{**ref.model_dump(), "words": raw}) for raw, shown in said.companies
           for ref in refs_named(choices, shown) or [CompanyRef(name=shown)]]
    if len(prev.companies) > 1 and (len(new) == 1 or _ADD.search(text)):
        have = {c.name for c in prev.companies}
        if len(new) == 1 and new[0].name in have and not _ADD.search(text):
            return new, False, "figure"
        return list(prev.companies) + [c for c in new if c.name not in have], False, None
    return new, False, None


def _substituted(prev: Reading, merged: Reading, said: _Said, documents) -> str | None:
    """The previous question's normalised words with the changed names put in; None when
    the change is more than names (a kind, a company added)."""
    from core.reading.companies import _taken

    text = prev.text or prev.question
    if merged.kind != prev.kind or merged.direction != prev.direction:
        return None
    if said.companies:
        spans = _taken(text, documents)
        distinct = list(dict.fromkeys(shown for *_, shown in spans))
        if len(distinct) != len(merged.companies) or not spans:
            return None
        to = {old: new.words or new.name
              for old, new in zip(distinct, merged.companies, strict=True)}
        for start, end, _raw, shown in sorted(spans, reverse=True):
            text = text[:start] + to[shown] + text[end:]
    if said.measures:
        if len(prev.measures) != 1 or len(said.measures) != 1:
            return None
        old = re.compile(rf"(?<!\w){re.escape(prev.measures[0].name)}(?!\w)", re.I)
        if not old.search(text):
            return None
        text = old.sub(said.measures[0].name, text, count=1)
    if merged.periods != prev.periods:
        when = merged.periods[-1]
        years = list(_YEAR.finditer(text))
        if len(years) > 1:
            return None
        if years:
            lead = "in " if re.match(r"(?:in|for|during)\b", years[0].group(0), re.I) else ""
            text = text[:years[0].start()] + f"{lead}{when}" + text[years[0].end():]
        else:
            text = re.sub(r"\s*([?.!]*)\s*$", rf" in {when}\1", text, count=1)
    return text


def _carried(prev: Reading, companies_carried: bool, said: _Said, merged: Reading
             ) -> list[str]:
    from core.reading.model import KIND_WORDS

    out = []
    if merged.measures and not said.measures:
        out.append(", ".join(m.name for m in merged.measures))
    if any(c.how == "all" for c in merged.companies):
        out.append("every company loaded (the previous question named one)")
    elif companies_carried and merged.companies:
        out.append(", ".join(c.name for c in merged.companies))
    elif len(merged.companies) > len(said.companies):  # "and C?": added to A and B
        out.append(", ".join(c.name for c in prev.companies))
    if merged.periods and merged.periods == prev.periods:
        out.append(", ".join(merged.periods))
    if merged.kind == prev.kind and not said.kind and merged.kind != "text":
        out.append(f"the question's kind ({KIND_WORDS.get(merged.kind, merged.kind)})")
    return out


def _matches(read: Reading, merged: Reading) -> bool:
    """Whether the standalone question reads as the merged slots."""
    if read.kind != merged.kind and not (read.kind in ("figure", "figures") and
                                         merged.kind in ("figure", "figures")):
        return False
    if {c.name for c in read.companies} != {c.name for c in merged.companies}:
        return False
    want = {m.metric for m in merged.measures if m.metric}
    return not want or want <= {m.metric for m in read.measures}


def follow_up(text: str, previous_question: str, documents: list[DocumentMeta], store=None
              ) -> FollowUp:
    """The standalone question ``text`` asks after ``previous_question`` (see the module
    docstring); ``FollowUp(text)`` when it is not a follow-up."""
    from core.reading.read import read_question
    from core.reading.requests import asked

    text = " ".join(text.split())
    if not previous_question.strip() or not text:
        return FollowUp(text)
    prev, _, _ = read_question(previous_question, documents, store)
    said, _norm = _said(text, documents, store)
    if not _is_follow_up(text, said, prev):
        return FollowUp(text)
    companies, carried_companies, made = _companies(said, prev, text, documents)
    periods = said.periods or (_back_one(prev, documents) if _BACK.search(text) else
                               list(prev.periods))
    kind = said.kind or made or prev.kind
    if kind == "figure" and len(companies) > 1:
        kind = "figures"
    if kind in ("compare", "difference", "growth_compare") and len(companies) > 2:
        kind = "rank" if kind == "compare" else kind
    for c in companies:  # the period asked applies to each company
        c.period = periods[-1] if periods else ""
    merged = prev.model_copy(update={
        "question": text, "kind": kind, "companies": companies,
        "measures": said.measures or list(prev.measures), "periods": periods,
        "direction": said.direction or (prev.direction if kind == prev.kind else None)})
    standalone = _substituted(prev, merged, said, documents) if not (
        len(companies) > len(prev.companies) and said.companies) else None
    if standalone is None:
        standalone = asked(merged) if merged.figures else _text_question(prev, merged)
    read, _, _ = read_question(standalone, documents, store)
    ok = _matches(read, merged) if merged.figures else True
    return FollowUp(standalone, True, previous_question,
                    _carried(prev, carried_companies, said, merged), checked=ok)


def _text_question(prev: Reading, merged: Reading) -> str:
    """A text question with other companies: the previous words, the names changed."""
    names = [c.words or c.name for c in merged.companies]
    who = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    text = prev.text or prev.question
    first = next((c.words for c in prev.companies if c.words and c.words in text), None)
    if first:
        return text.replace(first, who, 1)
    return f"{text.rstrip('?. ')} ({who})?"
