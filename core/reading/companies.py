"""One resolver for the companies a question names, however the analyst writes them.

``core.retrieval.scope.match_companies`` finds the names as filings print them (names,
former names, initials, upper-case tickers, file names). Analysts also write a ticker in
lower case ("acm"), a one-word name in lower case ("birch"), a typo ("Brich"), or a
brand the filer prints as the first word of its segments ("Widgetco" for Acme's "Widgetco
Services" and "Widgetco Cloud"). ``resolve_companies`` finds those too and rewrites each in
a form the layers below read (a ticker in capitals, a name capitalised, a typo or brand as
the filer's short name); each such reading is returned as a ``Match`` and said in the
answer ("read 'brich' as Birch Inc. (a typo)").

Rules, in order, for a word not already matched: a ticker in any case; the filer's
one-word name or the first distinctive word of its name in any case; a typo (one edit of
a name word of five letters or more, or one letter left out of one; two edits from nine;
the nearest filer only when no other is as near); a brand (a capitalised word that begins
member names of exactly one filer's facts, when it is not followed by the rest of such a
name and that filer is not named already: "AMD's Client revenue" is a member's). Lower-case words of
``lexicon.toml``'s ``[common]`` list and the catalogue's measure words never name a
company.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz.distance import OSA

from core.foundation.types import DocumentMeta
from core.ingest.cover import CORPORATE_WORDS, name_words
from core.reading.lexicon import lexicon
from core.reading.model import Match

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9&.\-]*(?:['\u2019]s?)?")
_POSSESSIVE = re.compile(r"['\u2019]s?$")


@dataclass(frozen=True)
class _Filer:
    name: str
    short: str
    keys: frozenset[str]
    """Lower-case words that name it exactly: its one-word name, its first distinctive
    word, its tickers."""
    tickers: frozenset[str]
    fuzzy: frozenset[str]
    """Name words a typo may stand for (five letters or more)."""
    whole: frozenset[str] = frozenset()
    """The name as one word ("birch"), when it is one."""
    full: tuple[str, ...] = ()
    """The names as filings print them, suffixes included ("ACME TOOL CO")."""


def _filers(documents: list[DocumentMeta]) -> list[_Filer]:
    from core.analysis.subjects import short_name
    from core.store.companies import companies

    out = []
    for group in companies(documents):
        if not group.name or group.name.lower() == "unknown":
            continue
        words = [w for w in name_words(group.name) if w not in CORPORATE_WORDS]
        keys = set()
        if words:
            keys.add(words[0])
            keys.add("".join(words))
        tickers = {t.lower() for t in group.tickers for t in re.split(r"[,;/\s]+", t) if t}
        fuzzy = {w for w in [words[0] if words else "", "".join(words)] if len(w) >= 5}
        whole = {words[0]} if len(words) == 1 else set()
        out.append(_Filer(group.name, short_name(group.name), frozenset(keys),
                          frozenset(tickers), frozenset(fuzzy), frozenset(whole),
                          tuple(dict.fromkeys(n for n in [group.name, *group.names] if n))))
    return out


def _measure_words() -> frozenset[str]:
    from core.metrics import catalog

    words = set()
    for metric in catalog().metrics.values():
        for name in metric.names:
            words.update(re.findall(r"[a-z]+", name.lower()))
    return frozenset(words)


def _taken(question: str, documents: list[DocumentMeta]
           ) -> list[tuple[int, int, str, str]]:
    """``(start, end, words, filer name)`` of the names as filings print them."""
    from core.retrieval.scope import match_companies

    spans = []
    for raw, (shown, _) in match_companies(question, documents).items():
        for m in re.finditer(rf"(?<![\w&]){re.escape(raw)}(?![\w&])", question):
            spans.append((m.start(), m.end(), raw, shown))
    return sorted(spans)


def without_companies(text: str, documents: list[DocumentMeta]) -> str:
    """``text`` with the companies it names (as filings print them) blanked."""
    for start, end, _, _ in sorted(_taken(text, documents), reverse=True):
        tail = re.match(r"['\u2019]s?", text[end:])
        end += tail.end() if tail else 0
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def _exact(token: str, filers: list[_Filer]) -> tuple[_Filer, str] | None:
    """A ticker in any case; a one-word name in any case; the first word of a longer name
    only as a name is written, capitalised ("home" in "fabric & home care" is no filer)."""
    low = token.lower()
    for f in filers:
        if low in f.tickers:
            return f, "ticker"
    hits = [f for f in filers if low in f.keys and (token[:1].isupper() or low in f.whole)]
    return (hits[0], "case") if len(hits) == 1 else None


_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9.\-]*|&")


def _name_typos(question: str, filers: list[_Filer], taken: list[tuple[int, int]]
                ) -> tuple[str, list[Match]]:
    """Names of two words or more written with a typo ("Acme Tol Works", "Smiht &
    Smith", "Brich & Co Tools"), each in the filer's short name: the words compared
    squashed, with and without "and", one edit from seven letters ("Home Dept"), two from
    nine, and nearer to one filer than to any other."""
    tokens = [(m.start(), m.end(), m.group(0)) for m in _TOKEN.finditer(question)]
    found: list[tuple[int, int, _Filer, str]] = []
    for f in filers:
        words = [w for w in name_words(f.name) if w not in CORPORATE_WORDS]
        if len(words) < 2:
            continue
        keys = {"".join(words), "".join(w for w in words if w != "and")}
        for n in (len(words), len(words) + 1):  # "&" or "and" between the words, or not
            for i in range(len(tokens) - n + 1):
                inner = [t[2].lower() for t in tokens[i + 1:i + n - 1]]
                if n > len(words) and not {"&", "and"} & set(inner):
                    continue  # the word more must join the name ("Smith & Smith")
                a, b = tokens[i][0], tokens[i + n - 1][1]
                raw = _POSSESSIVE.sub("", question[a:b]).rstrip(".")
                typed = re.sub(r"[^a-z0-9]", "", raw.lower().replace("&", ""))
                if any(x < b and a < y and not (a <= x and y <= b) for x, y in taken) \
                        or len(typed) < 7:
                    continue  # a name matched in part ("ACM" of "ACM Tool Wroks")
                best = min(OSA.distance(typed, k) for k in keys)
                if 0 < best <= (1 if len(typed) < 9 else 2):
                    found.append((a, a + len(raw), f, raw))
    found.sort(key=lambda x: x[0])
    out, matches, at = [], [], 0
    for a, b, f, raw in found:
        if a < at or sum(1 for x in found if x[0] == a and x[2] is not f):
            continue  # overlapping, or as near to two filers: no guess
        out.append(question[at:a] + f.short)
        matches.append(Match(words=raw, read_as=f.name, how="a typo"))
        at = b
    out.append(question[at:])
    return "".join(out), matches


def _prefix(low: str, filers: list[_Filer]) -> _Filer | None:
    """A one-word name written short ("widgetc" for Widgetco): five letters or more, at least
    two thirds of the name, and the start of one filer's name only."""
    if len(low) < 5:
        return None
    hits = [f for f in filers for w in f.whole if w.startswith(low) and w != low
            and len(low) * 3 >= len(w) * 2]
    return hits[0] if len(hits) == 1 else None


def _typo(low: str, filers: list[_Filer]) -> _Filer | None:
    if len(low) < 4:
        return None
    limit = 2 if len(low) >= 9 else 1
    scored = sorted((min(OSA.distance(low, k) for k in f.fuzzy), k) for k, f in
                    enumerate(filers) if f.fuzzy and (len(low) >= 5 or any(
                        len(w) == len(low) + 1 for w in f.fuzzy)))
    if not scored or scored[0][0] > limit or scored[0][0] == 0:
        return None
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None  # as near to two filers: no guess
    return filers[scored[0][1]]


_MEMBERS: dict[tuple, dict[str, set[str]]] = {}


def _members_by_filer(documents: list[DocumentMeta], store) -> dict[str, set[str]]:
    """Filer name -> the names of its segments and product lines (revenue facts), cached
    per document set."""
    from core.store.companies import companies

    key = (id(store), tuple((d.doc_id, d.period_end, d.company) for d in documents))
    found = _MEMBERS.get(key)
    if found is None:
        found = {g.name: _member_names(store, g.doc_ids) for g in companies(documents)}
        if len(_MEMBERS) > 8:
            _MEMBERS.clear()
        _MEMBERS[key] = found
    return found


def _brands(documents: list[DocumentMeta], store) -> dict[str, tuple[str, list[str]]]:
    """First word of member names (lower case) -> (filer name, its members beginning so),
    for words that begin members of exactly one filer."""
    if store is None:
        return {}
    owners: dict[str, dict[str, set[str]]] = {}
    for filer, names in _members_by_filer(documents, store).items():
        for member in names:
            first = member.split()[0].lower() if member.split() else ""
            if len(first) >= 3 and len(member.split()) >= 2:
                owners.setdefault(first, {}).setdefault(filer, set()).add(member)
    return {w: (next(iter(o)), sorted(next(iter(o.values()))))
            for w, o in owners.items() if len(o) == 1}


def segment_owner(question: str, documents: list[DocumentMeta], store
                  ) -> tuple[str, str, int] | None:
    """``(filer name, member name, where it is written)`` when the question names a segment
    or product line (a name of two words or more, or one of its aliases) that exactly one
    filer in scope reports (``core.figures.segments.companies_of_member``)."""
    if store is None:
        return None
    from core.figures.segments import companies_of_member
    from core.ingest.facts.members import find_name
    from core.store.companies import companies

    in_scope = {g.name for g in companies(documents)}
    try:
        owners = [o for o in companies_of_member(store, question) if o.company in in_scope]
    except (AttributeError, TypeError):  # a store without the facts API
        return None
    if len(owners) != 1 or owners[0].kind not in ("segment", "product") or \
            len(owners[0].name.split()) < 2:
        return None
    hit = find_name(owners[0].name, question)
    return (owners[0].company, owners[0].name, hit[0]) if hit else None


def _member_names(store, doc_ids: list[str]) -> set[str]:
    """Names of the segments and product lines ``doc_ids`` report revenue for."""
    from core.figures.segments import fact_member

    try:
        facts = store.facts(doc_ids, metric="revenue")
    except (AttributeError, TypeError):
        return set()
    return {m.name for f in facts if f.dims and (m := fact_member(f)) is not None
            and m.kind in ("segment", "product")}


def _registry_names(question: str, filers: list[_Filer]) -> str:
    """A filer's name written as the registry prints it, suffix and all ("ACME TOOL CO's",
    "BIRCH, INC.'s"), in its short name: the suffix is no word of the question ("CO"
    is no segment's initials, "INC" no measure)."""
    for f in filers:
        for name in sorted(f.full, key=len, reverse=True):
            words = [re.escape(w) for w in re.findall(r"[A-Za-z0-9&]+", name)]
            if len(words) < 2:
                continue
            rx = r"(?<![\w&])" + r"[\s,.\-]*".join(words) + r"\.?(?![\w&])"
            question = re.sub(rx, f.short, question, flags=re.I)
    return question


def _tickers_said(taken: list[tuple[int, int, str, str]], by_name: dict[str, _Filer]
                  ) -> list[Match]:
    """A ticker written as printed (upper case) is read as it stands, and said."""
    out = []
    for _, _, raw, shown in taken:
        filer = by_name.get(shown)
        if filer is not None and raw.lower() in filer.tickers and \
                raw.lower() != filer.short.lower() and not any(m.words == raw for m in out):
            out.append(Match(words=raw, read_as=filer.name, how="its ticker"))
    return out


def resolve_companies(question: str, documents: list[DocumentMeta], store=None
                      ) -> tuple[str, list[Match]]:
    """``(question with each company in words the grammar reads, the matches said)``
    (see the module docstring)."""
    if not documents:
        return question, []
    filers = _filers(documents)
    lex = lexicon()
    skip = lex.common | _measure_words()
    question = _registry_names(question, filers)
    question, typos = _name_typos(question, filers,
                                  [(a, b) for a, b, _, _ in _taken(question, documents)])
    by_name = {f.name: f for f in filers}
    for start, _end, raw, shown in sorted(_taken(question, documents), reverse=True):
        f = by_name.get(shown)
        word = raw.rstrip(".,;:")
        if f is None or not word.islower():
            continue  # as printed: read as it stands
        if word in f.tickers:  # "acm." (a file name's word): the ticker
            written = word.upper()
        elif " " in word.strip() or word.lower() == f.short.lower():  # "acme tool"
            written = f.short
        else:
            written = word[:1].upper() + word[1:]
        question = question[:start] + written + question[start + len(word):]
    printed = _taken(question, documents)
    matches = typos + _tickers_said(printed, {f.name: f for f in filers})
    taken = [(a, b) for a, b, _, _ in printed]
    brands, named = None, False
    seen = {filer for _, _, _, filer in printed}  # a filer named: its words are its members
    out, at = [], 0
    for m in _WORD.finditer(question):
        start, end = m.span()
        if any(a < end and start < b for a, b in taken):
            continue
        token = _POSSESSIVE.sub("", m.group(0)).rstrip(".-")
        low = token.lower()
        if not low or low in skip or low.isdigit():
            continue
        found = _exact(token, filers)
        filer, how = found if found else (None, "")
        if filer is None and low.isalpha():
            filer, how = _prefix(low, filers), "prefix"
        if filer is None and low.isalpha():
            filer, how = _typo(low, filers), "typo"
        if filer is None and token[:1].isupper():
            if brands is None:
                brands = _brands(documents, store)
            hit = brands.get(low)
            rest = question[end:].lstrip().lower()
            if hit and hit[0] not in seen and not any(
                    rest.startswith(" ".join(n.split()[1:]).lower()) for n in hit[1]):
                filer = next((f for f in filers if f.name == hit[0]), None)
                how = "brand"
        if filer is None:
            continue
        named = True
        seen.add(filer.name)
        if how == "case" and token[:1].isupper():
            continue
        tail = m.group(0)[len(token):] if m.group(0).startswith(token) else ""
        words = token.upper() if how == "ticker" else token[:1].upper() + token[1:] \
            if how == "case" else filer.short  # the analyst's word, in a form printed
        out.append(question[at:start] + words + tail)
        at = start + len(m.group(0))
        said = {"ticker": "its ticker", "case": "", "typo": "a typo", "brand": "a brand it "
                "reports", "prefix": "its name written short"}[how]
        if how != "case" or token.lower() != filer.short.lower():
            matches.append(Match(words=token, read_as=filer.name, how=said))
    out.append(question[at:])
    text = "".join(out)
    if not taken and not named:  # no company named: a segment only one filer reports
        owner = segment_owner(text, documents, store)
        filer = next((f for f in filers if owner and f.name == owner[0]), None)
        if owner and filer:
            _, member, where = owner
            text = f"{text[:where]}{filer.short}'s {text[where:]}"
            matches.append(Match(words=member, read_as=f"{filer.name}'s {member}",
                                 how="the only filer that reports it"))
    return text, matches


def shared_names(question: str, documents: list[DocumentMeta]) -> list[Match]:
    """A name the question writes that two filers of the corpus share ("Adobe" for ADOBE
    INC. under two CIKs), said with each filer as the answer shows it, unless the question
    picks one by its CIK or ticker."""
    from core.analysis.subjects import picked
    from core.retrieval.scope import match_companies
    from core.store.companies import colliding, companies, distinct_names

    groups = companies(documents)
    if not colliding(groups):
        return []
    shown = distinct_names(groups)
    group_of = {i: g for g in groups for i in g.doc_ids}
    out = []
    for raw, (_, ids) in match_companies(question, documents).items():
        filers = list({group_of[i].key: group_of[i] for i in ids if i in group_of}.values())
        if len(picked(question, raw, filers)) > 1:
            out.append(Match(words=raw, read_as=" and ".join(shown[g.key] for g in filers),
                             how="filers that share the name: each is answered, with its "
                             "CIK; write one's CIK or ticker to ask of it alone"))
    return out
