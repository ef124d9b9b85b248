"""Offline approximations shared by the answer metrics (no LLM).

- ``claims(text)``: the answer's statements: sentences of 4+ words, without
  citation markers, headings, questions or restated sub-questions ("Explain
  how..."), the offline engine's note or "could not find" sentences.
- ``numbers(text)``: figures normalised so "$2,184.6" and "2184.60" agree.
- ``support(statements, contexts, embedder, cited)``: whether each statement is
  backed by the contexts: every figure it states appears in them (in the passages
  it cites, when it cites some), and its
  terms are found in one context passage (lexical overlap) with enough
  embedding similarity to its closest context sentence. The thresholds were
  set on hand-written faithful and unfaithful answers over the sample filing
  (tests/test_eval_metrics.py) with the bundled MiniLM and the hash embedder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from core.agent.roles.sentences import is_heading, sentences, terms

MIN_WORDS = 4
OVERLAP_ALONE = 0.8
"""Share of a statement's terms found in one passage that is enough on its own."""
OVERLAP_WITH_SIM = 0.5
SIMILARITY = 0.55
"""With at least OVERLAP_WITH_SIM of its terms, this cosine to a context sentence suffices."""

_MARKERS = re.compile(r"\s*\[\d+(?:\s*[-–,;]\s*\d+)*\]")
_NUMBER = re.compile(r"(?<![\w.])[-(]?\$?\d[\d,]*(?:\.\d+)?(?![A-Za-z\d]|\.\d)")
_NO_CLAIM = re.compile(r"could not|couldn't|not find|no evidence|not found|did not find|"
                       r"unable to|offline engine|stopped early|limit reached|partly answered",
                       re.IGNORECASE)
_NOTE = re.compile(r"^(?:[-*•]\s*)?notes?\s*:", re.IGNORECASE)
"""An engine's note on how figures were read ("- Note: Every period read from one
filing ..."): said about the answer, not a claim about the filings."""
_ASKING = re.compile(r"^(?:based on [^,]{1,80},\s*)?(?:what|which|who|how|why|when|where|explain|"
                     r"find|identify|describe|list|compare|summari[sz]e)\b", re.IGNORECASE)


def strip_markers(text: str) -> str:
    """``text`` without [n] citation markers."""
    return _MARKERS.sub("", text or "")


def clean_answer(text: str) -> str:
    """The answer without markers and without the offline engine's closing note."""
    from core.agent.roles.synthesize import BANNER, OFFLINE_NOTE

    return strip_markers((text or "").replace(OFFLINE_NOTE, "").replace(BANNER, "")).strip()


def is_claim(sentence: str) -> bool:
    """Whether a sentence (markers stripped) states something checkable."""
    s = sentence.strip()
    if len(s.split()) < MIN_WORDS or s.endswith(("?", ":")) or is_heading(s):
        return False
    if _NOTE.match(s):
        return False
    return not (_NO_CLAIM.search(s) or _ASKING.match(s))


def claims(text: str) -> list[str]:
    """The statements of an answer or a reference (see the module docstring)."""
    out: list[str] = []
    for s in sentences(clean_answer(text)):
        s = re.sub(r"^Partly answered\s*[—-]\s*", "", s).strip()
        if is_claim(s):
            out.append(s)
    return out


def cited_claims(text: str) -> list[tuple[str, list[int]]]:
    """``claims`` with the [n] markers each one carries (a marker opening a sentence, as in
    "... revenue. [2] Next", belongs to the sentence before it, as do the markers of a short
    fragment the sentence splitter cut off it: "(XBRL us-gaap:Revenues, p." + "54) [1]")."""
    from core.agent.roles.synthesize import OFFLINE_NOTE

    out: list[tuple[str, list[int]]] = []
    pending: list[int] = []
    for raw in sentences((text or "").replace(OFFLINE_NOTE, "")):
        lead = re.match(r"^(?:\s*\[[\d\s,;–-]+\])+", raw)
        if lead and out:
            out[-1][1].extend(_refs(lead.group(0)))
            raw = raw[lead.end():]
        refs = pending + _refs(raw)
        pending = []
        s = re.sub(r"^Partly answered\s*[—-]\s*", "", strip_markers(raw)).strip()
        if is_claim(s):
            out.append((s, refs))
        elif refs and out and len(s.split()) < MIN_WORDS and re.match(r"[\d)]", s):
            out[-1][1].extend(refs)  # "54) [1]": the rest of a page reference
    return out


def _refs(text: str) -> list[int]:
    return [int(n) for m in _MARKERS.findall(text) for n in re.findall(r"\d+", m)]


def _canon(raw: str) -> str | None:
    digits = raw.strip("$(-").replace(",", "")
    try:
        value = Decimal(digits)
    except InvalidOperation:
        return None
    return format(value.normalize(), "f")


def numbers(text: str) -> set[str]:
    """Figures in ``text``, canonical ("2,184.60" -> "2184.6"); citation markers ignored."""
    out = set()
    for m in _NUMBER.finditer(strip_markers(text or "")):
        canon = _canon(m.group(0))
        if canon is not None:
            out.add(canon)
    return out


def passages(texts: list[str]) -> list[str]:
    """Sentences of the contexts (table rows kept whole), each at most 600 characters."""
    out = []
    for t in texts:
        out.extend(s[:600] for s in sentences(t or "") if s.strip())
    return out


def overlap(statement: str, passage: str) -> float:
    """Share of the statement's terms present in ``passage`` (0..1; 0 without terms)."""
    return _share(terms(statement), terms(passage))


def _share(want: set[str], found: set[str]) -> float:
    return len(want & found) / len(want) if want else 0.0


@dataclass
class Support:
    """How well the contexts back one statement."""

    statement: str
    supported: bool
    overlap: float
    similarity: float | None
    missing_numbers: list[str]

    def as_dict(self) -> dict[str, Any]:
        return {"statement": self.statement, "supported": self.supported,
                "overlap": round(self.overlap, 3),
                "similarity": None if self.similarity is None else round(self.similarity, 3),
                "missing_numbers": self.missing_numbers}


def support(statements: list[str], contexts: list[str], embedder: Any = None,
            cited: list[list[int]] | None = None) -> list[Support]:
    """Per statement, whether ``contexts`` support it (see the module docstring).

    ``cited[i]`` lists the 1-based contexts statement ``i`` cites: its figures must then
    appear in those cited passages, not merely somewhere in the run's contexts (a figure
    of another line item elsewhere does not support it).
    """
    if not statements:
        return []
    per_ctx = [numbers(c) for c in contexts]
    ctx_numbers = set().union(*per_ctx) if contexts else set()
    windows = [terms(c) for c in contexts if c.strip()]
    sents = passages(contexts)
    sims: list[float | None] = [None] * len(statements)
    if embedder is not None and sents:
        vecs = embedder.encode(list(statements) + sents)
        st, cx = vecs[: len(statements)], vecs[len(statements):]
        sims = [float((cx @ v).max()) for v in st]
    out = []
    for i, s in enumerate(statements):
        want = terms(s)
        best = max((_share(want, w) for w in windows), default=0.0)
        refs = [n for n in (cited[i] if cited else []) if 1 <= n <= len(per_ctx)]
        allowed = set().union(*(per_ctx[n - 1] for n in refs)) if refs else ctx_numbers
        missing = sorted(numbers(s) - allowed)
        sim = sims[i]
        lexical = best >= OVERLAP_ALONE
        semantic = sim is not None and sim >= SIMILARITY and best >= OVERLAP_WITH_SIM
        out.append(Support(s, not missing and (lexical or semantic), best, sim, missing))
    return out


def reference_statements(text: str) -> list[str]:
    """The sentences of a reference answer (every sentence counts, however short)."""
    return [s for s in sentences(clean_answer(text)) if terms(s) or numbers(s)]
