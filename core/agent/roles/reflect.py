"""Reflection role: the step's one-sentence finding, appended to the research history.

With an LLM the finding is the 'finding' field of the distiller's reply (one call does both,
see ``distill.py``: one sentence answering the sub-question from the distilled facts, plus
the coverage verdict); there is no reflector call. Offline rule: extractive —
the best distilled sentence (the context lists them best first) with its reference;
for a clause asking how one finding bears on another, the juxtaposition of the
earlier steps' findings (``connect.py``); the juxtaposition is not evidence, so the
step's coverage stays what its own evidence showed.
"""

from __future__ import annotations

import re

from core.agent.deps import CorpusInfo
from core.agent.roles.citations import best_records
from core.agent.roles.connect import build_link, link_text
from core.agent.roles.sentences import shorten
from core.agent.state import Coverage, Evidence, PlanStep, StepRecord

FINDING_CHARS = 320


def offline_finding(step: PlanStep, context: str, coverage: Coverage) -> str:
    """The first (best) fact line of ``context`` with its reference, or 'nothing found'."""
    for line in context.splitlines():
        line = re.sub(r"^\s*[-*•]\s*", "", line).strip()
        m = re.match(r"(.*?)\s*(\[[^\[\]]+\])\s*$", line)
        if not line or not m:
            continue
        prefix = {"partial": "Partly answered: ", "none": "Only weak evidence: "}.get(coverage, "")
        return f"{prefix}{shorten(m.group(1), FINDING_CHARS).rstrip(' .')}. {m.group(2)}"
    return f"No evidence found for: {step.sub_question}"


def offline_link_finding(record: StepRecord, history: list[StepRecord],
                         evidence: dict[str, Evidence], corpus: CorpusInfo | None,
                         question: str) -> tuple[str, Coverage] | None:
    """``(finding, coverage)`` juxtaposing earlier findings for a connect clause, or None."""
    earlier = [r for r in best_records(history) if r.step < record.step]
    link = build_link(record, earlier, evidence, corpus, question)
    if link is None:
        return None
    return "Juxtaposed (offline): " + link_text(link, lambda i: f"[{i}]"), record.coverage
