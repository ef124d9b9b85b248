"""Citation markers: number the run's evidence and validate an answer's [n] markers.

Every [n] in an answer must map to an evidence item of the run (a chunk id with
its filing, section and page, or a URL). ``validate_citations`` rewrites markers
that name an evidence id directly (``[ab12cd-00042]`` -> ``[3]``), removes
markers that point nowhere (reported in ``invalid``) and lists factual
sentences that cite nothing (``uncited``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.agent.state import Citation, Evidence, StepRecord

_BRACKET = re.compile(r"\[([^\[\]\n]{1,300})\]")
_REFLIKE = re.compile(r"^(?:\d+(?:\s*[-–]\s*\d+)?|[0-9a-f]{6,}-\d{3,}|https?://\S+|E\d+|"
                      r"source\s*\d+|ref\s*\d+)$", re.IGNORECASE)
_NO_CLAIM = re.compile(r"could not|couldn't|not find|no evidence|not found|did not|unable|"
                       r"offline engine|stopped early|limit reached", re.IGNORECASE)


@dataclass
class CitationCheck:
    """The validated answer and what was wrong with its markers."""

    text: str
    citations: list[Citation] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)
    uncited: list[str] = field(default_factory=list)


def best_records(history: list[StepRecord]) -> list[StepRecord]:
    """One record per plan step: the attempt with the best coverage (latest on ties)."""
    rank = {"none": 0, "partial": 1, "answered": 2}
    best: dict[int, StepRecord] = {}
    for rec in history:
        old = best.get(rec.step)
        if old is None or rank[rec.coverage] >= rank[old.coverage]:
            best[rec.step] = rec
    return [best[k] for k in sorted(best)]


def number_evidence(records: list[StepRecord], evidence: dict[str, Evidence]
                    ) -> dict[int, Evidence]:
    """Number the evidence kept by ``records`` 1..N in order of first use."""
    ids: list[str] = []
    for rec in records:
        ids.extend(i for i in rec.evidence_ids if i in evidence and i not in ids)
    return {n: evidence[i] for n, i in enumerate(ids, start=1)}


def known_lines(context: str, known: list[str]) -> tuple[str, list[str]]:
    """``(context, dropped)``: ``context`` without the lines whose bracketed ids all name
    evidence not in ``known`` (cited, but never retrieved: invented), and those lines."""
    kept, dropped = [], []
    for line in context.splitlines():
        ids = [p.strip() for m in _BRACKET.finditer(line) for p in re.split(r"[,;]", m.group(1))]
        (dropped if ids and not any(i in known for i in ids) else kept).append(line)
    return "\n".join(kept), dropped


def _expand(part: str) -> list[str]:
    m = re.fullmatch(r"(\d+)\s*[-–]\s*(\d+)", part)
    if m and int(m.group(2)) - int(m.group(1)) < 50:
        return [str(n) for n in range(int(m.group(1)), int(m.group(2)) + 1)]
    return [re.sub(r"^(?:source|ref)\s*", "", part, flags=re.I)]


def validate_citations(text: str, numbered: dict[int, Evidence]) -> CitationCheck:
    """Keep markers that map to ``numbered`` evidence; drop and report the others.

    The text is made inert first (``core.foundation.safety.inert_markdown``: no images, HTML,
    links or clickable bare URLs), as answers quote evidence written by others."""
    from core.foundation.safety import inert_markdown

    text = inert_markdown(text)
    by_id = {ev.id: n for n, ev in numbered.items()}
    invalid: list[str] = []

    def fix(m: re.Match) -> str:
        parts = [p.strip() for p in re.split(r"[,;]", m.group(1)) if p.strip()]
        if not parts or not all(p in by_id or _REFLIKE.match(p) for p in parts):
            return m.group(0)  # not a citation, e.g. "[sic]" or "[Item 1A]"
        kept: list[int] = []
        for part in parts:
            for p in ([part] if part in by_id else _expand(part)):
                if p in by_id:
                    kept.append(by_id[p])
                elif p.isdigit() and int(p) in numbered:
                    kept.append(int(p))
                else:
                    invalid.append(f"[{p}]")
        return "".join(f"[{n}]" for n in dict.fromkeys(kept))

    out = _BRACKET.sub(fix, text)
    out = re.sub(r"[ \t]+([.,;:])", r"\1", re.sub(r"[ \t]{2,}", " ", out)).strip()
    used = [int(n) for n in re.findall(r"\[(\d+)\]", out)]
    citations = [
        Citation(n=n, evidence_id=numbered[n].id, kind=numbered[n].kind,
                 label=numbered[n].label, url=numbered[n].url)
        for n in dict.fromkeys(used)
    ]
    return CitationCheck(out, citations, invalid, uncited_sentences(out))


def renumber(check: CitationCheck, numbered: dict[int, Evidence]
             ) -> tuple[CitationCheck, dict[int, Evidence]]:
    """Keep only cited evidence, numbered 1..M in order of first citation."""
    order = list(dict.fromkeys(int(n) for n in re.findall(r"\[(\d+)\]", check.text)))
    new_of = {old: new for new, old in enumerate(order, start=1)}
    text = re.sub(r"\[(\d+)\]", lambda m: f"[{new_of[int(m.group(1))]}]", check.text)
    kept = {new: numbered[old] for old, new in new_of.items()}
    return validate_citations(text, kept), kept


def uncited_sentences(text: str) -> list[str]:
    """Sentences of substance (8+ words) with no [n] marker and no 'not found' wording."""
    out = []
    for para in text.split("\n"):
        for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z(])", para.strip()):
            words = sentence.split()
            if len(words) >= 8 and not re.search(r"\[\d+\]", sentence) \
                    and not _NO_CLAIM.search(sentence) and not sentence.rstrip().endswith(":"):
                out.append(sentence)
    return out
