"""Quality dimensions of a step's evidence: relevance, coverage, consistency between sources.

Offline rules over the step's distilled context (the lines it keeps, each with its
source), so they cost no LLM call and are the same with or without an LLM:

- relevance (0..1): mean, over the kept lines, of the share of the sub-question's terms
  (its instruction words and the terms its filters already enforce left out) each line
  contains: is what was kept about what was asked? (Against the retrieval query instead
  when that scores higher: an edited step's keywords are what it was told to find.)
- coverage (0..1): share of those terms found in at least one kept line: how much of the
  question the evidence touches (the reflection's answered/partial/none verdict is the
  coarse form of this).
- consistency (0..1, None when nothing is comparable): table rows of DIFFERENT sources
  with the same line item (same label terms) and the same column headings must state the
  same first figure; the score is the share of such pairs that agree, and each pair that
  disagrees is named in ``notes``.

The policy (``policy.decide``) revises a step whose evidence has low relevance, and says
so when sources disagree.
"""

from __future__ import annotations

import re

from core.agent.roles.distill import context_lines
from core.agent.roles.sentences import is_table_line, query_terms, row_core, terms
from core.agent.state import StepQuality

LOW_RELEVANCE = 0.2  # below this the kept evidence is mostly about something else
_FIGURE = re.compile(r"\(?-?\$?\s?\d[\d,]*(?:\.\d+)?\)?")


def _row(line: str) -> tuple[frozenset[str], str, str] | None:
    """``(label terms, column headings, first figure)`` of a quoted table row, else None."""
    core = row_core(line)
    if not is_table_line(core):
        return None
    cells = [c.strip() for c in core.split("|")]
    figures = [c for c in cells[1:] if _FIGURE.fullmatch(c.replace(" ", ""))]
    if not figures:
        return None
    headings = line.rstrip().rstrip(".")[len(core):].strip()
    label = frozenset(terms(cells[0]))
    return (label, headings, re.sub(r"[^\d.\-()]", "", figures[0])) if label else None


def consistency(lines: list[tuple[str, list[str]]]) -> tuple[float | None, list[str]]:
    """Agreement of same-line-item table rows across sources (see the module docstring)."""
    rows = [(r, ids[0], text) for text, ids in lines if ids and (r := _row(text))]
    agree, pairs, notes = 0, 0, []
    for i, ((label, head, fig), src, text) in enumerate(rows):
        for (label2, head2, fig2), src2, _ in rows[i + 1:]:
            if src2 == src or label2 != label or head2 != head:
                continue
            pairs += 1
            if fig == fig2:
                agree += 1
            else:
                notes.append(f"sources disagree on “{text.split('|')[0].strip()}”: {fig} "
                             f"[{src}] vs {fig2} [{src2}]")
    return (agree / pairs if pairs else None), notes


def _asked(text: str, ignore: set[str]) -> set[str]:
    return (query_terms(text) - ignore) or query_terms(text)


def _relevance(q_terms: set[str], lines: list[tuple[str, list[str]]]) -> float:
    if not q_terms:
        return 0.0
    return sum(len(q_terms & terms(text)) for text, _ in lines) / (len(q_terms) * len(lines))


def step_quality(sub_question: str, context: str, ignore: set[str] | None = None,
                 query: str = "") -> StepQuality:
    """The three dimensions for one step's distilled ``context``. Relevance is taken against
    the sub-question or the step's retrieval ``query``, whichever the lines match better (an
    analyst's edited keywords reach the query and are what the step was told to find)."""
    q_terms = _asked(sub_question, ignore or set())
    lines = context_lines(context)
    if not lines or not q_terms:
        return StepQuality(relevance=0.0, coverage=0.0, consistency=None,
                           notes=["no evidence kept"] if not lines else [])
    relevance = max(_relevance(q_terms, lines),
                    _relevance(_asked(query, ignore or set()), lines) if query else 0.0)
    found = [q_terms & terms(text) for text, _ in lines]
    coverage = len(set().union(*found)) / len(q_terms)
    agree, notes = consistency(lines)
    if relevance < LOW_RELEVANCE:
        notes.insert(0, f"kept evidence is mostly off the question (relevance {relevance:.2f})")
    return StepQuality(relevance=round(relevance, 3), coverage=round(coverage, 3),
                       consistency=None if agree is None else round(agree, 3), notes=notes)
