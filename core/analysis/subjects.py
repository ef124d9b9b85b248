"""The companies an analysis question is about, as the question and the registry name them.

``subjects_named`` reads the companies a question names, in its order; ``corpus_subjects``
is every company of the corpus with facts (for "which of the companies loaded"), each under
its registry name as an analyst writes it (``short_name``); ``latest_annual`` is a company's
latest fiscal year, read from its annual reports (a 10-Q is no fiscal year).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.foundation.types import DocumentMeta
from core.retrieval.scope import match_companies


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
    where the filer's name is not all capitals ("ACME TOOL CO" -> "Acme Tool", "ORBIT,
    INC." -> "Orbit", "Birch Inc." -> "Birch")."""
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


_ABBREVIATED = frozenset("inc corp co ltd plc llc lp sa ag nv bv jr sr".split())
"""Name endings written with a full stop ("Acme Inc."): kept; any other full stop ends the
sentence ("... and birch.")."""


def subjects_named(question: str, documents: list[DocumentMeta]) -> list[Subject]:
    """The companies ``question`` names, in the order it names them."""
    found = match_companies(question, documents)
    order = sorted(found, key=lambda raw: question.find(raw))
    out: list[Subject] = []
    for raw in order:
        shown, ids = found[raw]
        if not any(s.company == shown for s in out):
            last = raw.rstrip(".").split()[-1].lower() if raw.strip(". ") else ""
            words = raw.rstrip(".,;:") if raw[-2:-1].islower() or raw.endswith(
                (",", ";", ":")) or raw[:-1].isupper() or last not in _ABBREVIATED else raw
            words = re.sub(r"(?:['\u2019]s?)$", "", words) or words  # "Halfway Widgets'"
            out.append(Subject(words, shown, ids))
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


_NAME = r"[A-Z][\w&.'-]*(?:\s+(?:&\s+)?[A-Z][\w&.'-]*){0,3}"
_JOIN = r"\s*(?:,\s*(?:and|or)?|\band\b|\bor\b|\bvs\.?|\bversus\b|\bagainst\b)\s*"
_NOT_NAMES = frozenset("""Which What Who How Did Does Do Was Is Were Are Has Have Between Among
    Compare Rank Order In For During Of The Its Their FY Q1 Q2 Q3 Q4 January February March
    April May June July August September October November December""".split())


_PERIOD = re.compile(r"^(?:(?:FY|CY|Q[1-4]|H[12])?['\u2019]?\d{2,4}|Q[1-4]|H[12])[,.]?$")
"""A period written where a name could stand ("FY2022", "Q3", "2021")."""


def unloaded(body: str, subjects: list[Subject]) -> list[str]:
    """Names the question lists beside the companies it names that no loaded filing is of
    ("Acme or Zenith": Zenith), in the order written."""
    out: list[str] = []
    than = rf"\bthan\s+(?:(?:that|those)\s+of\s+)?({_NAME})"  # "more profitable than Zenith"
    for s in subjects:
        word = re.escape(s.words)
        for rx in (rf"{word}(?:'s)?{_JOIN}({_NAME})", rf"({_NAME}){_JOIN}{word}", than):
            for m in re.finditer(rx, body):
                words = re.sub(r"(?:'s|')$", "", m.group(1)).strip(" .,").split()
                while words and (words[0] in _NOT_NAMES or _PERIOD.match(words[0])):
                    words.pop(0)
                while words and _PERIOD.match(words[-1]):
                    words.pop()
                name = " ".join(words)
                if not name or any(name in t.words or t.words in name for t in subjects):
                    continue
                if name not in out:
                    out.append(name)
    return out
