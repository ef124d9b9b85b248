"""Context recall (after RAGAS): the share of the reference answer the contexts back.

The reference is the question's ``ground_truth`` (else its gold evidence texts).
LLM judge: each reference sentence is attributed (or not) to the run's
contexts in one structured call. Offline: a reference sentence is attributed
when the contexts support it (figures present, terms and meaning found:
``core.evaluation.offline.support``). No reference: not applicable.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from core.evaluation.judge import EvalSample, Judge, Judgement, numbered_contexts
from core.evaluation.offline import reference_statements, support
from core.evaluation.results import MetricScore

KEY = "context_recall"
LLM_NAME = "context recall (LLM judge: reference sentences attributable to the contexts)"
OFFLINE_NAME = ("context recall (offline: reference sentence support by embedding similarity "
                "+ lexical overlap)")

PROMPT = """You check how much of a reference answer can be found in retrieved context.
Split the REFERENCE into its sentences. For each sentence decide whether it can be attributed
to the CONTEXT (the context states it or it follows directly from it). Judge only against
the context. Give a short reason for each verdict."""


class Attribution(BaseModel):
    """One reference sentence and whether the context contains it."""

    sentence: str = Field(description="A sentence of the reference answer.")
    attributed: bool = Field(description="True if the context states or directly implies it.")
    reason: str = Field(default="", description="One short sentence explaining the verdict.")


class ContextRecallVerdicts(BaseModel):
    """The judge's reply: every reference sentence with its attribution."""

    sentences: list[Attribution] = Field(
        default_factory=list, description="Reference sentences, in order, with verdicts.")


def reference(sample: EvalSample) -> str:
    """The reference text: the ground truth, else the gold evidence texts."""
    if sample.ground_truth and sample.ground_truth.strip():
        return sample.ground_truth.strip()
    texts = [t.item.text.strip().rstrip(".") + "." for t in sample.gold if t.item.text]
    return " ".join(texts)


def messages(sample: EvalSample) -> list[tuple[str, str]]:
    """The judge prompt for ``sample``."""
    from core.llm.prompts import with_safety

    return [("system", with_safety(PROMPT)),
            ("user", f"Question: {sample.question}\n\nCONTEXT:\n"
                     f"{numbered_contexts(sample.contexts)}\n\nREFERENCE:\n{reference(sample)}")]


def llm_rule(sample: EvalSample, judge: Judge) -> Judgement:
    """Attributions from the LLM judge."""
    if not reference(sample):
        return Judgement(None, note="no ground truth or gold evidence text")
    reply = judge.ask(ContextRecallVerdicts, messages(sample), role="judge:context_recall")
    if not reply.sentences:
        return Judgement(None, note="the judge returned no sentence")
    value = sum(a.attributed for a in reply.sentences) / len(reply.sentences)
    return Judgement(value, {"sentences": [a.model_dump() for a in reply.sentences]})


def offline_rule(sample: EvalSample, judge: Judge) -> Judgement:
    """Reference sentences supported by the contexts."""
    statements = reference_statements(reference(sample))
    if not statements:
        return Judgement(None, note="no ground truth or gold evidence text")
    found = support(statements, [c.text for c in sample.contexts], judge.embedder)
    value = sum(s.supported for s in found) / len(found)
    return Judgement(value, {"sentences": [s.as_dict() for s in found]})


def context_recall(sample: EvalSample, judge: Judge) -> MetricScore:
    """Context recall of ``sample.contexts`` against the reference (0..1)."""
    return judge.score(KEY, (LLM_NAME, OFFLINE_NAME), sample, llm_rule, offline_rule)
