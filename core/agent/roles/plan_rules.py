"""Offline planning rules: clauses, what a clause refers back to, and each step's scope.

* ``split_clauses``: the question cut at cue words ("; then", ", and <verb>", ", <verb>"); a
  verb-less piece before a coordinating "and" is a request of its own ("X's supply chain
  risks, and has Y's news changed them?" is two clauses), before a bare comma it is context
  for the next clause ("Based on X's 10-K, identify ...").
* ``refers_back``: a clause that points back ("this strategy", "them", "it") or is too short
  to stand alone ("What drove the change?") depends on the clause before it and carries
  that clause's subject as its referent, so its query never searches on "change" alone.
  What is carried is what the words point to (``referent_terms``): a pronoun that stands
  for the companies ("how do they describe competition") carries their names only, never
  the earlier clause's topic; "this strategy" or a clause too short to stand alone carries
  the earlier clause's subject without its verbs and periods ("grow", "fiscal 2023"). A
  short clause that names something of its own (a company, a capitalised name: "why did
  Gaming change?") stands alone.
* ``step_scope``: the documents of the companies and periods named IN the clause (the
  registry's company resolution, ``core.retrieval.scope``); a clause that names no company
  takes its referent's scope, else the question's as a whole.
* ``cap_question`` / ``dedupe_steps``: bounds on what a very long question can produce.
"""

from __future__ import annotations

import re

from core.agent.deps import CorpusInfo
from core.agent.roles.sentences import content_words, terms
from core.agent.state import PlanStep
from core.retrieval.scope import (
    filings_named,
    match_companies,
    names_filing,
    question_periods,
    resolve_scope,
)

MAX_QUESTION_CHARS = 2000
"""Characters of a question the offline planner reads (the rest is said in a note)."""
SAME_STEP_JACCARD = 0.8
"""Two steps whose term sets overlap this much (same tool, same filters) are one step."""
STANDALONE_WORDS = 3
"""A clause with fewer content words than this (and no company) needs a referent."""

VERBS = (r"find|search|look|explain|describe|compare|identify|summari[sz]e|list|assess|"
         r"analy[sz]e|determine|discuss|evaluate|what|how|why|which|who|when|does|did|is|are")
AUX = r"has|have|had|was|were|will|would|can|could|should|do"
_SEP = re.compile(
    rf"\s*(?:;|,?\s+and\s+then\b,?|,?\s+and\s+also\b|,\s*then\b,?|,?\s+then,|"
    rf",?\s+and\s+(?=(?:{VERBS})\b)|,\s+and\s+(?=(?:{AUX})\b)|,\s+(?=(?:{VERBS})\b)|"
    rf",?\s+(?:in addition|additionally|also)\s*,?\s+(?=(?:{VERBS})\b))\s*",
    re.IGNORECASE,
)
_LEAD = re.compile(r"^(?:then|also|next|finally|additionally|in addition|and)\b[\s,]*", re.I)
_CUE = re.compile(rf"\b(?:{VERBS}|{AUX})\b", re.IGNORECASE)
_BACK = re.compile(r"\b(?:this|these|those|such|that)\s+(?:new\s+)?\w+|"
                   r"\b(?:it|they|them)\b", re.IGNORECASE)
_QUESTION_WORDS = re.compile(rf"\b(?:{VERBS}|{AUX})\b", re.IGNORECASE)
_DEMONSTRATIVE = re.compile(r"\b(?:this|these|those|such|that)\s+(?:new\s+)?(?!is\b|was\b)"
                            r"[a-z]\w*", re.IGNORECASE)
_PERSONAL = re.compile(r"\b(?:it|its|they|them|their|theirs)\b", re.IGNORECASE)
_SUBJECT = re.compile(rf"\b(?:they|their|theirs|its)\b|\b(?:{AUX}|does|did|is|was)\s+it\b",
                      re.IGNORECASE)
_OBJECT = re.compile(r"\bthem\b|\b(?!(?:has|have|had|was|were|will|would|can|could|should|do|"
                     r"does|did|is)\b)[a-z]+\s+it\b", re.IGNORECASE)
_NOT_REFERENT = re.compile(
    r"^(?:(?:fy)?\d+|fiscal|years?|quarters?|annual|grow\w*|grew|increas\w*|decreas\w*|"
    r"declin\w*|ris(?:e|es|en|ing)|rose|f[ae]ll\w*|chang\w*|improv\w*|worsen\w*|drove|driv\w*|"
    r"say\w*|said|describ\w*|discuss\w*|explain\w*|identif\w*|compar\w*|mention\w*|"
    r"report\w*|stat\w*|list\w*|summari\w*|happen\w*|cause\w*|led)$", re.IGNORECASE)
"""Words of an earlier clause that are what it asks, not what it is about: never carried."""
_PROPER_NAME = re.compile(r"(?<=[\w,;:)]\s)(?!(?:FY|Q[1-4]|H[12]|I)\b)[A-Z][\w&.-]*")


def cap_question(question: str) -> tuple[str, str | None]:
    """``(question, note)``: at most ``MAX_QUESTION_CHARS``, cut at a sentence end."""
    text = " ".join(question.split())
    if len(text) <= MAX_QUESTION_CHARS:
        return text, None
    cut = text[:MAX_QUESTION_CHARS]
    end = max(cut.rfind(". "), cut.rfind("? "), cut.rfind("; "))
    cut = cut[: end + 1] if end > MAX_QUESTION_CHARS // 2 else cut.rsplit(" ", 1)[0]
    return cut, (f"the question is {len(text):,} characters; the plan reads its first "
                 f"{len(cut):,} (limit {MAX_QUESTION_CHARS:,})")


def _pieces(sentence: str) -> list[tuple[str, bool]]:
    """``(piece, ends at a coordinating 'and')`` for each piece of ``sentence``."""
    out: list[tuple[str, bool]] = []
    last = 0
    for m in _SEP.finditer(sentence):
        if m.start() > last:
            out.append((sentence[last:m.start()], bool(re.search(r"\band\b|;", m.group(0)))))
        last = m.end()
    out.append((sentence[last:], False))
    return [(p, a) for p, a in out if p and p.strip(" ,.")]


def split_clauses(question: str) -> list[str]:
    """Clauses of ``question`` (see the module docstring)."""
    clauses: list[str] = []
    carry = ""
    for sentence in re.split(r"(?<=[.?!])\s+", question.strip()):
        for piece, coordinated in _pieces(sentence):
            piece = _LEAD.sub("", piece.strip(" ,")).strip()
            standalone = coordinated and len(content_words(piece)) >= 2
            if (not _CUE.search(piece) or len(piece.split()) < 3) and not standalone:
                carry = f"{carry}, {piece}" if carry else piece
                continue
            clauses.append(f"{carry}, {piece}" if carry else piece)
            carry = ""
    if carry:
        if clauses:
            clauses[-1] = f"{clauses[-1]}, {carry}"
        else:
            clauses.append(carry)
    end = "?" if "?" in question[-2:] else "."
    return [c[0].upper() + c[1:].rstrip(" .?") + end for c in clauses if c]


def names_company(clause: str, corpus: CorpusInfo) -> bool:
    return bool(match_companies(clause, corpus.documents))


def refers_back(clause: str, corpus: CorpusInfo) -> bool:
    """True when the clause cannot be searched on its own words (see the module docstring)."""
    if _BACK.search(clause):
        return True
    return _too_short(clause) and not names_company(clause, corpus) and \
        not _PROPER_NAME.search(clause)


def _too_short(clause: str) -> bool:
    words = content_words(_QUESTION_WORDS.sub(" ", _PERSONAL.sub(" ", clause)), limit=20)
    return len(words) < STANDALONE_WORDS


def only_companies(clause: str, corpus: CorpusInfo | None = None) -> bool:
    """Whether what ``clause`` points back to is the companies alone: a subject pronoun
    ("they", "their", "does it") and a topic of its own; never with "them" or "this ..."
    (an earlier topic) or a company the clause names itself ("has AMD changed them")."""
    own = [w for w in content_words(_QUESTION_WORDS.sub(" ", _PERSONAL.sub(" ", clause)),
                                    limit=20) if not _NOT_REFERENT.match(w)]
    named = corpus is not None and names_company(clause, corpus)
    return bool(_SUBJECT.search(clause)) and not _OBJECT.search(clause) and \
        not _DEMONSTRATIVE.search(clause) and bool(own) and not named


def referent_terms(clause: str, earlier: str, limit: int = 6,
                   corpus: CorpusInfo | None = None, question: str = "") -> list[str]:
    """Words of ``earlier`` that ``clause`` lacks and points back to (module docstring): the
    companies' names when the clause's pronoun stands for them (those ``earlier`` names, else
    those ``question`` names), else the earlier clause's subject (its verbs, periods and
    question words left out)."""
    have = terms(clause)
    if corpus is not None and only_companies(clause, corpus):
        named = " ".join(match_companies(earlier, corpus.documents)
                         or match_companies(question, corpus.documents))
        words = content_words(named, limit=20)
    else:
        words = [w for w in content_words(_QUESTION_WORDS.sub(" ", earlier), limit=20)
                 if not _NOT_REFERENT.match(w)]
    return [w for w in words if not terms(w) <= have][:limit]


def step_scope(clause: str, question: str, corpus: CorpusInfo, scope: list[str],
               referent_docs: list[str] | None = None) -> tuple[list[str], str]:
    """``(doc ids, why)`` for a filing step (see the module docstring)."""
    docs = [d for d in corpus.documents if not scope or d.doc_id in scope]
    text, whose = clause, "named in this step"
    if not match_companies(clause, docs):
        base = referent_docs or resolve_scope(question, docs).doc_ids
        if base and names_filing(clause):  # "its latest 10-Q": that company's filing named here
            picked, how = filings_named(clause, base, docs)
            if picked:
                return picked, f"{how} (the filing this step names)"
        if referent_docs:
            return list(referent_docs), "the step it refers back to"
        text, whose = question, "named in the question (this step names none)"
    periods, latest = question_periods(text)
    if not periods and not latest and text is clause:
        q_periods, _ = question_periods(question)
        text = f"{clause} {' '.join(map(str, q_periods))}"
    found = resolve_scope(text, docs)
    if not found.doc_ids:
        return [], "no company in the corpus is named"
    return found.doc_ids, f"{', '.join(found.companies)} ({whose})"


def dedupe_steps(steps: list[PlanStep]) -> tuple[list[PlanStep], list[str]]:
    """Steps without repeats (same tool and filters, near-identical terms), with notes;
    dependencies are renumbered onto the kept steps."""
    kept: list[PlanStep] = []
    where: dict[int, int] = {}
    notes: list[str] = []
    for i, step in enumerate(steps):
        mine = terms(step.sub_question) | terms(" ".join(step.keywords))
        same = next((k for k, other in enumerate(kept) if other.tool == step.tool
                     and other.doc_ids == step.doc_ids and other.section == step.section
                     and (other.metric, other.periods, other.formula, other.analysis,
                          other.member)
                     == (step.metric, step.periods, step.formula, step.analysis, step.member)
                     and _jaccard(mine, terms(other.sub_question)
                                  | terms(" ".join(other.keywords))) >= SAME_STEP_JACCARD),
                    None)
        if same is not None:
            where[i] = same
            notes.append(f"step {i + 1} repeats step {same + 1}; merged")
            continue
        where[i] = len(kept)
        kept.append(step)
    out = []
    for k, step in enumerate(kept):
        deps = sorted({where[d] for d in step.depends_on if d in where and where[d] < k})
        out.append(step.model_copy(update={"depends_on": deps}))
    return out, notes


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else float(a == b)


_FRAME_WORDS = re.compile(r"^(?:based|filings?|10-?k|10-?q|reports?|annual|key|main|"
                          r"related|stated|each|both|own|one|ones|part|parts)$", re.I)


def unasked_clauses(question: str, steps: list[PlanStep], documents=()) -> list[str]:
    """Clauses of ``question`` whose topic no step's sub-question names: not one of the
    clause's own words (companies, periods and question words aside) is in a sub-question.
    A topic kept only as another step's keyword is not asked ("how do they describe B"
    when B is a keyword of the step about A); a terse sub-question that names the topic
    ("Competition risks?") asks it."""
    asked = set().union(*(terms(s.sub_question) for s in steps)) if steps else set()
    out = []
    for clause in split_clauses(question):
        plain = clause
        for raw in match_companies(clause, list(documents)):
            plain = re.sub(rf"(?<![\w&]){re.escape(raw)}(?:'s)?", " ", plain)
        words = [w for w in content_words(_QUESTION_WORDS.sub(" ", _PERSONAL.sub(" ", plain)),
                                          limit=20)
                 if not _NOT_REFERENT.match(w) and not _FRAME_WORDS.match(w)]
        topic = terms(" ".join(words))
        if topic and not topic & asked:
            out.append(clause)
    return out


def uncovered_clauses(question: str, steps: list[PlanStep]) -> list[str]:
    """Clauses of ``question`` whose terms no step's sub-question or keywords share."""
    out = []
    for clause in split_clauses(question):
        want = terms(" ".join(content_words(_QUESTION_WORDS.sub(" ", clause), limit=20)))
        if not want:
            continue
        best = max((len(want & (terms(s.sub_question) | terms(" ".join(s.keywords))))
                    / len(want) for s in steps), default=0.0)
        if best < 0.5:
            out.append(clause)
    return out
