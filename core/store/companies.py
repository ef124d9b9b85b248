"""Company identity: the documents of one filer grouped, shown under one canonical name.

A filer is its SEC CIK when the filing states one (dei facts, EDGAR header, cover). A
document without a CIK joins the CIK group whose filings print the same name once corporate
suffixes are dropped ("NVIDIA CORPORATION" on a 10-Q PDF joins the 10-K whose dei facts say
"NVIDIA CORP", CIK 0001045810), provided exactly one CIK prints that name; otherwise it is
grouped by that name alone. Two filers with different CIKs are never merged, whatever their
names.

The canonical name of a group is a name corrected by hand (the latest correction), else
EDGAR's name for the CIK (kept with each fetched filing), else the name printed by the
group's most recent filing (latest period end, then latest ingest) among the filings whose
names agree: a renamed company (its filing states the former name) is shown under its new
name and found by the old one too, but one filing printing a name no other filing of the CIK
prints never renames them; it is flagged instead (``DocumentMeta.name_conflict``, read in the
ingest result, the Library and ``doctor``). Documents whose
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


def _latest(docs: list[DocumentMeta]) -> DocumentMeta:
    return max(docs, key=lambda d: (d.period_end or "", d.ingested_at or ""))


def _known_keys(members: list[DocumentMeta]) -> set[str]:
    """Name keys the group vouches for: every former name a filing states."""
    return {name_key(n) for d in members for n in d.former_names if name_key(n)}


def _disagrees(doc: DocumentMeta, members: list[DocumentMeta]) -> bool:
    """Whether ``doc``'s printed name is one no other filing of its filer prints or names
    as a former name (a rename states its former name: that is agreement)."""
    key = name_key(doc.company)
    others = [d for d in members if d.doc_id != doc.doc_id and d.company != "unknown"]
    if not key or not others or "company" in doc.corrected:
        return False
    keys = {name_key(d.company) for d in others} | _known_keys(members)
    return key not in keys and not ({name_key(n) for n in doc.former_names} &
                                    {name_key(d.company) for d in others})


def _canonical(members: list[DocumentMeta]) -> str:
    """A hand correction, else EDGAR's name for the CIK, else the latest filing's printed
    name among those that agree with the others (one filing never renames the rest)."""
    corrected = [d for d in members if "company" in d.corrected and d.company != "unknown"]
    if corrected:
        return _latest(corrected).company
    fetched = [d for d in members if d.edgar_name]
    if fetched:
        return _latest(fetched).edgar_name
    pool = [d for d in members if d.company != "unknown"]
    if not pool:
        return "unknown"
    agreeing = [d for d in pool if not _disagrees(d, members)]
    if not agreeing:  # no two filings agree: the first one ingested keeps naming the filer
        return pool[0].company
    return _latest(agreeing).company


def _conflict(doc: DocumentMeta, canonical: str, members: list[DocumentMeta]) -> str:
    """Why ``doc``'s printed name disagrees with its filer's, or ""."""
    key = name_key(doc.company)
    if not key or doc.company == "unknown" or "company" in doc.corrected:
        return ""
    if key == name_key(canonical) or key in _known_keys(members) or \
            name_key(canonical) in {name_key(n) for n in doc.former_names}:
        return ""
    cik = f"CIK {doc.cik}" if doc.cik else "its filer"
    whose = (f"EDGAR's name for {cik}, {canonical!r}" if doc.edgar_name or any(
        d.edgar_name for d in members) else f"the name of {cik}'s other filings, {canonical!r}")
    return (f"{doc.file_name} prints the company name {doc.company!r}, which disagrees with "
            f"{whose}: it is shown under {canonical!r}; if the filing is right, correct it "
            f"with `python -m core docs --set {doc.doc_id} company=...`")


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
    members: dict[str, list[DocumentMeta]] = {}
    by_id = {d.doc_id: d for d in docs}
    for company in companies(docs):
        for doc_id in company.doc_ids:
            renamed[doc_id] = company.name
            members[doc_id] = [by_id[i] for i in company.doc_ids]
    out = []
    for d in docs:
        name = renamed.get(d.doc_id, d.company)
        printed = d.printed_name or d.company
        conflict = _conflict(d, name, members.get(d.doc_id, [d]))
        if name != d.company or conflict:
            d = d.model_copy(update={"company": name, "printed_name": printed if name !=
                                     printed else "", "name_conflict": conflict})
        out.append(d)
    return out


def qualifier(company: Company) -> str:
    """What tells a filer apart from another of the same name: 'CIK 0000796343', else its
    ticker, else 'no CIK' (a filer known only by its name)."""
    if company.cik:
        return f"CIK {company.cik}"
    return company.tickers[0] if company.tickers else "no CIK"


def colliding(groups: list[Company]) -> set[str]:
    """Keys of the filers whose name another filer of ``groups`` shares (once corporate
    suffixes and case are set aside: "ADOBE INC." and "Adobe Inc")."""
    by_name: dict[str, list[str]] = {}
    for g in groups:
        if name_key(g.name):
            by_name.setdefault(name_key(g.name), []).append(g.key)
    return {k for keys in by_name.values() if len(keys) > 1 for k in keys}


def distinct_names(groups: list[Company]) -> dict[str, str]:
    """Filer key -> the name to show it by: its canonical name, with its CIK (or ticker)
    when another filer of ``groups`` has the same name ("ADOBE INC. (CIK 0000796343)"), so
    two filers are never two identical labels in answers, rankings or the Library."""
    clash = colliding(groups)
    return {g.key: f"{g.name} ({qualifier(g)})" if g.key in clash else g.name for g in groups}
