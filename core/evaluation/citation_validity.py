"""Citation validity: do the answer's [n] markers point into the run's evidence, and is every
statement cited?

- ``citation_validity``: valid markers / all markers, where a marker is valid when
  ``core.agent.roles.citations.validate_citations`` maps it to an evidence item of the run;
  markers the run already removed (``Answer.invalid_markers``) count as invalid.
  Not applicable when the answer has no marker at all.
- ``cited_sentences``: share of the answer's statements (``offline.is_claim``) that
  carry at least one [n] marker (a marker right after a sentence's full stop
  belongs to that sentence).
Both are computed by rule (judge ``rule``): no judgement is involved.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from core.agent.roles.citations import validate_citations
from core.agent.roles.sentences import sentences
from core.evaluation.offline import is_claim, strip_markers
from core.evaluation.results import MetricScore

VALIDITY_KEY = "citation_validity"
VALIDITY_NAME = "citation validity (markers pointing into the run's evidence)"
COVERAGE_KEY = "cited_sentences"
COVERAGE_NAME = "cited sentences (statements with at least one [n])"
_MARK = re.compile(r"\[(\d+)\]")
_TRAILING = re.compile(r"([.!?])((?:\s*\[\d+(?:\s*[-–,;]\s*\d+)*\])+)")


def citation_validity(text: str, evidence: Sequence[Any],
                      removed: Sequence[str] = ()) -> MetricScore:
    """Share of markers in ``text`` (plus ``removed`` ones) that point into ``evidence``."""
    numbered = {n: ev for n, ev in enumerate(evidence, start=1)}
    check = validate_citations(text or "", numbered)
    valid = len(_MARK.findall(check.text))
    invalid = list(check.invalid) + list(removed)
    total = valid + len(invalid)
    if total == 0:
        return MetricScore(key=VALIDITY_KEY, name=VALIDITY_NAME, judge="rule", value=None,
                           note="the answer has no citation marker")
    return MetricScore(key=VALIDITY_KEY, name=VALIDITY_NAME, judge="rule", value=valid / total,
                       details={"valid": valid, "invalid": invalid,
                                "evidence_items": len(numbered)})


def statement_citations(text: str) -> list[tuple[str, bool]]:
    """``(statement, cited)`` for each statement of ``text``."""
    from core.agent.roles.synthesize import BANNER, OFFLINE_NOTE

    body = _TRAILING.sub(lambda m: f"{m.group(2)}{m.group(1)}", (text or "").replace(
        OFFLINE_NOTE, "").replace(BANNER, ""))
    out = []
    for s in sentences(body):
        plain = re.sub(r"^Partly answered\s*[—-]\s*", "", strip_markers(s)).strip()
        if is_claim(plain):
            out.append((plain, bool(re.search(r"\[\d+", s))))
    return out


def cited_sentences(text: str) -> MetricScore:
    """Share of the statements of ``text`` that cite at least one source."""
    pairs = statement_citations(text)
    if not pairs:
        return MetricScore(key=COVERAGE_KEY, name=COVERAGE_NAME, judge="rule", value=None,
                           note="the answer states nothing")
    return MetricScore(key=COVERAGE_KEY, name=COVERAGE_NAME, judge="rule",
                       value=sum(c for _, c in pairs) / len(pairs),
                       details={"uncited": [s for s, c in pairs if not c]})
