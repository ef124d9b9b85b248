"""Which member (segment, product line, region) a figure question asks about, and the
formula made that member's.

``named_member`` reads the asked sentence: a member named anywhere in it when it says
"segment" or asks a share of the metric ("What share of revenue came from Google
Services?"), else a member named right before the metric ("Data Center revenue",
"subscription revenue") or after it ("revenue from Greater China"). Members are those of the
filings in scope (``core.figures.segments``), those reporting the metric first; their
dimensional facts are remembered per filing while its facts stay as they are. ``of_member``
makes the formula the member's: its figure (a segment's margin is its own income over its
own revenue), or its share of the entity's total.
"""

from __future__ import annotations

import re
from dataclasses import replace

from core.figures.clauses import clause_span
from core.figures.formula import BinOp, Node, Ref, with_member
from core.figures.segments import (
    GENERIC,
    Member,
    companies_by_doc,
    facts_state,
    group,
    pick,
    reporting,
)
from core.foundation.types import Fact
from core.ingest.facts.members import find_name, tokens
from core.metrics import catalog

_CACHE: dict[tuple, list[Fact]] = {}
_AFTER = re.compile(r"^\s*(?:(?:generated|earned|derived|reported)\s+)?(?:from|in|by|for)\s+"
                    r"(?:the\s+|its\s+|their\s+)?$", re.I)


def _dimensional(store, doc_id: str | None, status: dict[str, int] | None,
                 readers: dict[str, str] | None = None) -> list[Fact]:
    """The dimensional facts of one filing (None: every filing), remembered per filing
    while its facts stay as they are (``facts_state``: their number and reader)."""
    key = (id(store), doc_id, status.get(doc_id) if status and doc_id else None,
           (readers or {}).get(doc_id or ""))
    if status is None or key not in _CACHE:
        found = [f for f in store.facts([doc_id] if doc_id else None) if f.dims]
        if status is None:
            return found
        if len(_CACHE) > 64:
            _CACHE.clear()
        _CACHE[key] = found
    return _CACHE[key]


def members_in_scope(store, doc_ids: list[str]) -> list[tuple[Member, list[Fact]]]:
    """Every member of the facts of ``doc_ids`` (empty: every filing) with its facts."""
    status, readers = facts_state(store)
    ids = list(doc_ids) or (list(status) if status is not None else [None])
    owners = {d: name for d, (name, _) in companies_by_doc(store).items()}
    return group((f for d in ids for f in _dimensional(store, d, status, readers)), owners)


def _adjacent(m: Member, before: str, after: str) -> bool:
    """Whether ``m`` is named right before the metric or after it ("from ...")."""
    for name in m.names():
        if all(w in GENERIC for w, _, _ in tokens(name)):
            continue
        span = find_name(name, before)
        if span and not before[span[1]:].strip():
            return True
        span = find_name(name, after)
        if span and _AFTER.match(after[:span[0]]):
            return True
    return False


_FRAME = frozenset("""what how which did does do has have is was were in for from by the
    total net our its their much many a an of to at as on with and or company company's
    reported annual quarterly consolidated overall fiscal year full entire""".split())
_PREPOSITION_NAME = re.compile(r"^\s*(?:(?:generated|earned|derived|reported)\s+)?(?:from|in|"
                               r"by|for)\s+(?:the\s+|its\s+|their\s+)?[A-Z0-9]")


def _may_name(before: str, after: str) -> bool:
    """Whether the words beside a metric may name a member (a word of its own right
    before it, or a name after "from" / "in"): else no member is looked for."""
    words = re.findall(r"[\w&'.-]+", before)
    last = words[-1].lower().strip("'.") if words else ""
    return bool(last and last not in _FRAME and not last.endswith("'s")) or \
        bool(_PREPOSITION_NAME.match(after))


def named_member(text: str, start: int, end: int, anywhere: bool, store,
                 doc_ids: list[str], metric: str | None = None, raw: str = ""
                 ) -> Member | None:
    """The member a question's asked sentence ``text`` names for the metric at
    ``text[start:end]``: anywhere in it when ``anywhere`` (it says "segment", or asks a
    share of the metric), else right before the metric ("Data Center revenue") or after
    it ("revenue from Greater China"); None when none is named or no store is given. Only
    the metric's own clause is read (``core.figures.clauses``): "Did Acme's revenue grow,
    and what drove Cloud?" asks the total's growth.
    ``raw``: the sentence before company names were blanked (a member's word read as a
    company's name, "Med Tech"), read when ``text`` names none."""
    a, b = clause_span(text, start, end)  # a member binds to its own clause's measure only
    if raw and len(raw) == len(text):
        raw = raw[a:b]
    text, start, end = text[a:b], start - a, end - a
    proper = bool(_PROPER.search(text))
    if store is None or not (anywhere or proper or _may_name(text[:start], text[end:])):
        return None
    grouped = members_in_scope(store, doc_ids)
    if anywhere:
        found = pick(grouped, text, metric) or (pick(grouped, raw, metric) if raw else None)
        return found[0] if found else None
    before, after = text[:start].rstrip(), text[end:]
    for tier in (reporting(grouped, metric), grouped):
        ordered = sorted((m for m, _ in tier), key=lambda m: -len(m.name))
        for m in ordered:
            if _adjacent(m, before[-80:], after[:80]):
                return m
        for m in ordered if proper else ():
            if _capitalised(m, text):  # "How much did Google Cloud contribute to revenue"
                return m
    return None


_PROPER = re.compile(r"(?<=\w)\s+(?!(?:FY|Q[1-4]|H[12])\b)[A-Z]")


def _capitalised(m: Member, text: str) -> bool:
    """Whether ``text`` names ``m`` as a proper name (capitalised, past its first word)."""
    for name in m.names():
        if all(w in GENERIC for w, _, _ in tokens(name)):
            continue
        span = find_name(name, text)
        if span and span[0] > 0 and text[span[0]].isupper():
            return True
    return False


def member_phrase(member: Member) -> str:
    """'Digital Media segment', 'Data Center', 'United States'."""
    if member.kind == "segment" and "segment" not in member.name.lower():
        return f"{member.name} segment"
    return member.name


def of_member(node: Node, words: str, member: Member, share: bool) -> tuple[Node, str]:
    """The asked formula and its name made ``member``'s: its figure (every reference the
    member's: a segment's margin is its income over its revenue), or with ``share`` its
    part of the entity's (member / total)."""
    if share and isinstance(node, Ref):
        return (BinOp("/", replace(node, member=member.name), node),
                f"{member_phrase(member)} share of {_label(node)}")
    if isinstance(node, BinOp) and node.op == "/" and isinstance(node.left, Ref) and \
            isinstance(node.right, Ref) and node.left.metric == node.right.metric:
        return BinOp("/", replace(node.left, member=member.name), node.right), \
            f"{member_phrase(member)} share of {_label(node.right)}"  # "X as a % of Y"
    return with_member(node, member.name), f"{member_phrase(member)} {words}"


def _label(ref: Ref) -> str:
    entry = catalog().get(ref.metric)
    return entry.label if entry is not None else ref.metric.replace("_", " ")


def without_member(text: str, start: int, end: int, member: Member) -> tuple[str, int, int]:
    """The asked sentence with the member's name and the blanks before the metric taken
    out, and the metric's new offsets: what the sentence asks of the figure ("the growth
    rate of Innovative Medicine sales") read as for an entity's ("the growth rate of
    sales")."""
    before = text[:start]
    for name in member.names():
        span = find_name(name, before)
        if span:
            before = before[:span[0]] + before[span[1]:]
            break
    before = re.sub(r"\s+", " ", before)
    return before + text[start:], len(before), len(before) + end - start
