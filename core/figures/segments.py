"""Segments, product lines and regions: the members of a filing's dimensional facts.

A dimensional fact is the figure of one member when its dimensions, the neutral
``ConsolidationItemsAxis=OperatingSegmentsMember`` aside, name one member, or a segment and a
finer part of it (a product line or sub-segment of the segment: the finer one is the
member); totals, eliminations and reconciling items are no member. A member is known by its
axis and QName ('us-gaap:StatementBusinessSegmentsAxis', 'adbe:DigitalMediaMember'), its
kind (``segment``, ``product``, ``geography``: a region) from its axis, and named as the
filing prints it ('Digital Media', ``Fact.member_names``), its other names kept as aliases
(its QName's words, "Asia Pacific" for one printed "APAC"; the names it was merged under).
One member under several names is one (``core.figures.member_merge``): a table's member
column or row (a PDF's segment table, an MD&A table printing "IS") or another tagged member
of the same company and axis is the same member when it prints the same name or an
abbreviation of it ("APAC" ~ "Asia Pacific", "U.S." ~ "United States"), unless the two
report different figures for the same line and period. A country is a region: a table's
member printed as a country is one even under a "segment" caption; a tagged one is what
its axis says (``of_kind``: a question asking for segments never gets a region).

* ``members(store, doc_ids, metric, period)``: every member's figure for a metric and period
  (one per member, the best fact), in the order the filing prints them;
* ``match_member(words, members)``: the member some words name ("Med Tech" ~ "MedTech");
* ``member_facts(facts, words)``: the facts of the member ``words`` name, its dimensions set
  aside, so the look-up ranks them as it ranks an entity's (``core.figures.compute``);
* which member a question names: ``core.figures.segments_asked``;
* ``companies_of_member(store, words)``: the companies whose filings have the member
  ``words`` name ("Widget Cloud's operating income" -> Acme), for a question that names
  a segment but no company.

A member's figure never stands beside the entity total as a disagreeing alternative: its
facts are looked up among its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from core.figures.formula import FormulaError
from core.figures.lookup import (
    candidates,
    choose,
    doc_years,
    match_rank,
    split_period,
    to_input,
)
from core.figures.member import Kind, Member  # noqa: F401 (re-exported)
from core.figures.member_merge import merge
from core.figures.member_merge import name_key as _key
from core.figures.member_merge import other_names as _aliases
from core.figures.member_merge import position as _position
from core.figures.model import FigureInput
from core.foundation.types import Fact
from core.ingest.facts.countries import is_country
from core.ingest.facts.members import (
    axis_kind,
    entries,
    find_name,
    is_aggregate,
    is_place,
    member_words,
    tokens,
)
from core.ingest.facts.naming import find_abbreviation
from core.metrics import catalog

_KINDS = ("segment", "product", "geography", "other")
_ABBREVIATION = re.compile(r"[A-Z]{1,3}")
GENERIC = frozenset("other others all corporate total unallocated remaining rest".split())


def fact_member(fact: Fact) -> Member | None:
    """The member ``fact`` is the figure of (module docstring), or None."""
    found = entries(fact.dims)
    if len(found) == 2:
        kinds = [axis_kind(a) for a, _ in found]
        parent = [i for i, (a, _) in enumerate(found) if "businesssegments" in a.lower()]
        if len(parent) != 1 or kinds[1 - parent[0]] not in ("segment", "product"):
            return None
        found = [found[1 - parent[0]]]
    if len(found) != 1:
        return None
    axis, member = found[0]
    if is_aggregate(member) or "consolidationitems" in axis.lower():
        return None
    name = fact.member_names.get(member) or member_words(member)
    kind = axis_kind(axis)
    if ":" not in axis and kind != "geography" and is_country(name):
        kind = "geography"  # a table's country column or row: a region
    return Member(axis=axis, kind=kind, member=member, name=name,
                  aliases=_aliases(name, member_words(member)))


def group(facts: Iterable[Fact], owners: dict[str, str] | None = None
          ) -> list[tuple[Member, list[Fact]]]:
    """The facts of each member, members in the order the filing prints them first.
    ``owners``: doc_id -> company (None: one company). A company's members of one kind that
    are one member under two names are merged (``member_merge.merge``, module docstring)."""
    owner = (lambda f: owners.get(f.doc_id, f.doc_id)) if owners else (lambda f: "")
    by_key: dict[tuple[str, str, str], tuple[Member, list[Fact]]] = {}
    for f in facts:
        member = fact_member(f)
        if member is None:
            continue
        key = (owner(f), member.axis, member.member)
        by_key.setdefault(key, (member, []))[1].append(f)
    out = sorted(by_key.items(), key=lambda kv: min(_position(f) for f in kv[1][1]))
    return [mf for _, mf in merge(out)]


def of_kind(member: Member, kind: str | None) -> bool:
    """Whether ``member`` is of ``kind`` (None: any): a region is also a segment or other
    member printed as a place (a filer whose segments are its regions); a segment is never
    a region's member (a country on the geographic axis)."""
    return kind is None or member.kind == kind or (kind == "geography" and
                                                   is_place(member.name))


def match_member(words: str, members: list[Member], kind: str | None = None
                 ) -> Member | None:
    """The member ``words`` name (as printed, in its aliases or recorded words, or
    abbreviated; "Med Tech" ~ "MedTech", "Europe Middle East Africa" ~ "Europe, Middle East
    & Africa", "EMEA" ~ "Europe, Middle East & Africa"), the longest name first, a segment
    before a product line, region or other; None when none is named. A name of generic
    words only ("Other", "All Other") counts only when it is the words. ``kind``: only
    members of that kind (``of_kind``)."""
    best: tuple | None = None
    for rank, m in enumerate(members):
        named = naming_score(words, m) if of_kind(m, kind) else None
        if named is not None:
            score = (*named, -_KINDS.index(m.kind), -rank)
            if best is None or score > best[0]:
                best = (score, m)
    return best[1] if best else None


def naming_score(words: str, member: Member) -> tuple[bool, int] | None:
    """How well ``words`` name ``member`` (``match_member``): (the words are its name, the
    length of the name they print), or None when they do not name it."""
    best, whole = None, _key(words)
    for name in member.names():
        key = _key(name)
        if not key:
            continue
        generic = all(w in GENERIC for w, _, _ in tokens(name))
        if generic and key != whole:
            continue
        if _ABBREVIATION.fullmatch(name.strip()) and not re.search(
                rf"\b{re.escape(name.strip())}\b", words):
            continue  # a country code ("IN", "US") only as printed, never "in" or "us"
        length = len(key) if key == whole or find_name(name, words) else 0
        if not length and member.kind != "other" and not generic:
            span = find_abbreviation(name, words)
            length = span[1] - span[0] if span else 0
        if length and (best is None or (key == whole, length) > best):
            best = (key == whole, length)
    return best


def reporting(grouped: list[tuple[Member, list[Fact]]], metric: str | None
              ) -> list[tuple[Member, list[Fact]]]:
    """The members among ``grouped`` with a fact of ``metric`` (any period); all of them
    when ``metric`` is None or derived."""
    entry = catalog().get(metric) if metric else None
    if entry is None or entry.derived:
        return grouped
    return [(m, fs) for m, fs in grouped if any(match_rank(entry, f) is not None for f in fs)]


def pick(grouped: list[tuple[Member, list[Fact]]], words: str, metric: str | None = None,
         kind: str | None = None) -> tuple[Member, list[Fact]] | None:
    """The member ``words`` name and its facts: among the members reporting ``metric``
    first (a product line "Client" before a segment "Client" holding only goodwill);
    ``kind``: only members of that kind."""
    for among in (reporting(grouped, metric), grouped):
        member = match_member(words, [m for m, _ in among], kind)
        if member is not None:
            return next((m, fs) for m, fs in among if m == member)
    return None


def member_facts(facts: Iterable[Fact], words: str, metric: str | None = None
                 ) -> tuple[Member | None, list[Fact]]:
    """The member ``words`` name among ``facts`` (``pick``) and its facts, their dimensions
    set aside (so they rank as an entity's facts do); ``(None, [])`` when none is named."""
    found = pick(group(facts), words, metric)
    if found is None:
        return None, []
    return found[0], [f.model_copy(update={"dims": ""}) for f in found[1]]


def restore(fact: Fact | None, facts: list[Fact]) -> Fact | None:
    """The recorded fact (with its dimensions) for a fact of ``member_facts``."""
    if fact is None:
        return None
    own = next((f for f in facts if f.fact_id == fact.fact_id), None)
    return fact.model_copy(update={"dims": own.dims}) if own is not None else fact


def member_input(metric: str, period: str, member: Member, found: list[tuple[int, Fact]],
                 recorded: list[Fact], prefer: list[str], years: dict[str, int],
                 names: dict[str, str], ref: str | None = None) -> FigureInput:
    """The member's figure for ``metric`` in ``period`` from the candidates ``found``
    among its facts (``member_facts``; ``recorded``: the facts as stored); ``ref``: the
    reference as the formula spells it (default: with the member's printed name)."""
    entry = catalog().get(metric)
    fact, alternatives = choose(entry, period, found, prefer, years)
    item = to_input(entry, period, restore(fact, recorded),
                    [restore(a, recorded) for a in alternatives], names, years,
                    [f for _, f in found])
    ref = ref or f"{metric}{{{member.name}}}[{period}]"
    label = f"{entry.label} ({member.name}), {period}"
    note = item.note if fact is not None else \
        f"no {period} {member.name} {entry.label} in the filings loaded"
    return item.model_copy(update={"ref": ref, "label": label, "note": note})


def companies_by_doc(store) -> dict[str, tuple[str, list[str]]]:
    """doc_id -> (its company's canonical name, the company's doc_ids) (``core.store.
    companies``); empty when the store lists no documents."""
    from core.store.companies import companies

    try:
        docs = list(store.documents())
    except (AttributeError, TypeError):
        return {}
    return {d: (c.name, list(c.doc_ids)) for c in companies(docs) for d in c.doc_ids}


def members(store, doc_ids: list[str] | None, metric: str, period: str,
            kind: Kind | None = None) -> list[tuple[Member, FigureInput]]:
    """Every member's figure for ``metric`` in ``period`` among ``doc_ids``' facts (None:
    every filing), one per member and company, the best fact, in the order the filing
    prints them; ``kind`` keeps one kind of member (``of_kind``). The entity total is not
    among them."""
    entry = catalog().get(metric)
    if entry is None or entry.derived:
        raise FormulaError(f"{metric!r} is not a looked-up metric of the catalogue.")
    year = split_period(period)[0]
    recorded = list(store.facts(doc_ids or None, fiscal_years=[year, year + 1, year + 2]))
    years = doc_years(recorded)
    try:
        names = {d.doc_id: d.file_name for d in store.documents()}
    except (AttributeError, TypeError):
        names = {}
    owners = {d: name for d, (name, _) in companies_by_doc(store).items()}
    out = []
    for member, own in group(recorded, owners):
        if not of_kind(member, kind):
            continue
        stripped = [f.model_copy(update={"dims": ""}) for f in own]
        item = member_input(metric, period, member, candidates(entry, period, stripped), own,
                            [], years, names)
        if item.fact is not None:
            out.append((member, item))
    return out


class MemberOwner(NamedTuple):
    """A company whose filings have a member some words name (``companies_of_member``)."""

    company: str
    """The company's canonical name (``core.store.companies``)."""
    doc_ids: list[str]
    """Its filings holding the member's facts, in corpus order."""
    name: str
    """The member's name as the filing prints it ('Widget Cloud')."""
    kind: str
    """'segment', 'product', 'geography' (a region) or 'other'."""


def facts_state(store) -> tuple[dict[str, int] | None, dict[str, str]]:
    """(doc_id -> number of facts, doc_id -> the reader that read them) of a store: what
    moves when a filing's facts change (added, deleted, read again by another reader);
    ``(None, {})`` for a store that says neither."""
    try:
        status = store.facts_status()
    except (AttributeError, TypeError):
        status = None
    readers = getattr(store, "facts_readers", None) or getattr(
        getattr(store, "registry", None), "facts_readers", None)
    try:
        read_by = readers() if callable(readers) else {}
    except Exception:  # noqa: BLE001 - a registry without readers: the counts alone
        read_by = {}
    return status, dict(read_by or {})


_OWNED: dict[tuple, list[tuple[str, list[str], Member]]] = {}
OWNER_METRICS = ("revenue", "operating_income", "gross_profit", "net_income")


def _owned_members(store) -> list[tuple[str, list[str], Member]]:
    """(company, doc_ids, member) for every segment, product line and region of the corpus
    reporting one of ``OWNER_METRICS``, remembered while the corpus's facts stay as they
    are (which filings have facts, how many, read by which reader)."""
    status, read_by = facts_state(store)
    key = (id(store), tuple(sorted((status or {}).items())), tuple(sorted(read_by.items())))
    if status is not None and key in _OWNED:
        return _OWNED[key]
    by_doc = companies_by_doc(store)
    facts = [f for metric in OWNER_METRICS for f in store.facts(None, metric=metric) if f.dims]
    facts.sort(key=lambda f: f.fact_id)
    out = []
    for member, own in group(facts, {d: n for d, (n, _) in by_doc.items()}):
        if member.kind == "other":
            continue
        docs = list(dict.fromkeys(f.doc_id for f in own))
        company = by_doc.get(docs[0], (docs[0], docs))[0]
        out.append((company, docs, member))
    if status is not None:
        if len(_OWNED) > 8:
            _OWNED.clear()
        _OWNED[key] = out
    return out


def companies_of_member(store, words: str, kind: Kind | None = None) -> list[MemberOwner]:
    """The companies whose filings have the segment, product line or region ``words`` name
    (a name or a question: "Widget Cloud", "What was Gadgets revenue in FY2023?"),
    case-insensitive, by its printed name, an alias or an abbreviation (``match_member``).
    Only the companies whose member is named best are returned (words naming "Widget
    Cloud" do not also return a company with a member "Cloud"), one entry each, in corpus
    order; [] when none. ``kind``: members of that kind only (``of_kind``). Members
    reporting none of ``OWNER_METRICS`` are not looked at. The corpus's members are read
    once per state of its facts (``facts_state``)."""
    best: dict[str, tuple[tuple, MemberOwner]] = {}
    for company, docs, member in _owned_members(store):
        score = naming_score(words, member) if of_kind(member, kind) else None
        held = best.get(company)
        if score is not None and (held is None or score > held[0]):
            best[company] = (score, MemberOwner(company, docs, member.name, member.kind))
    if not best:
        return []
    top = max(score for score, _ in best.values())
    return [owner for score, owner in best.values() if score == top]
