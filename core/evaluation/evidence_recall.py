"""Gold evidence recall of a run: the share of the question's gold items its evidence holds.

A rule, no judge: an item counts when one of the run's evidence items (filing
chunk or web result) is a gold hit for it (``core.evaluation.gold.matches``).
Items whose document is neither in the corpus nor in the web snapshot are left
out (and reported by the runner). Not applicable without gold evidence.
"""

from __future__ import annotations

from core.evaluation.gold import GoldTarget, Piece, first_ranks
from core.evaluation.results import MetricScore

KEY = "gold_evidence_recall"
NAME = "gold evidence recall (run evidence matching the gold items)"


def gold_evidence_recall(pieces: list[Piece], targets: list[GoldTarget]) -> MetricScore:
    """Share of the resolvable ``targets`` matched by some piece of the run's evidence."""
    usable = [t for t in targets if t.kind != "missing"]
    if not usable:
        return MetricScore(key=KEY, name=NAME, judge="rule", value=None,
                           note="no gold evidence in the corpus or the web snapshot")
    ranks = first_ranks(pieces, usable)
    found = [r is not None for r in ranks]
    return MetricScore(key=KEY, name=NAME, judge="rule", value=sum(found) / len(found),
                       details={"found": found, "evidence_rank": ranks})
