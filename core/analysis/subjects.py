"""The companies an analysis question is about, as the question and the registry name them.

``subjects_named`` reads the companies a question names, in its order; ``corpus_subjects``
is every company of the corpus with facts (for "which of the companies loaded"), each under
its registry name as an analyst writes it (``short_name``); ``latest_annual`` is a company's
latest fiscal year, read from its annual reports (a 10-Q is no fiscal year);
``named_lists`` reads the lists of companies the question writes: every name no loaded
filing is of, and a company written twice ("Acme or ACME CORP").

Two filers whose names match (under different CIKs) are two subjects, each labelled with
its CIK (``Subject.label``), unless the question picks one by its CIK or ticker: neither is
ever answered for the other, nor shown under the same label.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

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
    aliases: list[str] = field(default_factory=list)
    """Other words the question names it by ('QWI' beside 'Quillon')."""
    qualifier: str = ""
    """'CIK 0000796343' when another filer of the corpus has the same name: said with the
    name wherever it is shown."""

    @property
    def label(self) -> str:
        """Its name in the answer: the question's words, with the qualifier when two filers
        share the name ("Adobe (CIK 0000796343)")."""
        return f"{self.words} ({self.qualifier})" if self.qualifier else self.words


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


def _words(raw: str) -> str:
    """The words that name a company, as an answer repeats them ("Halfway Widgets'" ->
    "Halfway Widgets"; "Acme Inc." keeps its full stop, "... and birch." does not)."""
    last = raw.rstrip(".").split()[-1].lower() if raw.strip(". ") else ""
    words = raw.rstrip(".,;:") if raw[-2:-1].islower() or raw.endswith(
        (",", ";", ":")) or raw[:-1].isupper() or last not in _ABBREVIATED else raw
    return re.sub(r"(?:['\u2019]s?)$", "", words) or words


def picked(question: str, raw: str, filers: list) -> list:
    """The one of several filers of a name the question picks right after it ("Adobe (CIK
    0000796343)", "Adobe (ADBE)"); all of them when it picks none."""
    after = re.search(rf"{re.escape(raw)}\s*\(?\s*(?:CIK\s*:?\s*#?\s*(\d{{1,10}})|"
                      rf"([A-Z][A-Z.]{{0,5}})\s*\))", question)
    if after is None or len(filers) < 2:
        return filers
    cik, ticker = after.group(1), after.group(2)
    hits = [g for g in filers if (cik and g.cik.lstrip("0") == cik.lstrip("0")) or
            (ticker and ticker.upper() in {t.upper() for t in g.tickers})]
    return hits or filers


def subjects_named(question: str, documents: list[DocumentMeta]) -> list[Subject]:
    """The companies ``question`` names, in the order it names them. A name two filers of
    the corpus share is both of them, each with its CIK, unless the question picks one."""
    from core.store.companies import colliding, companies, qualifier

    found = match_companies(question, documents)
    groups = companies(documents)
    group_of = {i: g for g in groups for i in g.doc_ids}
    clash = colliding(groups)
    out: list[Subject] = []
    keys: list[str] = []
    for raw in sorted(found, key=lambda raw: question.find(raw)):
        shown, ids = found[raw]
        words = _words(raw)
        filers = list({group_of[i].key: group_of[i] for i in ids if i in group_of}.values())
        if not filers:  # a document the grouping does not know: as the resolver names it
            if not any(s.company == shown for s in out):
                out.append(Subject(words, shown, list(ids)))
                keys.append(shown)
            continue
        chosen = picked(question, raw, filers)
        for g in chosen:
            if g.key in keys:
                known = out[keys.index(g.key)]
                if words != known.words and words not in known.aliases:
                    known.aliases.append(words)
                continue
            # two filers of one name: each with its CIK; one word naming two filers of
            # other names ("Johnson"): each with its own name
            said = qualifier(g) if g.key in clash else g.name if len(chosen) > 1 else ""
            out.append(Subject(words, g.name, list(g.doc_ids), qualifier=said))
            keys.append(g.key)
    return out


def corpus_subjects(documents: list[DocumentMeta], store) -> list[Subject]:
    """Every company of the corpus whose filings hold facts, by name (each under the name its
    filings are grouped by)."""
    from core.store.companies import colliding, companies, qualifier

    counts = _fact_counts(store)
    groups = companies(documents)
    clash = colliding(groups)
    out = []
    for group in groups:
        ids = [i for i in group.doc_ids if counts is None or counts.get(i, 0) > 0]
        if ids and group.name != "unknown":
            out.append(Subject(short_name(group.name), group.name, ids,
                               qualifier=qualifier(group) if group.key in clash else ""))
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


_MARK = "\x01{}\x02"
_LOWER = (r"[a-z][a-z0-9&.-]{0,9}(?=\s*(?:,|\band\b|\bor\b|\bvs\b|\bversus\b|[?.!]|$)"
          r"|\s+(?:by|in|for|on|over|during|from|at|across)\b)")
"""A name typed in lower case ("msft"), known only by where it stands: in a list of
companies, ending where a name ends (before the next item, a preposition, the end)."""
_NOT_LOWER = frozenset("and or the them they both each all others peers rivals too also etc "
                       "it its their these those".split())
_ITEM = rf"(?:\x01\d+\x02(?:'s|')?|{_NAME}|{_LOWER})"
_LIST = re.compile(rf"{_ITEM}(?:{_JOIN}{_ITEM})+")
_MARKED = re.compile(r"\x01(\d+)\x02")


def _marked(body: str, subjects: list[Subject]) -> str:
    """``body`` with every name of each subject (its words, its aliases) a mark of its
    index, longest names first."""
    names = sorted(((w, k) for k, s in enumerate(subjects) for w in [s.words, *s.aliases]
                    if w), key=lambda x: -len(x[0]))
    for words, k in names:
        body = re.sub(rf"(?<![\w&\x01]){re.escape(words)}(?![\w&\x02])",
                      _MARK.format(k), body)
    return body


def _cleaned(item: str) -> str:
    """A listed name without the question's words around it ("Rank Zenith" -> "Zenith";
    "FY2022" -> "")."""
    words = re.sub(r"(?:'s|')$", "", item).strip(" .,").split()
    while words and (words[0] in _NOT_NAMES or _PERIOD.match(words[0])):
        words.pop(0)
    while words and _PERIOD.match(words[-1]):
        words.pop()
    return " ".join(words)


def named_lists(body: str, subjects: list[Subject]) -> tuple[list[str], list[Subject]]:
    """``(names no loaded filing is of, subjects named twice)`` in the lists of companies
    the question writes ("Rank Acme, Zenith, Birch and Initech": Zenith, Initech; "Acme or
    ACME CORP": Acme twice), and after "than" ("more profitable than Zenith"), in order."""
    from core.metrics import find_metrics

    marked = _marked(body, subjects)
    absent: list[str] = []
    twice: list[Subject] = []
    items: list[str] = []
    for m in _LIST.finditer(marked):
        listed = [x for x in re.split(_JOIN, m.group(0)) if x.strip()]
        marks = [int(k.group(1)) for x in listed if (k := _MARKED.search(x))]
        if not marks:
            continue
        for k in {k for k in marks if marks.count(k) > 1}:
            if subjects[k] not in twice:
                twice.append(subjects[k])
        first = next(i for i, x in enumerate(listed) if _MARKED.search(x))
        items += [x for i, x in enumerate(listed) if not _MARKED.search(x)
                  and (i > first or not x.strip()[:1].islower())]  # "op margin, A or b"
    than = r"\bthan\s+(?:(?:that|those)\s+of\s+)?"
    for m in re.finditer(rf"{than}\x01(\d+)\x02", marked):  # "Did A ... than ACME CORP?"
        k = int(m.group(1))
        if _MARK.format(k) in marked[:m.start()] and subjects[k] not in twice:
            twice.append(subjects[k])
    if subjects:
        items += [m.group(1) for m in re.finditer(rf"{than}({_NAME})", marked)]
    for item in items:
        name = _cleaned(item)
        if name in _NOT_LOWER:
            continue
        hit = find_metrics(name) if name else []
        if not name or (hit and hit[0].end - hit[0].start >= len(name) - 1):
            continue  # "EBITDA, Acme or Birch": a measure, not a company
        if any(name in t.words or t.words in name for t in subjects) or name in absent:
            continue
        absent.append(name)
    return absent, twice


def unloaded(body: str, subjects: list[Subject]) -> list[str]:
    """Names the question lists beside the companies it names that no loaded filing is of
    ("Acme or Zenith": Zenith), in the order written (``named_lists``)."""
    return named_lists(body, subjects)[0]
