"""Which filings a question is about: the companies and periods it names, resolved against
the corpus's documents, so a search over many filings reads the right ones.

1. Companies: every document's aliases (``core.retrieval.names``: company and former
   names, initialisms, ticker, file name) are matched against the question's words. The
   scope is every document of the companies named; none named means no company scope.
2. Periods, within those documents: "FY2018", "fiscal 2018", "Q2 of FY2024", "2023 Q3",
   "second quarter of 2023", a bare year, or "most recent" / "latest". A document matches a
   period through its registry period ("FY2018", "2024-Q1"), its period end date, or the
   year and quarter in its file name. When some documents match, the scope narrows to them;
   when none does, it stays with all the company's documents (a question about FY2019 may
   be answered by a later filing's comparative columns). "Latest" picks each company's
   document with the latest period end.

The result says what was matched and why, so the UI and the CLI can show the filter
applied; a caller that passes explicit documents skips all of this.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from core.foundation.types import DocumentMeta
from core.retrieval.names import aliases_for, allows, question_spans

_QUARTER_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2,
                  "3rd": 3, "4th": 4}
_Q_BEFORE = re.compile(r"\bQ([1-4])\s*(?:of\s+)?(?:FY|fiscal(?:\s+year)?)?\s*['\u2019]?"
                       r"(\d{4}|\d{2})\b", re.I)
_Q_AFTER = re.compile(r"\b(?:FY\s*)?(\d{4})\s*-?\s*Q([1-4])\b", re.I)
_Q_WORDS = re.compile(r"\b(first|second|third|fourth|1st|2nd|3rd|4th)\s+(?:fiscal\s+)?quarter"
                      r"\s+(?:of\s+)?(?:fiscal\s+(?:year\s+)?|FY\s*)?(\d{4})\b", re.I)
_FY = re.compile(r"\b(?:FY\s*['\u2019]?|fiscal\s+(?:year\s+)?)(\d{4}|\d{2})\b", re.I)
_YEAR = re.compile(r"(?<![\d$.,])((?:19|20)\d\d)(?!\d|,\d)")
_LATEST = re.compile(r"\b(?:most\s+recent|latest|last|newest|current)\b", re.I)
_FILE_YQ = re.compile(r"((?:19|20)\d\d)\s*[_\- ]?\s*Q([1-4])|Q([1-4])\s*[_\- ]?((?:19|20)\d\d)",
                      re.I)
_FILE_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")


@dataclass(frozen=True)
class Period:
    """A period a question names: a year and, for quarters, its number."""

    year: int
    quarter: int | None = None

    def __str__(self) -> str:
        return f"Q{self.quarter} {self.year}" if self.quarter else f"FY{self.year}"


@dataclass
class Scope:
    """The documents a question is about, and how that was decided."""

    doc_ids: list[str] | None = None
    companies: list[str] = field(default_factory=list)
    periods: list[str] = field(default_factory=list)
    reason: str = "no company in the corpus is named: all filings searched"


def _year(text: str) -> int:
    y = int(text)
    return y + 2000 if y < 100 else y


def question_periods(question: str) -> tuple[list[Period], bool]:
    """``(periods named, asks for the latest)``."""
    found: list[Period] = []
    spans: list[tuple[int, int]] = []
    for rx, yq in ((_Q_BEFORE, (2, 1)), (_Q_AFTER, (1, 2)), (_Q_WORDS, (2, 1))):
        for m in rx.finditer(question):
            q = m.group(yq[1])
            quarter = _QUARTER_WORDS.get(q.lower(), None) if not q.isdigit() else int(q)
            found.append(Period(_year(m.group(yq[0])), quarter))
            spans.append(m.span())
    for m in _FY.finditer(question):
        if not any(a <= m.start() < b for a, b in spans):
            found.append(Period(_year(m.group(1))))
            spans.append(m.span())
    for m in _YEAR.finditer(question):
        if not any(a <= m.start() < b for a, b in spans):
            found.append(Period(int(m.group(1))))
    return list(dict.fromkeys(found)), bool(_LATEST.search(question))


def _doc_periods(doc: DocumentMeta) -> tuple[set[Period], date | None]:
    """The periods a document covers (fiscal, by period end, by file name), its end date."""
    out: set[Period] = set()
    period = doc.period or ""
    m = re.fullmatch(r"FY(\d{4})", period)
    if m:
        out.add(Period(int(m.group(1))))
    m = re.fullmatch(r"(\d{4})-Q([1-4])", period)
    if m:
        out |= {Period(int(m.group(1)), int(m.group(2))), Period(int(m.group(1)))}
    end = None
    for value in (doc.period_end, period):
        try:
            end = date.fromisoformat(value)
            break
        except ValueError:
            continue
    if end is not None:
        out |= {Period(end.year, (end.month - 1) // 3 + 1), Period(end.year)}
    name = doc.file_name
    for m in _FILE_YQ.finditer(name):
        y, q = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        out |= {Period(int(y), int(q)), Period(int(y))}
    years = {int(y) for y in _FILE_YEAR.findall(name)}
    if len(years) == 1 and not any(p.quarter for p in out):
        out.add(Period(years.pop()))
    return out, end


def _matches(wanted: Period, have: set[Period]) -> bool:
    return wanted in have if wanted.quarter else any(p.year == wanted.year for p in have)


_INDEX_CACHE: dict[tuple, tuple[dict, list]] = {}


def _alias_index(documents: list[DocumentMeta]) -> tuple[dict, list]:
    """``(alias key -> [(strength, doc)], file-alias entries)``, cached per document set."""
    key = tuple((d.doc_id, d.company, d.file_name, d.ticker, tuple(d.former_names))
                for d in documents)
    found = _INDEX_CACHE.get(key)
    if found is None:
        index: dict[str, list[tuple[str, DocumentMeta]]] = {}
        for doc in documents:
            for alias in aliases_for(doc.company, doc.file_name, doc.ticker, doc.former_names):
                index.setdefault(alias.key, []).append((alias.strength, doc))
        prefixes = [(k, v) for k, v in index.items() if any(s == "file" for s, _ in v)]
        if len(_INDEX_CACHE) > 8:
            _INDEX_CACHE.clear()
        found = _INDEX_CACHE[key] = (index, prefixes)
    return found


def match_companies(question: str, documents: list[DocumentMeta]
                    ) -> dict[str, tuple[str, list[str]]]:
    """``{words in the question: (company shown, doc ids)}`` for each company named."""
    index, prefixes = _alias_index(documents)
    found: dict[str, tuple[str, list[str]]] = {}
    taken: list[tuple[int, int]] = []
    spans = sorted(question_spans(question), key=lambda s: -(s[3] - s[2]))
    for key, raw, start, end in spans:
        if any(a < end and start < b for a, b in taken) or not key:
            continue
        docs = [d for strength, d in index.get(key, []) if allows(strength, raw)]
        if len(key) >= 3 and raw[:1].isupper() and " " not in raw:
            # A word that begins a file name's company part: "MGM" also names
            # "MGMRESORTS_2022Q4_EARNINGS.pdf", whose cover names nobody.
            docs += [d for k, v in prefixes if k.startswith(key) and k != key
                     for s, d in v if s == "file"]
        if docs:
            ids = list(dict.fromkeys(d.doc_id for d in docs))
            shown = next((d.company for d in docs if d.company != "unknown"), raw)
            found[raw] = (shown, ids)
            taken.append((start, end))
    return found


def resolve_scope(question: str, documents: list[DocumentMeta]) -> Scope:
    """The documents ``question`` is about (see the module docstring)."""
    named = match_companies(question, documents)
    if not named:
        return Scope()
    by_id = {d.doc_id: d for d in documents}
    periods, latest = question_periods(question)
    chosen: list[str] = []
    notes: list[str] = []
    for raw, (shown, ids) in named.items():
        docs = [by_id[i] for i in ids]
        covered = {d.doc_id: _doc_periods(d) for d in docs}
        picked = [d.doc_id for d in docs
                  if any(_matches(p, covered[d.doc_id][0]) for p in periods)]
        how = ""
        if periods and picked:
            how = f", {' / '.join(map(str, periods))}"
        elif latest and not periods:
            dated = [d for d in docs if covered[d.doc_id][1] is not None]
            if dated:
                newest = max(covered[d.doc_id][1] for d in dated)
                picked = [d.doc_id for d in dated if covered[d.doc_id][1] == newest]
                how = f", latest period ({newest.isoformat()})"
        if not picked:
            picked = ids
            if periods:
                how = f" (no filing matches {' / '.join(map(str, periods))}: all of theirs)"
        chosen.extend(picked)
        notes.append(f"{shown} (named as '{raw}'){how}")
    chosen = list(dict.fromkeys(chosen))
    return Scope(
        doc_ids=chosen,
        companies=[shown for shown, _ in named.values()],
        periods=[str(p) for p in periods],
        reason=f"{'; '.join(notes)}: {len(chosen)} of {len(documents)} filings",
    )
