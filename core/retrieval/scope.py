"""Which filings a question is about: the companies and periods it names, resolved against
the corpus's documents, so a search over many filings reads the right ones.

1. Companies: every document's aliases (``core.retrieval.names``: company, printed and
   former names, initialisms, ticker, file name) are matched against the question's words.
   The scope is every document of the companies named, a company being its filer
   (``core.store.companies``: one CIK, or one name), so a ticker only the 10-K prints also
   finds the 10-Q; none named means no company scope.
2. Forms, within those documents: "10-K", "10-Q", "annual report", "quarterly report" keep
   the company's filings of that form (a 10-K/A counts as a 10-K); when it has none, all of
   its filings stay, and the reason says so.
3. Periods, within those documents: "FY2018", "fiscal 2018", "Q2 of FY2024", "2023 Q3",
   "second quarter of 2023", a bare year, or "most recent" / "latest". A document matches a
   period through its registry period ("FY2018", "2024-Q1"), its period end date, or the
   year and quarter in its file name. When some documents match, the scope narrows to them;
   when none does, it stays with all the company's documents (a question about FY2019 may
   be answered by a later filing's comparative columns). "Latest" picks each company's
   document with the latest period end (of the form named, if one is). A fiscal quarter
   ("Q1 FY2024", "first quarter of fiscal 2024") matches the filing's fiscal period
   ("2024-Q1"), not the calendar quarter its end date falls in, and an annual report is
   never taken for the quarter its year ends in. A quarterly filing known only by its end
   date (a PDF's cover) gets its fiscal quarter from the company's annual filings: NVIDIA's
   fiscal year ends in late January, so a 10-Q ending 2023-04-30 is Q1 FY2024.

The result says what was matched and why, so the UI and the CLI can show the filter
applied; a caller that passes explicit documents skips all of this.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from core.foundation.types import DocumentMeta
from core.retrieval.names import aliases_for, allows, question_spans
from core.store.companies import companies as filers

_QUARTER_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2,
                  "3rd": 3, "4th": 4}
_Q_BEFORE = re.compile(r"\bQ([1-4])\s*(?:of\s+)?(?P<fy>FY|fiscal(?:\s+year)?)?\s*['\u2019]?"
                       r"(\d{4}|\d{2})\b", re.I)
_Q_AFTER = re.compile(r"\b(?P<fy>FY\s*)?(\d{4})\s*-?\s*Q([1-4])\b", re.I)
_Q_WORDS = re.compile(r"\b(first|second|third|fourth|1st|2nd|3rd|4th)\s+(?P<fy0>fiscal\s+)?"
                      r"quarter\s+(?:of\s+)?(?P<fy>fiscal\s+(?:year\s+)?|FY\s*)?(\d{4})\b", re.I)
_FORMS = re.compile(r"\b(10-?K|10-?Q|20-?F|40-?F|8-?K)(?:/A)?\b|\b(annual|quarterly)\s+report\b",
                    re.I)
_ANNUAL = ("10-K", "20-F", "40-F")
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
    fiscal: bool = field(default=False, compare=False)
    """A quarter of a fiscal year ("Q1 FY2024"), not of the calendar ("Q1 2024")."""

    def __str__(self) -> str:
        if self.quarter:
            return f"Q{self.quarter} {'FY' if self.fiscal else ''}{self.year}"
        return f"FY{self.year}"


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
    for rx, yq in ((_Q_BEFORE, (3, 1)), (_Q_AFTER, (2, 3)), (_Q_WORDS, (4, 1))):
        for m in rx.finditer(question):
            q = m.group(yq[1])
            quarter = _QUARTER_WORDS.get(q.lower(), None) if not q.isdigit() else int(q)
            fiscal = bool(m.group("fy") or ("fy0" in rx.groupindex and m.group("fy0")))
            found.append(Period(_year(m.group(yq[0])), quarter, fiscal))
            spans.append(m.span())
    for m in _FY.finditer(question):
        if not any(a <= m.start() < b for a, b in spans):
            found.append(Period(_year(m.group(1))))
            spans.append(m.span())
    for m in _YEAR.finditer(question):
        if not any(a <= m.start() < b for a, b in spans):
            found.append(Period(int(m.group(1))))
    return list(dict.fromkeys(found)), bool(_LATEST.search(question))


def question_forms(question: str) -> list[str]:
    """Form types a question names ("10-Q", "annual report" -> "10-K"), in order."""
    out = []
    for m in _FORMS.finditer(question):
        if m.group(1):
            form = m.group(1).upper()
            out.append(form if "-" in form else f"{form[:-1]}-{form[-1]}")
        else:
            out.append("10-K" if m.group(2).lower() == "annual" else "10-Q")
    return list(dict.fromkeys(out))


def _is_form(doc: DocumentMeta, form: str) -> bool:
    """``doc`` is a filing of ``form`` (10-K also for 10-K405, 10-KSB, 10-K/A)."""
    have = (doc.form_type or "").upper()
    return have == form or (have.startswith(form) and not have[len(form):][:1].isdigit())


def _fiscal_periods(doc: DocumentMeta) -> set[Period]:
    """The fiscal periods of the registry's period label ("FY2018", "2024-Q1")."""
    period = doc.period or ""
    m = re.fullmatch(r"FY(\d{4})", period)
    if m:
        return {Period(int(m.group(1)))}
    m = re.fullmatch(r"(\d{4})-Q([1-4])", period)
    if m:
        return {Period(int(m.group(1)), int(m.group(2))), Period(int(m.group(1)))}
    return set()


def _doc_periods(doc: DocumentMeta) -> tuple[set[Period], date | None]:
    """The periods a document covers (fiscal, by period end, by file name), its end date."""
    out: set[Period] = set(_fiscal_periods(doc))
    period = doc.period or ""
    annual = any(_is_form(doc, f) for f in _ANNUAL)
    end = None
    for value in (doc.period_end, period):
        try:
            end = date.fromisoformat(value)
            break
        except ValueError:
            continue
    if end is not None:
        out.add(Period(end.year))
        if not annual:
            out.add(Period(end.year, (end.month - 1) // 3 + 1))
    name = doc.file_name
    for m in _FILE_YQ.finditer(name):
        y, q = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        out |= {Period(int(y), int(q)), Period(int(y))}
    years = {int(y) for y in _FILE_YEAR.findall(name)}
    if len(years) == 1 and not any(p.quarter for p in out):
        out.add(Period(years.pop()))
    return out, end


def _end_date(doc: DocumentMeta) -> date | None:
    for value in (doc.period_end, doc.period):
        try:
            return date.fromisoformat(value)
        except ValueError:
            continue
    return None


def _year_ends(docs: list[DocumentMeta]) -> list[tuple[date, int]]:
    """``(end date, fiscal year named)`` of the annual filings among ``docs``."""
    out = []
    for d in docs:
        m = re.fullmatch(r"FY(\d{4})", d.period or "")
        end = _end_date(d)
        if m and end and any(_is_form(d, f) for f in _ANNUAL):
            out.append((end, int(m.group(1))))
    return out


def _inferred_quarter(doc: DocumentMeta, year_ends: list[tuple[date, int]]) -> Period | None:
    """The fiscal quarter of a quarterly filing known only by its end date, from one of its
    company's fiscal year ends (quarters end 3, 6, 9 months after it, give or take a week)."""
    end = _end_date(doc)
    if end is None or not year_ends or _fiscal_periods(doc) or \
            any(_is_form(doc, f) for f in _ANNUAL):
        return None
    fy_end, named = year_ends[0]
    offset = named - fy_end.year  # J&J's FY2022 ended on 2023-01-01: -1
    days = (end - fy_end).days % 365.2425
    quarter = round(days / 91.31)
    if quarter not in (1, 2, 3) or abs(days - quarter * 91.31) > 12:
        return None
    next_end_year = fy_end.year + (end - fy_end).days // 365.2425 + 1
    return Period(int(next_end_year) + offset, quarter, fiscal=True)


def _matches(wanted: Period, doc: DocumentMeta, have: set[Period],
             inferred: Period | None = None) -> bool:
    if wanted.quarter and wanted.fiscal:
        fiscal = _fiscal_periods(doc) | ({inferred} if inferred else set())
        if fiscal:
            return wanted in fiscal  # a fiscal quarter: the filing's own (or inferred) label
    return wanted in have if wanted.quarter else any(p.year == wanted.year for p in have)


_INDEX_CACHE: dict[tuple, tuple[dict, list, list]] = {}


def _alias_index(documents: list[DocumentMeta]) -> tuple[dict, list, list]:
    """``(alias key -> [(strength, doc)], file-alias entries, filers)``, cached per
    document set."""
    key = tuple((d.doc_id, d.company, d.printed_name, d.file_name, d.ticker,
                 tuple(d.former_names), d.cik, d.period_end, tuple(d.corrected))
                for d in documents)
    found = _INDEX_CACHE.get(key)
    if found is None:
        index: dict[str, list[tuple[str, DocumentMeta]]] = {}
        for doc in documents:
            names = [n for n in (doc.printed_name, *doc.former_names) if n]
            for alias in aliases_for(doc.company, doc.file_name, doc.ticker, names):
                index.setdefault(alias.key, []).append((alias.strength, doc))
        prefixes = [(k, v) for k, v in index.items() if any(s == "file" for s, _ in v)]
        if len(_INDEX_CACHE) > 8:
            _INDEX_CACHE.clear()
        found = _INDEX_CACHE[key] = (index, prefixes, filers(documents))
    return found


def _inside_another_name(question: str, start: int, end: int, key: str,
                         doc: DocumentMeta) -> bool:
    """A filer's first word written inside another proper name: "Home" in "Fabric & Home
    Care" is not Home Wares. True when ``key`` is the first word of the filer's longer name
    and the question writes it right after "&" (a name's "X & Y"). A capitalised word after
    it proves nothing ("Amazon Web Services" is Amazon's)."""
    from core.ingest.cover import name_words

    words = name_words(doc.company or "")
    if len(words) < 2 or words[0] != key:
        return False
    before = question[:start].rstrip()
    return before.endswith("&") and before[:-1].rstrip()[-1:].isalpha()


def match_companies(question: str, documents: list[DocumentMeta]
                    ) -> dict[str, tuple[str, list[str]]]:
    """``{words in the question: (company shown, doc ids)}`` for each company named; the ids
    are every filing of the filers those words name (``core.store.companies``)."""
    index, prefixes, groups = _alias_index(documents)
    group_of = {i: g for g in groups for i in g.doc_ids}
    found: dict[str, tuple[str, list[str]]] = {}
    taken: list[tuple[int, int]] = []
    spans = sorted(question_spans(question), key=lambda s: -(s[3] - s[2]))
    for key, raw, start, end in spans:
        if any(a < end and start < b for a, b in taken) or not key:
            continue
        docs = [d for strength, d in index.get(key, []) if allows(strength, raw)
                and not (strength == "word" and _inside_another_name(question, start, end,
                                                                     key, d))]
        if len(key) >= 3 and raw[:1].isupper() and " " not in raw:
            # A word that begins a file name's company part: "MGM" also names
            # "MGMRESORTS_2022Q4_EARNINGS.pdf", whose cover names nobody.
            docs += [d for k, v in prefixes if k.startswith(key) and k != key
                     for s, d in v if s == "file" and d.company in ("", "unknown")]
        if docs:
            named = list(dict.fromkeys(group_of[d.doc_id].key for d in docs))
            ids = [i for g in groups if g.key in named for i in g.doc_ids]
            shown = next((group_of[d.doc_id].name for d in docs
                          if group_of[d.doc_id].name != "unknown"), raw)
            found[raw] = (shown, ids)
            taken.append((start, end))
    return found


def narrow(docs: list[DocumentMeta], text: str) -> tuple[list[str], str, bool]:
    """``(doc ids, how, narrowed)``: the filings among one company's ``docs`` that the form,
    period or "latest" ``text`` names pick (steps 2 and 3 of the module docstring); all of
    them, with the reason, when nothing narrows. ``narrowed``: every form and period named
    matched a filing (or "latest" picked one)."""
    forms = question_forms(text)
    periods, latest = question_periods(text)
    notes = []
    pool = docs
    form_hit = False
    if forms:
        of_form = [d for d in docs if any(_is_form(d, f) for f in forms)]
        if of_form:
            pool, form_hit = of_form, True
            notes.append(" / ".join(forms))
        else:
            notes.append(f"no {' / '.join(forms)} of theirs: all of their filings")
    covered = {d.doc_id: _doc_periods(d) for d in pool}
    year_ends = _year_ends(docs)
    inferred = {d.doc_id: _inferred_quarter(d, year_ends) for d in pool}
    picked = [d.doc_id for d in pool
              if any(_matches(p, d, covered[d.doc_id][0], inferred[d.doc_id]) for p in periods)]
    period_hit = latest_hit = False
    if periods and picked:
        period_hit = True
        notes.append(" / ".join(map(str, periods)))
    elif latest and not periods:
        dated = [d for d in pool if covered[d.doc_id][1] is not None]
        if dated:
            newest = max(covered[d.doc_id][1] for d in dated)
            picked = [d.doc_id for d in dated if covered[d.doc_id][1] == newest]
            latest_hit = True
            notes.append(f"latest period ({newest.isoformat()})")
    if not picked:
        picked = [d.doc_id for d in pool]
        if periods:
            notes.append(f"no filing matches {' / '.join(map(str, periods))}: all of theirs")
    narrowed = ((form_hit or not forms) and (period_hit or not periods)
                and (form_hit or period_hit or latest_hit))
    return picked, "".join(f", {n}" for n in notes), narrowed


def resolve_scope(question: str, documents: list[DocumentMeta]) -> Scope:
    """The documents ``question`` is about (see the module docstring)."""
    named = match_companies(question, documents)
    if not named:
        return Scope()
    by_id = {d.doc_id: d for d in documents}
    periods, _ = question_periods(question)
    chosen: list[str] = []
    notes: list[str] = []
    for raw, (shown, ids) in named.items():
        picked, how, _ = narrow([by_id[i] for i in ids], question)
        chosen.extend(picked)
        notes.append(f"{shown} (named as '{raw}'){how}")
    chosen = list(dict.fromkeys(chosen))
    return Scope(
        doc_ids=chosen,
        companies=list(dict.fromkeys(shown for shown, _ in named.values())),
        periods=[str(p) for p in periods],
        reason=f"{'; '.join(notes)}: {len(chosen)} of {len(documents)} filings",
    )


def names_filing(text: str) -> bool:
    """Whether ``text`` names a form, a period or "latest" (it picks among filings)."""
    periods, latest = question_periods(text)
    return bool(question_forms(text) or periods or latest)


def filings_named(text: str, doc_ids: list[str], documents: list[DocumentMeta]
                  ) -> tuple[list[str], str]:
    """``(doc ids, how)``: for a text that names a filing but no company ("its latest 10-Q"),
    the filings it picks among every filing of the companies ``doc_ids`` belong to (a step
    about NVIDIA's 10-K followed by "its latest 10-Q" reads NVIDIA's 10-Q); ``[]`` when no
    filing of theirs matches what it names."""
    by_id = {d.doc_id: d for d in documents}
    _, _, groups = _alias_index(documents)
    chosen, notes = [], []
    for group in groups:
        if not set(group.doc_ids) & set(doc_ids):
            continue
        picked, how, narrowed = narrow([by_id[i] for i in group.doc_ids], text)
        if narrowed:
            chosen.extend(picked)
            notes.append(f"{group.name}{how}")
    return list(dict.fromkeys(chosen)), "; ".join(notes)
