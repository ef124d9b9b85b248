"""Segments, product lines and regions: the members of a filing's dimensional facts.

A dimensional fact is the figure of one member when its dimensions, the neutral
``ConsolidationItemsAxis=OperatingSegmentsMember`` aside, name one member, or a segment and a
finer part of it (a product line or sub-segment of the segment: the finer one is the
member); totals, eliminations and reconciling items are no member. A member is known by its
axis and QName ('us-gaap:StatementBusinessSegmentsAxis', 'adbe:DigitalMediaMember') and
named as the filing prints it ('Digital Media', ``Fact.member_names``); a table's member
column (a PDF's segment table) is the same member when it prints the same name.

* ``members(store, doc_ids, metric, period)``: every member's figure for a metric and period
  (one per member, the best fact), in the order the filing prints them;
* ``match_member(words, members)``: the member some words name ("Med Tech" ~ "MedTech");
* ``member_facts(facts, words)``: the facts of the member ``words`` name, its dimensions set
  aside, so the look-up ranks them as it ranks an entity's (``core.figures.compute``);
* which member a question names: ``core.figures.segments_asked``.

A member's figure never stands beside the entity total as a disagreeing alternative: its
facts are looked up among its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, Field

from core.figures.formula import FormulaError
from core.figures.lookup import (
    candidates,
    choose,
    doc_years,
    match_rank,
    split_period,
    to_input,
)
from core.figures.model import FigureInput
from core.foundation.types import Fact
from core.ingest.facts.members import (
    axis_kind,
    entries,
    find_name,
    is_aggregate,
    is_place,
    member_words,
    tokens,
)
from core.metrics import catalog

Kind = Literal["segment", "product", "geography", "other"]
_KINDS = ("segment", "product", "geography", "other")
_ABBREVIATION = re.compile(r"[A-Z]{1,3}")
GENERIC = frozenset("other others all corporate total unallocated remaining rest".split())


class Member(BaseModel):
    """A segment, product line, region (or another member) of a filing's facts."""

    axis: str = Field(description="As recorded: 'us-gaap:StatementBusinessSegmentsAxis', "
                      "or a table's 'column'.")
    kind: Kind
    member: str = Field(description="As recorded: 'adbe:DigitalMediaMember' or a table "
                        "heading.")
    name: str = Field(description="As the filing prints it: 'Digital Media'.")


def _key(name: str) -> str:
    return "".join(w for w, _, _ in tokens(name))


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
    return Member(axis=axis, kind=axis_kind(axis), member=member, name=name)


def _position(fact: Fact) -> tuple:
    """Where a fact is printed: its chunk, then its order of extraction (hidden last)."""
    def num(text: str | None) -> int:
        m = re.search(r"(\d+)$", text or "")
        return int(m.group(1)) if m else 10**9
    return (fact.chunk_id is None, num(fact.chunk_id), num(fact.fact_id))


def group(facts: Iterable[Fact]) -> list[tuple[Member, list[Fact]]]:
    """The facts of each member, members in the order the filing prints them first. A
    table's member column joins the tagged member of the same name."""
    by_key: dict[tuple[str, str], tuple[Member, list[Fact]]] = {}
    names: dict[str, tuple[str, str]] = {}
    for f in facts:
        member = fact_member(f)
        if member is None:
            continue
        key = (member.axis, member.member)
        if key not in by_key:
            joined = names.get(_key(member.name)) if ":" not in member.axis else None
            if joined is not None:
                key = joined
            else:
                by_key[key] = (member, [])
                if ":" in member.axis:
                    names.setdefault(_key(member.name), key)
        by_key[key][1].append(f)
    # a table column seen before its tagged member: join it now
    for key in [k for k in by_key if ":" not in k[0]]:
        other = names.get(_key(by_key[key][0].name))
        if other is not None and other != key:
            by_key[other][1].extend(by_key.pop(key)[1])
    out = list(by_key.values())
    out.sort(key=lambda mf: min(_position(f) for f in mf[1]))
    return out


def match_member(words: str, members: list[Member]) -> Member | None:
    """The member ``words`` name (as printed or in its recorded words; "Med Tech" ~
    "MedTech", "Europe Middle East Africa" ~ "Europe, Middle East & Africa"), the longest
    name first, a segment before a product line, region or other; None when none is named.
    A name of generic words only ("Other", "All Other") counts only when it is the words."""
    best: tuple | None = None
    whole = _key(words)
    for rank, m in enumerate(members):
        for name in dict.fromkeys((m.name, member_words(m.member))):
            key = _key(name)
            if not key:
                continue
            generic = all(w in GENERIC for w, _, _ in tokens(name))
            if generic and key != whole:
                continue
            if _ABBREVIATION.fullmatch(name.strip()) and not re.search(
                    rf"\b{re.escape(name.strip())}\b", words):
                continue  # a country code ("IN", "US") only as printed, never "in" or "us"
            if key == whole or find_name(name, words):
                score = (key == whole, len(key), -_KINDS.index(m.kind), -rank)
                if best is None or score > best[0]:
                    best = (score, m)
    return best[1] if best else None


def reporting(grouped: list[tuple[Member, list[Fact]]], metric: str | None
              ) -> list[tuple[Member, list[Fact]]]:
    """The members among ``grouped`` with a fact of ``metric`` (any period); all of them
    when ``metric`` is None or derived."""
    entry = catalog().get(metric) if metric else None
    if entry is None or entry.derived:
        return grouped
    return [(m, fs) for m, fs in grouped if any(match_rank(entry, f) is not None for f in fs)]


def pick(grouped: list[tuple[Member, list[Fact]]], words: str, metric: str | None = None
         ) -> tuple[Member, list[Fact]] | None:
    """The member ``words`` name and its facts: among the members reporting ``metric``
    first (a product line "Client" before a segment "Client" holding only goodwill)."""
    for among in (reporting(grouped, metric), grouped):
        member = match_member(words, [m for m, _ in among])
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


def members(store, doc_ids: list[str] | None, metric: str, period: str,
            kind: Kind | None = None) -> list[tuple[Member, FigureInput]]:
    """Every member's figure for ``metric`` in ``period`` among ``doc_ids``' facts (None:
    every filing), one per member, the best fact, in the order the filing prints them;
    ``kind`` keeps one kind of member. The entity total is not among them."""
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
    out = []
    for member, own in group(recorded):
        if kind is not None and member.kind != kind \
                and not (kind == "geography" and is_place(member.name)):
            continue
        stripped = [f.model_copy(update={"dims": ""}) for f in own]
        item = member_input(metric, period, member, candidates(entry, period, stripped), own,
                            [], years, names)
        if item.fact is not None:
            out.append((member, item))
    return out
