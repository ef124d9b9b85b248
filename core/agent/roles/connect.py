"""Offline juxtaposition for clauses asking how one thing bears on another ("how does X affect Y").

No sentence of a filing or a news article says how a later development bears on a
risk the filing states; an LLM can reason that out, the offline engine cannot. So
for such a clause the offline engine does not search for a sentence that does it:
it connects what the earlier steps found. ``build_link`` takes the development
(the best sentence of the latest earlier web step, else of the previous step) and
the filing statement (the earlier filing steps' sentence that best matches the
development, their leading finding preferred) and ``link_text`` sets them side by
side with both citations, claiming no relation, e.g.

    Rival's 2024 moves — “<finding>” [3]. Beside it, Acme's filing states: “<statement>” [1].

followed by ``LINK_NOTE``, which marks it as the offline engine's juxtaposition,
not an analysis. Sentences of the clause's own step that name the actor are added.
A clause is a connect clause only when the relation verb has an object ("how does
X affect Y"; "how did revenue increase?" is not one). A juxtaposition is not
evidence: it never raises the step's coverage (``reflect.offline_link_finding``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from core.agent.deps import CorpusInfo
from core.agent.roles.distill import context_lines
from core.agent.roles.doc_facts import company_words
from core.agent.roles.rewriter import COMMON_ACRONYMS
from core.agent.roles.sentences import content_words, near_duplicate, terms
from core.agent.state import Evidence, StepRecord

_ASK = r"(?:explain|describe|assess|analy[sz]e|discuss|show|evaluate|illustrate|examine)"
# Stems of English verbs of influence (how one thing acts on another), any question's wording.
_RELATE = (r"(?:affect|impact|influenc|bear|relat|respond|counter|threaten|mitigat|alleviat|"
           r"reduc|weaken|worsen|aggravat|exacerbat|intensif|strengthen|increas|address)")
_CONNECT = re.compile(rf"\b{_ASK}\b[^.?]*\b(?:how|whether|why|the ways?)\b[^.?]*\b{_RELATE}|"
                      rf"^\W*how\s+(?:does|do|did|might|could|would|will|may)\b[^.?]*\b{_RELATE}",
                      re.IGNORECASE)
LINK_NOTE = ("(Offline engine: this juxtaposes the cited statements; how the one bears on the "
             "other is not analysed here, configure an LLM for that.)")
MAX_MENTIONS = 2


def is_connect(sub_question: str) -> bool:
    """True for clauses that ask how one thing bears on another: a relation verb with an
    object after it ("affect Acme's margins"), not a bare change ("how did revenue grow")."""
    m = _CONNECT.search(sub_question)
    if m is None:
        return False
    rest = re.sub(r"^\w*", "", sub_question[m.end():])
    return bool(content_words(rest, 1))


@dataclass
class Side:
    """One cited sentence."""

    text: str
    evidence_id: str


@dataclass
class Link:
    """The two statements a connect clause juxtaposes, and the names to write them with."""

    development: Side
    risk: Side
    actor: str | None = None
    year: str | None = None
    filer: str | None = None
    mentions: list[Side] = field(default_factory=list)
    demo: bool = False
    """The development is an article of the bundled demo web snapshot (not live news)."""


def _sides(rec: StepRecord, known: Callable[[str], bool]) -> list[Side]:
    """The step's cited whole sentences (fragments and headings are never quoted)."""
    from core.agent.roles.brief import is_heading
    from core.agent.roles.quotable import is_fragment

    return [Side(text, next(i for i in ids if known(i))) for text, ids in context_lines(rec.context)
            if any(known(i) for i in ids) and not is_fragment(text) and not is_heading(text)]


def _actor(sub_question: str, exclude: set[str]) -> str | None:
    """The first proper name of a sub-question that is not the filer ("AMD")."""
    first = re.match(r"\W*([\w'’]+)", sub_question)
    for word in content_words(sub_question, 30):
        if first and word == re.sub(r"['’]s$", "", first.group(1)):
            continue  # the clause's leading verb ("Find")
        if word[0].isupper() and word.upper() not in COMMON_ACRONYMS and not word.isdigit() \
                and word.lower() not in exclude:
            return word
    return None


def _similarity(a: set[str], b: set[str]) -> float:
    """Cosine of two term sets (0..1)."""
    return len(a & b) / math.sqrt(len(a) * len(b)) if a and b else 0.0


def _filer(evidence: Evidence | None, corpus: CorpusInfo | None, question: str) -> str | None:
    doc = corpus.doc(evidence.doc_id) if corpus and evidence and evidence.doc_id else None
    words = company_words(doc.company) if doc else []
    named = [w for w in words if re.search(rf"\b{re.escape(w)}", question, re.IGNORECASE)]
    return (named or words or [None])[0]


def build_link(rec: StepRecord, earlier: list[StepRecord], evidence: dict[str, Evidence],
               corpus: CorpusInfo | None = None, question: str = "") -> Link | None:
    """The juxtaposition for connect clause ``rec`` from the ``earlier`` steps' records, or
    None when it is no connect clause or the earlier steps lack a development or a risk."""
    if not is_connect(rec.sub_question):
        return None
    known = evidence.__contains__
    usable = [r for r in earlier if r.coverage != "none" and _sides(r, known)]
    web = [r for r in usable if r.tool == "web_search"]
    dev_rec = (web or usable[-1:] or [None])[-1]
    if dev_rec is None:
        return None
    development = _sides(dev_rec, known)[0]
    dev_terms = terms(development.text)
    scored: list[tuple[float, int, Side]] = []
    risk_recs = [r for r in usable if r is not dev_rec and r.tool == "filing_search"]
    for r in risk_recs + ([rec] if rec.tool == "filing_search" else []):
        for n, side in enumerate(_sides(r, known)):
            prior = 0.3 if r is rec else 1.0 if n == 0 else 0.5
            scored.append((prior + _similarity(dev_terms, terms(side.text)), -len(scored), side))
    if not scored:
        return None
    risk = max(scored, key=lambda x: (x[0], x[1]))[2]
    filer = _filer(evidence.get(risk.evidence_id), corpus, question)
    actor = _actor(dev_rec.sub_question, {filer.lower()} if filer else set())
    dated = evidence.get(development.evidence_id)
    year = dated.date[:4] if dated and dated.date else None
    own = _sides(rec, known) if actor and rec.tool == "filing_search" else []
    filed = getattr(evidence.get(risk.evidence_id), "doc_id", None)
    mentions = [s for s in own  # the filer's own filing naming the actor, not the actor's
                if re.search(rf"\b{re.escape(actor)}\b", s.text) and s.text != risk.text
                and getattr(evidence.get(s.evidence_id), "doc_id", None) == filed
                and not near_duplicate(s.text, development.text)][:MAX_MENTIONS]
    demo = dated is not None and dated.kind == "web" and "demo article" in (dated.label or
                                                                           "").lower()
    return Link(development, risk, actor, year, filer, mentions, demo)


def _quote(text: str) -> str:
    return "“" + text.strip().rstrip(".").strip() + "”"


def link_text(link: Link, mark: Callable[[str], str]) -> str:
    """The link in neutral terms, each statement followed by ``mark(evidence id)``."""
    who = f"{link.actor}'s {link.year or 'recent'} moves" if link.actor \
        else "The later development"
    if link.demo:
        who += " (demo web snapshot, not live)"
    whose = f"{link.filer}'s filing" if link.filer else "the filing"
    text = (f"{who} — {_quote(link.development.text)} {mark(link.development.evidence_id)}. "
            f"Beside it, {whose} states: {_quote(link.risk.text)} "
            f"{mark(link.risk.evidence_id)}.")
    for side in link.mentions:
        text += f" {whose[0].upper()}{whose[1:]} names {link.actor} itself: {_quote(side.text)} " \
                f"{mark(side.evidence_id)}."
    return text
