"""A company, metric, period or form as a client writes it, resolved exactly or refused.

A tool argument is read the way the registry and the catalogue name things: a company by
its CIK, a ticker in any case, any name its filings print (suffixes and case aside), its
former names, or a name the scope resolver reads as exactly one filer ("Home Depot", "J&J");
a metric by its catalogue key, label, any of its names, or an abbreviation of the reader's
lexicon ("op margin"); a period as FY2024, 2024, FY24 or FY2024-Q1 / Q1 FY2024. Anything
else is an ``InputError`` naming the nearest names loaded: a near name is offered, never
taken (a question in words goes to ``read_question``, whose reading says each word it read
as something else).
"""

from __future__ import annotations

import re

from core.foundation.types import DocumentMeta
from core.mcp.errors import (
    InputError,
    bad_period,
    nearest,
    unknown_company,
    unknown_form,
    unknown_metric,
)
from core.metrics import Metric, catalog
from core.store.companies import Company, companies

_YEAR = r"(?P<year>\d{4}|\d{2})"
_PERIODS = (
    re.compile(rf"^(?:FY\s*'?|fiscal\s+(?:year\s+)?)?{_YEAR}(?:\s*-?\s*(?P<part>Q[1-4]))?$",
               re.I),
    re.compile(rf"^(?P<part>Q[1-4])\s*(?:of\s+)?(?:FY\s*'?|fiscal\s+(?:year\s+)?)?{_YEAR}$",
               re.I),
)
_FILLER = frozenset("the a an its their".split())


def _loaded(documents: list[DocumentMeta]) -> list[Company]:
    return [c for c in companies(documents) if c.name and c.name.lower() != "unknown"]


def shown(company: Company) -> str:
    """'ADOBE INC. (ADBE; CIK 0000796343)'."""
    tags = [", ".join(company.tickers[:2])] if company.tickers else []
    tags += [f"CIK {company.cik}"] if company.cik else []
    return f"{company.name} ({'; '.join(tags)})" if tags else company.name


def resolve_company(words: str, documents: list[DocumentMeta]) -> Company:
    """The filer ``words`` names (see the module docstring); ``InputError`` otherwise."""
    from core.analysis.subjects import short_name
    from core.ingest.cover import name_key, normal_cik
    from core.retrieval.scope import match_companies

    text = " ".join((words or "").split())
    groups = _loaded(documents)
    if not text:
        raise InputError("company is empty: give a name, ticker or CIK (list_filings lists "
                         "them).")
    digits = re.sub(r"^CIK\s*", "", text, flags=re.I)
    if digits.isdigit():
        hit = [c for c in groups if c.cik and c.cik == normal_cik(digits)]
        if hit:
            return hit[0]
    hit = [c for c in groups if text.upper() in {t.upper() for t in c.tickers}]
    if len(hit) == 1:
        return hit[0]
    key = name_key(text)
    former = {d.doc_id: d.former_names for d in documents}
    hit = [c for c in groups if key and key in {name_key(n) for n in [
        *c.names, short_name(c.name), *(f for i in c.doc_ids for f in former.get(i, []))]}]
    if not hit:
        named = {name for name, _ in match_companies(text, documents).values()}
        hit = [c for c in groups if c.name in named]
    if len(hit) == 1:
        return hit[0]
    if len(hit) > 1:  # two filers of one name, or several names: the CIK tells them apart
        raise InputError(f"{text!r} names {len(hit)} companies ({'; '.join(map(shown, hit))}"
                         "): give one per call, by its ticker or CIK.")
    by_word = {w: c for c in groups for w in [c.name, short_name(c.name), *c.names,
                                                *c.tickers[:2]]}
    near = [shown(by_word[w]) for w in nearest(text, by_word)]
    raise unknown_company(text, list(dict.fromkeys(near)), [shown(c) for c in groups])


def resolve_metric(words: str) -> Metric:
    """The catalogue metric ``words`` names (see the module docstring)."""
    from core.reading.lexicon import lexicon

    cat = catalog()
    text = " ".join((words or "").split())
    if not text:
        raise InputError("metric is empty: give a catalogue name such as 'revenue' or "
                         "'operating margin' (metrics lists them).")
    key = re.sub(r"[\s-]+", "_", text.lower())
    if key in cat.metrics:
        return cat.metrics[key]
    for rx, _typed, name in lexicon().measures:
        if rx.fullmatch(text):
            text = name
            break
    low = text.lower()
    for m in cat.metrics.values():
        if low == m.label.lower() or low in (n.lower() for n in m.names):
            return m
    hits = cat.find_metrics(text)
    if len(hits) == 1:
        rest = (text[:hits[0].start] + " " + text[hits[0].end:]).lower()
        if set(re.findall(r"[a-z0-9&%]+", rest)) <= _FILLER:
            return cat.metrics[hits[0].key]
    labels = {}
    for m in cat.metrics.values():
        for name in (m.key, m.label, *m.names):
            labels.setdefault(name, f"{m.label} ({m.key})")
    near = list(dict.fromkeys(labels[n] for n in nearest(words, labels, limit=5)))
    raise unknown_metric(words, near)


def parse_period(text: str | None) -> str | None:
    """'FY2024' or 'FY2024-Q1' for what a client wrote; None for nothing written."""
    if text is None or not str(text).strip():
        return None
    raw = " ".join(str(text).split())
    for rx in _PERIODS:
        m = rx.match(raw)
        if m:
            year = int(m.group("year"))
            year += 2000 if year < 100 else 0
            part = (m.group("part") or "").upper()
            return f"FY{year}" + (f"-{part}" if part else "")
    raise bad_period(raw)


def filing_period(doc: DocumentMeta) -> str:
    """A filing's period as periods are written here ('FY2024', 'FY2024-Q1'), or as filed."""
    from core.figures.question import doc_period

    return doc_period(doc) or doc.period or "unknown"


def form_of(doc: DocumentMeta) -> str:
    return (doc.form_type or "unknown").upper().removesuffix("/A")


def resolve_form(text: str, documents: list[DocumentMeta]) -> str:
    """The form ``text`` names among the forms loaded ('10k' -> '10-K')."""
    forms = sorted({form_of(d) for d in documents})
    want = re.sub(r"[^a-z0-9]", "", (text or "").lower())
    hit = [f for f in forms if re.sub(r"[^a-z0-9]", "", f.lower()) == want]
    if not hit:
        raise unknown_form(text, forms)
    return hit[0]


def period_label(fact) -> str | None:
    """The period a fact reports, as periods are written here (None: no fiscal year)."""
    if fact.fiscal_year is None:
        return None
    if fact.fiscal_period in ("Q1", "Q2", "Q3", "Q4"):
        return f"FY{fact.fiscal_year}-{fact.fiscal_period}"
    if fact.fiscal_period == "FY" or fact.period_type == "instant":
        return f"FY{fact.fiscal_year}"
    return None


def periods_with_figures(facts) -> list[str]:
    """The periods the entity-total facts report (fiscal years and quarters), oldest first."""
    found = {p for f in facts if not f.dims and f.metric and (p := period_label(f))}
    return sorted(found, key=lambda p: (p[2:6], p[6:]))
