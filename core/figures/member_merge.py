"""One member under several names, merged (``core.figures.segments.group``).

A company's member printed under two names is one member: a table's member (a PDF's
segment table, an MD&A table printing "APAC" or "IS") joins the tagged member whose name,
QName words or alias it prints, written out or abbreviated ("APAC" ~ "Asia Pacific", "U.S."
~ "United States", "IS" ~ "Industrial Solutions"); two tagged members of one axis printed
under one name ('srt:AsiaPacificMember' and 'srt:AsiaMember', both "APAC") are one. Two
members that report different figures for the same line and period are never merged (a
table printing the tagged member's very name joins it whatever its figures: a restated
table). The merged member keeps the first one's name; the others' names become aliases.
"""

from __future__ import annotations

import re

from core.figures.member import Member
from core.foundation.types import Fact
from core.ingest.facts.members import tokens
from core.ingest.facts.naming import same_name

Found = tuple[tuple[str, str, str], tuple["Member", list[Fact]]]


def name_key(name: str) -> str:
    """A name's words as matched, run together: 'Asia-Pacific' -> 'asiapacific'."""
    return "".join(w for w, _, _ in tokens(name))


def other_names(name: str, *others: str) -> list[str]:
    """``others`` that are other names than ``name`` (their words differ), once each."""
    seen, out = {name_key(name)}, []
    for other in others:
        if other and name_key(other) not in seen:
            seen.add(name_key(other))
            out.append(other)
    return out


def position(fact: Fact) -> tuple:
    """Where a fact is printed: its chunk, then its order of extraction (hidden last)."""
    def num(text: str | None) -> int:
        m = re.search(r"(\d+)$", text or "")
        return int(m.group(1)) if m else 10**9
    return (fact.chunk_id is None, num(fact.chunk_id), num(fact.fact_id))


def merge(found: list[Found]) -> list[Found]:
    """``found`` with each member merged into one of its company that is the same member:
    a table's member (no QName) into a tagged one of the same name or abbreviation (a
    segment, product line or region before another member, its very name before an
    abbreviation, its own kind before another); a tagged one into one of the same axis."""
    ordered = sorted(found, key=lambda kv: ":" not in kv[1][0].axis)  # tagged ones first
    kept: list[Found] = []
    for key, (member, own) in ordered:
        fits = [(_preference(held, member), n) for n, (k, (held, facts)) in enumerate(kept)
                if k[0] == key[0] and _same_member(held, member)
                and (_agree(facts, own) or _plain_join(held, member))]
        if not fits:
            kept.append((key, (member, list(own))))
            continue
        held, facts = kept[min(fits)[1]][1]
        held.aliases = other_names(held.name, *held.aliases, *member.names())
        facts.extend(own)
    kept.sort(key=lambda kv: min(position(f) for f in kv[1][1]))
    return kept


def _preference(held: Member, member: Member) -> tuple[bool, bool, bool]:
    """Which of the members ``member`` may join it joins (lowest first)."""
    return held.kind == "other", not _plain_join(held, member), held.kind != member.kind


def _same_member(held: Member, other: Member) -> bool:
    """Whether ``other`` is ``held`` under another name (its words, or an abbreviation): a
    tagged member only one of its own axis."""
    if ":" in other.axis and other.axis != held.axis:
        return False
    mine, theirs = held.names(), [other.name] if ":" not in other.axis else other.names()
    return any(name_key(a) == name_key(b) or same_name(a, b) for a in mine for b in theirs)


def _plain_join(held: Member, other: Member) -> bool:
    """A table's member printed under the tagged member's own name joins it whatever its
    figures (a table restating them)."""
    return ":" not in other.axis and name_key(other.name) == name_key(held.name)


def _agree(held: list[Fact], other: list[Fact]) -> bool:
    """Whether two members' facts never give a line different figures for one period."""
    seen = {(f.metric, f.fiscal_year, f.fiscal_period, f.months, f.end): f.value
            for f in held if f.metric}
    for f in other:
        value = seen.get((f.metric, f.fiscal_year, f.fiscal_period, f.months, f.end))
        if f.metric and value is not None and abs(value - f.value) > max(
                abs(value) * 0.005, 10 ** max(f.scale, 0)):
            return False
    return True
