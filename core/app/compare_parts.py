"""What a part of the question is about, and whether a cited sentence is about it.

A similarity score alone credits a sentence about another company or another measure ("AMD's
Data Center segment revenue rose" scored against "NVIDIA's net margin" shares the words
of a financial sentence). A part (a sub-question of the plan) names companies and a topic
(its content words once the companies and generic words are taken out; a look-up step's
catalogue measure too). A sentence can cover the part only when it is about one of the
part's companies (it names one, or one of its [n] cites that company's filing) and
is about its topic: when the part names a measure of the metric catalogue ("net margin"),
the sentence names the same measure (any of its names: "net profit margin"); otherwise
it shares a word stem with at least a third of the part's own content words.

A part that asks *which* (an ``analyze`` step comparing or ranking, or a "which / who"
question over several companies) is answered only by a sentence that names a winner: one
of the part's companies with a comparative ("higher", "the largest", "ranks first").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from core.foundation.types import DocumentMeta

_WORD = re.compile(r"[a-z][a-z0-9&'-]*")
_GENERIC = frozenset("""a an and are as at be by for from has have how in is it its of on or
that the their they this to was we were what which will with does did do about based find
identify explain describe recent news one those these them then there into any our your can
could would should may might also such than more most who whom whose key main say says said
tell look up report reported reports filing filings annual quarterly fiscal year years
company companies compare compared comparison rank ranked ranking versus vs each both between
much many per cent period periods latest last current 10-k 10-q form item""".split())
_COMPARATIVE = re.compile(
    r"\b(?:higher|lower|larger|smaller|bigger|greater|more|less|fewer|highest|lowest|largest|"
    r"smallest|biggest|greatest|best|worst|stronger|weaker|strongest|weakest|faster|slower|"
    r"fastest|slowest|leads?|led|ahead|behind|tops?|outpaced|outperformed|exceed(?:s|ed)?|"
    r"ranks?|ranked|first|wins?)\b", re.IGNORECASE)
_WHICH = re.compile(r"^\W*(?:which|who)\b|\b(?:which|who)\s+(?:of|company|one|firm|had|has|"
                    r"is|was|grew|reported|spent|earned)\b", re.IGNORECASE)
WINNER_KINDS = frozenset({"compare", "rank"})
STEM = 5  # letters compared: "competition" and "competitive" share "compe"


def _stems(text: str) -> set[str]:
    return {w[:STEM] for w in _WORD.findall(text.lower().replace("\u2019", "'"))
            if w not in _GENERIC and len(w) > 1 and not re.match(r"^(?:fy)?\d", w)}


@dataclass
class Part:
    """What one part of the question asks about."""

    question: str
    companies: dict[str, set[str]] = field(default_factory=dict)
    """Company shown -> its filings' doc ids (empty: the part names no company)."""
    topics: list[set[str]] = field(default_factory=list)
    """Stem sets, any of which is the part's topic (its own words; its catalogue measure)."""
    measures: set[str] = field(default_factory=set)
    """Catalogue keys of the measures it names: a sentence must name one of them."""
    which: bool = False
    """It asks which company wins: only a sentence naming one answers it."""


@lru_cache(maxsize=1)
def _measure_names() -> tuple[tuple[str, str], ...]:
    """(name, catalogue key), longest names first."""
    from core.metrics import catalog

    pairs = {(n.lower().rstrip(" %").strip(), key) for key, m in catalog().metrics.items()
             for n in (m.label, *m.names)}
    return tuple(sorted(pairs, key=lambda p: -len(p[0])))


def measures_in(text: str) -> set[str]:
    """Catalogue keys of the measures ``text`` names (longest names first, no overlaps)."""
    low = " ".join(text.lower().replace("\u2019", "'").split())
    taken: list[tuple[int, int]] = []
    out = set()
    for name, key in _measure_names():
        for m in re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", low):
            if not any(a < m.end() and m.start() < b for a, b in taken):
                taken.append(m.span())
                out.add(key)
    return out


def _metric_words(metric: str | None) -> str:
    if not metric:
        return ""
    from core.metrics import catalog

    found = catalog().get(metric)
    return " ".join([found.label, *found.names]) if found else metric.replace("_", " ")


def _companies(text: str, documents: Sequence[DocumentMeta]) -> dict[str, set[str]]:
    from core.retrieval.scope import match_companies

    out: dict[str, set[str]] = {}
    for shown, ids in match_companies(text, list(documents)).values():
        out.setdefault(shown, set()).update(ids)
    return out


def part_of(question: str, step: Any = None, documents: Sequence[DocumentMeta] = ()) -> Part:
    """The part ``question`` (a plan step's sub-question; ``step`` the step, if any)."""
    from core.reading.companies import without_companies

    named = _companies(question, documents) if documents else {}
    if not named and step is not None and getattr(step, "doc_ids", None) and documents:
        by_id = {d.doc_id: d for d in documents}
        for doc_id in step.doc_ids:
            doc = by_id.get(doc_id)
            if doc is not None and doc.company not in ("", "unknown"):
                named.setdefault(doc.company, set()).add(doc_id)
    own = without_companies(question, list(documents)) if documents else question
    for name in named:  # a name the filings print differently, written in full
        own = re.sub(re.escape(name), " ", own, flags=re.IGNORECASE)
    topics = [t for t in (_stems(own), _stems(_metric_words(getattr(step, "metric", None))))
              if t]
    analysis = getattr(step, "analysis", None)
    which = bool(analysis is not None and analysis.kind in WINNER_KINDS) or \
        (len(named) != 1 and bool(_WHICH.search(question)))
    measures = measures_in(own) | ({step.metric} if getattr(step, "metric", None) else set())
    return Part(question, named, topics, measures, which)


def about_company(part: Part, text: str, cited_docs: set[str],
                  documents: Sequence[DocumentMeta]) -> bool:
    """Whether a sentence is about one of the part's companies (always, when it names
    none): it names one, or cites one's filing."""
    if not part.companies:
        return True
    wanted = set().union(*part.companies.values())
    if cited_docs & wanted:
        return True
    return bool(documents) and bool(set(_companies(text, documents)) & set(part.companies))


def about_topic(part: Part, text: str) -> bool:
    """Whether a sentence shares the part's topic (always, when the part has none left)."""
    if part.measures:
        return bool(part.measures & measures_in(text))
    if not part.topics:
        return True
    have = _stems(text)
    return any(len(t & have) >= max(1, -(-len(t) // 3)) for t in part.topics)


def names_winner(part: Part, text: str, documents: Sequence[DocumentMeta]) -> bool:
    """Whether a sentence names a winner: one of the part's companies (any company, when the
    part names none) with a comparative word."""
    if not _COMPARATIVE.search(text):
        return False
    said = set(_companies(text, documents)) if documents else set()
    return bool(said & set(part.companies)) if part.companies else bool(said) or \
        not documents


def cited_docs(markers: Sequence[int], docs_of: Mapping[int, str]) -> set[str]:
    """The doc ids the ``markers`` cite."""
    return {docs_of[n] for n in markers if docs_of.get(n)}


def docs_by_marker(record: Any) -> dict[int, str]:
    """[n] -> the doc id of the filing it cites (web sources have none)."""
    answer = getattr(record, "answer", None)
    if answer is None:
        return {}
    evidence = list(getattr(record, "evidence", None) or []) or list(answer.evidence or [])
    by_id = {e.id: e.doc_id for e in evidence if e.kind == "chunk"}
    out = {}
    for c in answer.citations:
        if c.kind != "chunk":
            continue
        doc = by_id.get(c.evidence_id) or (c.evidence_id.rsplit("-", 1)[0]
                                           if "-" in c.evidence_id else "")
        if doc:
            out[c.n] = doc
    return out
