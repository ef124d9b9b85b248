"""Context precision (after RAGAS): are the useful contexts ranked first?

Each of the run's contexts, in the order the run numbered them, gets a verdict:
useful for arriving at the reference answer or not. The score is the average
precision over the useful ones, sum_k(precision@k * v_k) / sum_k(v_k), 0 when
none is useful. LLM judge: one structured call gives every verdict. Offline: a
context is useful when it is a gold evidence hit (``core.evaluation.gold``) or
supports a sentence of the reference (``core.evaluation.offline.support``).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from core.evaluation.context_recall import reference
from core.evaluation.gold import matches
from core.evaluation.judge import EvalSample, Judge, Judgement, numbered_contexts
from core.evaluation.offline import reference_statements, support
from core.evaluation.results import MetricScore

KEY = "context_precision"
LLM_NAME = "context precision (LLM judge: useful contexts ranked first)"
OFFLINE_NAME = "context precision (offline: gold-evidence match or reference support)"

PROMPT = """You grade retrieved context passages. For EACH numbered passage decide whether it
is useful for arriving at the REFERENCE answer to the question (it contains facts the reference
states or needs). Return one verdict per passage, using the passage's number as index."""


class ContextVerdict(BaseModel):
    """Whether one context passage is useful for the reference answer."""

    index: int = Field(description="The passage's number as shown (1-based).")
    useful: bool = Field(description="True if the passage helps arrive at the reference answer.")
    reason: str = Field(default="", description="One short sentence explaining the verdict.")


class ContextPrecisionVerdicts(BaseModel):
    """The judge's reply: one verdict per passage."""

    verdicts: list[ContextVerdict] = Field(default_factory=list, description="Per passage.")


def average_precision(useful: Sequence[bool]) -> float:
    """sum_k(precision@k * v_k) / sum_k(v_k); 0 when nothing is useful."""
    hits = 0
    total = 0.0
    for k, v in enumerate(useful, start=1):
        if v:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


def messages(sample: EvalSample) -> list[tuple[str, str]]:
    """The judge prompt for ``sample``."""
    from core.llm.prompts import with_safety

    return [("system", with_safety(PROMPT)),
            ("user", f"Question: {sample.question}\n\nREFERENCE:\n{reference(sample)}\n\n"
                     f"PASSAGES:\n{numbered_contexts(sample.contexts)}")]


def llm_rule(sample: EvalSample, judge: Judge) -> Judgement:
    """Per-passage verdicts from the LLM judge (a passage it skipped counts as not useful)."""
    if not sample.contexts:
        return Judgement(0.0, note="the run retrieved no context")
    if not reference(sample):
        return Judgement(None, note="no ground truth or gold evidence text")
    reply = judge.ask(ContextPrecisionVerdicts, messages(sample), role="judge:context_precision")
    by_index = {v.index: v for v in reply.verdicts}
    useful = [bool(by_index.get(i) and by_index[i].useful)
              for i in range(1, len(sample.contexts) + 1)]
    return Judgement(average_precision(useful), {"useful": useful, "verdicts": [
        v.model_dump() for v in reply.verdicts]})


def offline_rule(sample: EvalSample, judge: Judge) -> Judgement:
    """Gold hits or contexts supporting a reference sentence count as useful."""
    if not sample.contexts:
        return Judgement(0.0, note="the run retrieved no context")
    statements = reference_statements(reference(sample))
    if not statements and not sample.gold:
        return Judgement(None, note="no ground truth or gold evidence")
    useful = []
    for ctx in sample.contexts:
        gold_hit = any(matches(ctx, t) for t in sample.gold)
        backed = bool(statements) and any(
            s.supported for s in support(statements, [ctx.text], judge.embedder))
        useful.append(gold_hit or backed)
    return Judgement(average_precision(useful), {"useful": useful,
                                                 "contexts": [c.id for c in sample.contexts]})


def context_precision(sample: EvalSample, judge: Judge) -> MetricScore:
    """Context precision of the run's ranked contexts (0..1)."""
    return judge.score(KEY, (LLM_NAME, OFFLINE_NAME), sample, llm_rule, offline_rule)
