"""Company identity: the documents of one filer grouped, shown under one canonical name.

A filer is its SEC CIK when the filing states one (dei facts, EDGAR header, cover). A
document without a CIK joins the CIK group whose filings print the same name once corporate
suffixes are dropped ("NVIDIA CORPORATION" on a 10-Q PDF joins the 10-K whose dei facts say
"NVIDIA CORP", CIK 0001045810), provided exactly one CIK prints that name; otherwise it is
grouped by that name alone. Two filers with different CIKs are never merged, whatever their
names.

The canonical name of a group is a name corrected by hand (the latest correction), else the
name printed by the group's most recent filing (latest period end, then latest ingest): a
renamed company is shown under its new name and found by the old one too. Documents whose
printed name differs keep it in ``printed_name`` (an alias for the scope resolver).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.foundation.types import DocumentMeta
from core.ingest.cover import name_key


@dataclass
class Company:
    """One filer of the corpus."""

    key: str
    """"cik:0001045810", or "name:nvidia" for a filer no filing gives a CIK for."""
    name: str
    cik: str = ""
    tickers: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    """Every name its filings print, canonical first."""
    doc_ids: list[str] = field(default_factory=list)


def _group_keys(docs: list[DocumentMeta]) -> dict[str, str]:
    """doc_id -> group key (see the module docstring)."""
    ciks_of_name: dict[str, set[str]] = {}
    for d in docs:
        if d.cik and name_key(d.company):
            ciks_of_name.setdefault(name_key(d.company), set()).add(d.cik)
    out: dict[str, str] = {}
    for d in docs:
        if d.cik:
            out[d.doc_id] = f"cik:{d.cik}"
            continue
        key = name_key(d.company)
        ciks = ciks_of_name.get(key, set())
        if len(ciks) == 1:
            out[d.doc_id] = f"cik:{next(iter(ciks))}"
        elif key:
            out[d.doc_id] = f"name:{key}"
        else:
            out[d.doc_id] = f"doc:{d.doc_id}"
    return out


def _canonical(members: list[DocumentMeta]) -> str:
    corrected = [d for d in members if "company" in d.corrected and d.company != "unknown"]
    pool = corrected or [d for d in members if d.company != "unknown"]
    if not pool:
        return "unknown"
    best = max(pool, key=lambda d: (d.period_end or "", d.ingested_at or ""))
    return best.company


def companies(docs: list[DocumentMeta]) -> list[Company]:
    """The corpus's filers, in the order their first document was added."""
    keys = _group_keys(docs)
    groups: dict[str, list[DocumentMeta]] = {}
    for d in docs:
        groups.setdefault(keys[d.doc_id], []).append(d)
    out = []
    for key, members in groups.items():
        name = _canonical(members)
        printed = [d.printed_name or d.company for d in members]
        tickers = [t.strip() for d in members for t in d.ticker.split(",") if t.strip()]
        out.append(Company(
            key=key, name=name,
            cik=next((d.cik for d in members if d.cik), ""),
            tickers=list(dict.fromkeys(tickers)),
            names=list(dict.fromkeys([name, *(n for n in printed if n != "unknown")])),
            doc_ids=[d.doc_id for d in members],
        ))
    return out


def with_identity(docs: list[DocumentMeta]) -> list[DocumentMeta]:
    """``docs`` with each document's company set to its filer's canonical name (the name
    it prints kept in ``printed_name`` when it differs); same order, same objects when
    nothing changes."""
    renamed: dict[str, str] = {}
    for company in companies(docs):
        for doc_id in company.doc_ids:
            renamed[doc_id] = company.name
    out = []
    for d in docs:
        name = renamed.get(d.doc_id, d.company)
        printed = d.printed_name or d.company
        if name != d.company:
            d = d.model_copy(update={"company": name, "printed_name": printed})
        out.append(d)
    return out
