"""The Search page's work: the filters the corpus offers, one search run as the CLI runs
it (``python -m core search``), and the words of the query found in each hit.

    options = filter_options(docs, sections)           # companies, forms, sections
    outcome = run_search(corpus, SearchAsk(query="NVIDIA supply risks"))
    outcome.error or outcome.result.hits                # a message a user can act on, or hits
    spans = term_spans(hit.chunk.text, outcome.terms)   # where to mark the query's words

The scope works as the CLI's: with no company or form picked and "search everything" off,
the filings the query names ("NVIDIA risks", "AMD's FY2024 10-K") are searched and the
result says so (``SearchResult.scope``); "search everything" is the CLI's ``--all``. A
company or form picked is an explicit filter (the CLI's ``--doc``), which skips the scope
read from the query. Errors a user can cause (an empty corpus or query, a filter that
leaves no filing) come back as ``SearchOutcome.error``, said in words, never raised.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.foundation.errors import RetrievalError
from core.foundation.strategies import DEFAULT_STRATEGY
from core.foundation.types import DocumentMeta, SearchResult
from core.store.companies import companies as filers
from core.store.tokenize import STOPWORDS

_ITEM = re.compile(r"\b(?:part\s+(?:iv|i{1,3})\W+)?item\s+(\d{1,2}[a-z]?)\b\W*(.*)", re.I)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9&'.\-]*[A-Za-z0-9]|[A-Za-z0-9]")


@dataclass(frozen=True)
class FilterOptions:
    """What the filters offer, read from the corpus."""

    companies: dict[str, tuple[str, list[str]]] = field(default_factory=dict)
    """Company key -> (name, its doc ids), in the order the filers were added."""
    forms: list[str] = field(default_factory=list)
    sections: dict[str, str] = field(default_factory=dict)
    """Filter value ('Item 1A', or a title without an Item) -> label ('Item 1A. Risk
    Factors'), in reading order."""


@dataclass(frozen=True)
class SearchAsk:
    """One search as the page asks it."""

    query: str
    strategy: str = DEFAULT_STRATEGY
    k: int = 10
    companies: list[str] = field(default_factory=list)
    """Company keys (``FilterOptions.companies``); empty: no company filter."""
    forms: list[str] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)
    everything: bool = False
    """Search every filing, not only those the query names (the CLI's ``--all``)."""


@dataclass
class SearchOutcome:
    """A search's result, or the message that says why there is none."""

    result: SearchResult | None = None
    error: str = ""
    filtered: list[str] = field(default_factory=list)
    """The filters applied, in words ('company: NVIDIA', 'form: 10-K')."""
    terms: list[str] = field(default_factory=list)
    """The query's words a hit's text is marked for."""


def _form(doc: DocumentMeta) -> str:
    return (doc.form_type or "unknown").upper().removesuffix("/A")


def section_key(title: str) -> str:
    """The section filter value for a title: its Item ('Item 1A'), else the title."""
    m = _ITEM.search(title)
    return f"Item {m.group(1).upper()}" if m else title


def filter_options(docs: list[DocumentMeta], sections: dict[str, list[str]],
                   doc_ids: list[str] | None = None) -> FilterOptions:
    """Companies and forms of the corpus, and the sections of ``doc_ids`` (all filings when
    None), one entry per Item whichever filing prints it."""
    found = {c.key: (c.name, list(c.doc_ids)) for c in filers(docs)}
    forms = sorted({_form(d) for d in docs})
    by_key: dict[str, str] = {}
    for doc_id, titles in sections.items():
        if doc_ids is not None and doc_id not in doc_ids:
            continue
        for title in titles:
            key = section_key(title)
            label = by_key.get(key)
            m = _ITEM.search(title)
            full = f"{key}. {m.group(2).strip(' .')}" if m and m.group(2).strip(" .") else key
            if label is None or (label == key and full != key):
                by_key[key] = full
    return FilterOptions(companies=found, forms=forms, sections=by_key)


def chosen_docs(ask: SearchAsk, docs: list[DocumentMeta], options: FilterOptions
                ) -> tuple[list[str] | None, str]:
    """The doc ids the company and form filters leave (None: no filter), or a message when
    they leave none."""
    if not ask.companies and not ask.forms:
        return None, ""
    ids = [d.doc_id for d in docs]
    if ask.companies:
        named = {i for key in ask.companies for i in options.companies.get(key, ("", []))[1]}
        ids = [i for i in ids if i in named]
        if not ids:
            return [], "None of the companies picked is in the corpus any more: pick again."
    if ask.forms:
        by_id = {d.doc_id: d for d in docs}
        kept = [i for i in ids if _form(by_id[i]) in ask.forms]
        if not kept:
            have = sorted({_form(by_id[i]) for i in ids})
            who = ", ".join(options.companies[k][0] for k in ask.companies
                            if k in options.companies) or "the corpus"
            return [], (f"No {' or '.join(ask.forms)} filing of {who} is loaded (its forms: "
                        f"{', '.join(have)}). Clear the form filter, pick another form, or add "
                        "the filing in the Library.")
        ids = kept
    return ids, ""


def query_terms(query: str) -> list[str]:
    """The query's words worth marking in a hit: no stop words, no single letters, each
    once, longest first (so 'data center' marks before 'data')."""
    out: list[str] = []
    for word in _WORD.findall(query or ""):
        low = word.lower().strip("'.")
        if len(low) < 2 or low in STOPWORDS or low in (t.lower() for t in out):
            continue
        out.append(low)
    return sorted(out, key=len, reverse=True)


def term_spans(text: str, terms: list[str]) -> list[tuple[int, int]]:
    """Where ``terms`` occur in ``text`` as words (case folded; a plural or possessive
    ending counted), sorted, never overlapping."""
    if not text or not terms:
        return []
    stems = [t[:-1] if len(t) > 3 and t.endswith("s") and not t.endswith("ss") else t
             for t in terms]
    alts = "|".join(re.escape(t) for t in sorted(set(stems), key=len, reverse=True))
    rx = re.compile(rf"(?<![A-Za-z0-9])(?:{alts})(?:['\u2019]?s|es)?(?![A-Za-z0-9])", re.I)
    return [(m.start(), m.end()) for m in rx.finditer(text)]


def run_search(corpus, ask: SearchAsk) -> SearchOutcome:
    """One search over ``corpus`` (``core.app.corpus.Corpus``) as the CLI runs it."""
    docs = corpus.documents()
    if not docs:
        return SearchOutcome(error="The corpus is empty: add filings in the Library (upload a "
                                   "10-K or fetch one from EDGAR), then search them here.")
    if not (ask.query or "").strip():
        return SearchOutcome(error="Type what you are looking for (e.g. 'supply chain risks' "
                                   "or 'data center revenue').")
    options = filter_options(docs, {})
    doc_ids, problem = chosen_docs(ask, docs, options)
    if problem:
        return SearchOutcome(error=problem)
    filtered = [f"company: {options.companies[k][0]}" for k in ask.companies
                if k in options.companies]
    filtered += [f"form: {f}" for f in ask.forms]
    filtered += [f"section: {s}" for s in ask.sections]
    try:
        result = corpus.search(ask.query.strip(), strategy=ask.strategy, k=ask.k,
                               doc_ids=doc_ids, sections=list(ask.sections) or None,
                               scope="all" if ask.everything else "auto")
    except RetrievalError as exc:
        message = str(exc)
        if message.startswith("Unknown section"):
            message = (f"The filings searched have no section {', '.join(ask.sections)}: "
                       "clear the section filter or pick one the list offers.")
        return SearchOutcome(error=message, filtered=filtered)
    return SearchOutcome(result=result, filtered=filtered, terms=query_terms(ask.query))

