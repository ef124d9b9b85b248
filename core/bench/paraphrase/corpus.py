"""What the suite generates over: the corpus's filers, their names and fiscal years.

Read from the registry (``core.store.companies.companies``) of any store with
``documents()``: the corpus store, or the tests' ``FactStore``. A filer is asked about when
it has an annual report (its latest fiscal year is that report's; its 10-K prints that year
and the two before, the years the suite asks about).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.bench.paraphrase.grammar import short_name
from core.foundation.types import DocumentMeta
from core.store.companies import companies

_ANNUAL = ("10-K", "20-F", "40-F")
_FY = re.compile(r"^FY(\d{4})$")


@dataclass(frozen=True)
class Filer:
    """One company the suite asks about."""

    name: str
    """Registry (canonical) name: 'ACME CORP'; also the filer's key in gold records."""
    short: str
    """As an analyst writes it: 'Acme'."""
    tickers: tuple[str, ...]
    """Its trading symbols, the primary (letters only, the first listed) first."""
    names: tuple[str, ...]
    """Every name its filings print, canonical first."""
    doc_ids: tuple[str, ...]
    latest: int
    """Latest fiscal year of its annual reports (2024 for FY2024)."""

    @property
    def ticker(self) -> str:
        """The primary ticker ('' when the registry knows none)."""
        return self.tickers[0] if self.tickers else ""

    @property
    def years(self) -> tuple[int, ...]:
        """The fiscal years its latest annual report prints, latest first."""
        return (self.latest, self.latest - 1, self.latest - 2)

    def aliases(self) -> list[str]:
        """Every name an answer may call it by: registry, printed and short names,
        tickers."""
        return list(dict.fromkeys([self.name, *self.names, self.short, *self.tickers]))


@dataclass
class CorpusView:
    """The filers of a corpus, in registry order."""

    filers: list[Filer] = field(default_factory=list)

    def by_name(self, name: str) -> Filer:
        return next(f for f in self.filers if f.name == name)


def _latest_year(docs: list[DocumentMeta]) -> int | None:
    years = []
    for d in docs:
        if not (d.form_type or "").upper().startswith(_ANNUAL):
            continue
        m = _FY.match((d.period or "").strip())
        if m:
            years.append(int(m.group(1)))
    return max(years) if years else None


def _tickers(raw: list[str]) -> tuple[str, ...]:
    """Letters-only tickers first (KO before KO26, a note's symbol), in listed order."""
    plain = [t for t in raw if t.isalpha()]
    return tuple(dict.fromkeys(plain + [t for t in raw if not t.isalpha()]))


def corpus_view(store) -> CorpusView:
    """The filers of ``store`` (anything with ``documents()``) that have an annual report."""
    docs = list(store.documents())
    by_id = {d.doc_id: d for d in docs}
    filers = []
    for company in companies(docs):
        if company.name == "unknown":
            continue
        latest = _latest_year([by_id[i] for i in company.doc_ids])
        if latest is None:
            continue
        filers.append(Filer(name=company.name, short=short_name(company.name),
                            tickers=_tickers(company.tickers), names=tuple(company.names),
                            doc_ids=tuple(company.doc_ids), latest=latest))
    return CorpusView(filers)
