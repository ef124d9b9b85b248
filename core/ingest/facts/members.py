"""Members of a fact's dimensions (a segment, a product line, a region) and their names as
the filing prints them.

An iXBRL fact of a segment carries its member as a QName ('adbe:DigitalMediaMember',
'ko:EuropeMiddleEastAfricaMember', 'ko:A.PacificMember'); the name an analyst reads is the
one printed in the filing ("Digital Media", "Europe, Middle East & Africa", "Asia
Pacific"). The member's words (its local name without "Member", camel case split) are
found in the filing's table headings and line items first, then in its text; a name is
matched word by word, ignoring case, punctuation, "and"/"&", words run together or apart
("MedTech" ~ "Med Tech") and one-letter abbreviations ("A. Pacific" ~ "Asia Pacific").
The same matching tells which member a question's words name (``core.figures.segments``).

A member no heading names takes the heading the filing prints for it where its facts are
printed (``finish_names``): the member row or column of the table its figure is linked to
(Alphabet's "APAC" row for 'srt:AsiaPacificMember'), else the part of the row's line item
that names it ("U.S." in "Net sales – in the U.S.") or, for a code, a region or a standard
member, the line item itself when it names no metric ("Other Bets"). A metric's name
("Revenues", "Total revenues") never names a member (``naming``): such a member keeps its
own words ('srt:AsiaPacificMember' "Asia Pacific"; 'country:US' "United States").

``srt:ConsolidationItemsAxis=us-gaap:OperatingSegmentsMember`` beside a segment says the
figure is the segment's own (before eliminations): it does not make another member.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable

from core.foundation.types import Fact
from core.ingest.facts.countries import country_of
from core.ingest.facts.naming import find_abbreviation, is_metric_name, names_metric

NEUTRAL = frozenset({"srt:ConsolidationItemsAxis=us-gaap:OperatingSegmentsMember"})
_TOKEN = re.compile(r"[A-Za-z0-9]+|&")
_STOP = frozenset({"and", "the", "of"})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=\d)|\.")
_TRAILING = re.compile(r"(?:\s+(?:segments?|member|revenues?|sales))+$", re.I)
_STANDARD = ("us-gaap:", "srt:", "country:", "ifrs-full:", "dei:")
# Members that total, reconcile or eliminate (us-gaap's and the filers' own): no segment.
_AGGREGATE = re.compile(r"aggregat|eliminat|reconcil|segmentstotal|^total|intersegment|"
                        r"consolidat", re.I)


def entries(dims: str) -> list[tuple[str, str]]:
    """'axis=member; axis=member' -> [(axis, member)], neutral qualifiers left out."""
    out = []
    for part in dims.split(";"):
        part = part.strip()
        if part and part not in NEUTRAL and "=" in part:
            axis, member = part.split("=", 1)
            out.append((axis.strip(), member.strip()))
    return out


def axis_kind(axis: str) -> str:
    """'segment', 'product', 'geography' (a region) or 'other' for a recorded axis. A
    geographic axis is a region's whatever else it says ('acme:GeographicSegmentsAxis'); a
    sub-segment ('us-gaap:SubsegmentsAxis': a franchise, a therapeutic area within a
    segment) is a product line, never a reportable segment."""
    low = axis.lower()
    if "geograph" in low:
        return "geography"
    if "subsegment" in low:
        return "product"
    if "segment" in low:
        return "segment"
    if "productorservice" in low or "productsandservices" in low or low == "product":
        return "product"
    if "geograph" in low or low in {"region", "country"}:
        return "geography"
    return "other"


_PLACE = re.compile(
    r"\b(?:north|south|latin|central)\s+america|\bamericas\b|\beurope\w*|\bemea\b|\bapac\b|"
    r"\bapla\b|\bmiddle\s+east\b|\bafrica\b|\basia\b|\bpacific\b|\beurasia\b|\bchina\b|"
    r"\bjapan\b|\bindia\b|\bcanada\b|\bmexico\b|\bbrazil\b|\bunited\s+(?:states|kingdom)\b|"
    r"^u\.?s\.?$|^uk$|\bgermany\b|\bfrance\b|\bkorea\b|\btaiwan\b|\bsingapore\b|"
    r"\baustralia\b|\binternational\b|\bdomestic\b|\bforeign\b|\brest\s+of\s+(?:the\s+)?world\b|"
    r"\bother\s+countries\b|\bworldwide\b", re.I)


def is_place(name: str) -> bool:
    """Whether a member's printed name is a place ("North America", "Greater China",
    "Europe, Middle East & Africa", "International"): a region, whatever the axis or table
    it is printed under (a filer whose operating segments are its regions)."""
    return bool(_PLACE.search(name))


def is_aggregate(member: str) -> bool:
    """A member that totals or reconciles others (eliminations, 'segments total', the
    reportable segments before other ones): not a part of the entity."""
    return bool(_AGGREGATE.search(member.split(":")[-1]))


def member_words(member: str) -> str:
    """'adbe:DigitalMediaMember' -> 'Digital Media'; 'ko:LatinAmericaSegmentMember' ->
    'Latin America'; 'ko:A.PacificMember' -> 'A Pacific'; 'country:TW' -> 'Taiwan' (its
    country's name); a table heading stays as is."""
    country = country_of(member)
    if country:
        return country
    local = member.split(":", 1)[1] if ":" in member and " " not in member else member
    if " " in local:
        return local
    local = re.sub(r"Member$", "", local)
    words = " ".join(w for w in _CAMEL.split(local) if w)
    return _TRAILING.sub("", words).strip() or words


def tokens(text: str) -> list[tuple[str, int, int]]:
    """Words of ``text`` as matched: lower case, '&' as 'and', a plural's "s" dropped
    ("Services" ~ "Service"), stop words left out; ``(word, start, end)``."""
    out = []
    for m in _TOKEN.finditer(text):
        word = "and" if m.group(0) == "&" else m.group(0).lower()
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        if word not in _STOP:
            out.append((word, m.start(), m.end()))
    return out


def _match(want: list[str], seen: list[str], i: int) -> int | None:
    """The index after the printed words ``seen[i:]`` that spell ``want``, or None: words
    run together or apart, and a one-letter word abbreviating a printed one."""
    if not want:
        return i
    if i >= len(seen):
        return None
    for n_want in range(1, min(3, len(want)) + 1):
        target = "".join(want[:n_want])
        acc = ""
        for k in range(i, min(i + 3, len(seen))):
            acc += seen[k]
            if acc == target:
                end = _match(want[n_want:], seen, k + 1)
                if end is not None:
                    return end
            if not target.startswith(acc):
                break
    if len(want[0]) == 1 and len(seen[i]) > 1 and seen[i][0] == want[0] and len(want) > 1:
        return _match(want[1:], seen, i + 1)
    return None


def _span(text: str, toks: list[tuple[str, int, int]], i: int, end: int) -> tuple[int, int]:
    """The printed span of ``toks[i:end]``, with the dot of a closing abbreviation ("U.S.")."""
    a, b = toks[i][1], toks[end - 1][2]
    if b < len(text) and text[b] == "." and b - toks[end - 1][1] == 1:
        b += 1
    if b < len(text) and text[b] == ")" and text.count("(", a, b) > text.count(")", a, b):
        b += 1
    return a, b


def find_name(words: str, text: str) -> tuple[int, int] | None:
    """Where ``text`` prints the name ``words`` (see the module docstring), or None."""
    want = [w for w, _, _ in tokens(words)]
    seen = tokens(text)
    if not want:
        return None
    plain = [w for w, _, _ in seen]
    for i in range(len(seen)):
        end = _match(want, plain, i)
        if end is not None:
            return _span(text, seen, i, end)
    return None


class NameIndex:
    """Printed texts searched for many names at once (headings, then the text): each text
    is tokenised once and its words indexed by first letter."""

    def __init__(self, texts: Iterable[str]):
        self.texts = [t for t in texts if t]
        self.toks = [tokens(t) for t in self.texts]
        self.plain = [[w for w, _, _ in toks] for toks in self.toks]
        self.by_letter: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for n, toks in enumerate(self.toks):
            for i, (word, _, _) in enumerate(toks):
                self.by_letter[word[0]].append((n, i))

    def find(self, words: str) -> str | None:
        """The first printed span naming ``words``, as printed, or None."""
        want = [w for w, _, _ in tokens(words)]
        if not want:
            return None
        first = None
        for n, i in self.by_letter.get(want[0][0], []):
            end = _match(want, self.plain[n], i)
            if end is not None:
                a, b = _span(self.texts[n], self.toks[n], i, end)
                name = " ".join(self.texts[n][a:b].split())
                if name[:1].isupper():
                    return name  # a name as headings print it, not a word of prose
                first = first or name
        return first


def _heading(dims: str) -> str:
    """The member heading of a table fact's dims ('column=Graphics' -> 'Graphics')."""
    found = entries(dims)
    return found[0][1] if found else ""


def _is_code(words: str) -> bool:
    return len(words) <= 3 and words.isupper()


def printed_names(tagged: list, table: list, text: str) -> dict[str, str]:
    """Each member of the XBRL facts ``tagged`` -> its name as printed: in the line items,
    column headings and member columns of the tables ``table`` first, else in ``text``
    (the text is read only for a segment, product or region no heading names). A metric's
    line item is no name."""
    members = list(dict.fromkeys((m, axis_kind(a)) for f in tagged if f.dims
                                 for a, m in entries(f.dims)))
    if not members:
        return {}
    headings = NameIndex(dict.fromkeys(t for f in table
                                       for t in (f.label, f.column, _heading(f.dims)) if t))
    body: NameIndex | None = None
    names: dict[str, str] = {}
    for member, kind in members:
        words = member_words(member)
        if _is_code(words) or country_of(member):
            continue  # a code ('country:CN', 'stpr:CA'): the row it is printed in names it
        name = headings.find(words)
        if name is None and len(words) > 2 and kind != "other" and not _by_row(member, kind):
            body = body or NameIndex([text])
            name = body.find(words)
        if name and not is_metric_name(name):
            names[member] = name
    return names


def _by_row(member: str, kind: str) -> bool:
    """Whether a member no heading names is named by the rows its facts are printed in: a
    code, a region, a standard member ('us-gaap:AllOtherSegmentsMember' is "Other Bets"
    at one filer, "All Other" at another); the text's words name only the filer's own."""
    return _is_code(member_words(member)) or kind == "geography" or \
        member.startswith(_STANDARD)


def name_in(member: str, name: str | None, text: str) -> tuple[int, int] | None:
    """Where ``text`` names ``member``: its printed ``name`` or its own words, written out
    or abbreviated ("U.S." for 'country:US', "APAC" for 'srt:AsiaPacificMember')."""
    for words in dict.fromkeys(w for w in (name, member_words(member)) if w):
        span = find_name(words, text) if not _is_code(words) else None
        if span is None:
            span = find_abbreviation(words, text)
        if span is not None:
            return span
    return None


def names_row(fact, names: dict[str, str], row) -> bool:
    """Whether the table fact ``row`` prints a member of ``fact`` by its name (its line
    item, its column heading or its member column)."""
    where = " | ".join((row.label, row.column, _heading(row.dims)))
    return any(name_in(m, names[m], where) for _, m in entries(fact.dims) if m in names)


_AFTER_NAME = re.compile(r"\s*\([^()]{1,60}\)")


def _row_name(member: str, kind: str, row: Fact) -> str | None:
    """The name the table fact ``row`` prints for ``member`` (a segment, product line or
    region), a figure of it printed there (module docstring), or None."""
    heading = _heading(row.dims)
    if country_of(member):  # a country is named by its own words, as printed there
        heading = ""
    if heading:  # a member row or column: its heading
        return None if is_metric_name(heading) else heading
    label = " | ".join(t for t in (_heading(row.dims), row.label or "") if t)
    span = name_in(member, None, label)
    if span is not None:
        a, b = span
        more = _AFTER_NAME.match(label, b)  # "China (including Hong Kong)"
        return " ".join(label[a:more.end() if more else b].split()).rstrip(" :–-")
    if kind != "other" and _by_row(member, kind) and not country_of(member) and label and \
            not names_metric(label):
        return label
    return None


def finish_names(tagged: list[Fact], names: dict[str, str],
                 links: dict[int, Fact] | None = None) -> None:
    """Give each dimensional XBRL fact its members' printed names (in place). A segment,
    product line or region no heading names takes the name printed for it where its
    one-member facts are printed (``links``: index in ``tagged`` -> the table fact it is
    printed as; ``_row_name``), the most common one; other members keep their words."""
    votes: dict[str, Counter] = defaultdict(Counter)
    for i, row in (links or {}).items():
        found = entries(tagged[i].dims)
        if len(found) == 1 and found[0][1] not in names and axis_kind(found[0][0]) != "other":
            axis, member = found[0]
            name = _row_name(member, axis_kind(axis), row)
            if name:
                votes[member][name] += 1
    for member, counted in votes.items():
        names[member] = counted.most_common(1)[0][0]
    for f in tagged:
        if f.dims:
            f.member_names = {m: names.get(m) or member_words(m) for _, m in entries(f.dims)}
