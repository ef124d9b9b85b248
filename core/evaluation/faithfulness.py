"""Faithfulness (after RAGAS): the share of the answer's statements its contexts support.

LLM judge: one structured call breaks the answer into statements and gives a
supported/unsupported verdict for each against the run's contexts. Offline:
the answer's sentences are the statements; each is supported when every
figure it states appears in the contexts and its terms and meaning are found
there (``core.evaluation.offline.support``). No statement: not applicable.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from core.evaluation.judge import EvalSample, Judge, Judgement, numbered_contexts
from core.evaluation.offline import claims, clean_answer, support
from core.evaluation.results import MetricScore

KEY = "faithfulness"
LLM_NAME = "faithfulness (LLM judge: supported statements / statements)"
OFFLINE_NAME = "faithfulness (offline: sentence support by embedding similarity + lexical overlap)"

PROMPT = """You check whether an answer is faithful to the context it was written from.
1. Break the ANSWER into short, self-contained factual statements (ignore citation markers,
   headings and sentences that only say something could not be found).
2. For each statement decide whether the CONTEXT supports it: supported means it can be
   directly inferred from the context; anything not stated there, or contradicted, is not
   supported. Judge only against the context, never against your own knowledge.
Give a short reason for each verdict."""


class StatementVerdict(BaseModel):
    """One statement of the answer and whether the context supports it."""

    statement: str = Field(description="A self-contained factual statement from the answer.")
    supported: bool = Field(description="True if the context directly supports the statement.")
    reason: str = Field(default="", description="One short sentence explaining the verdict.")


class FaithfulnessVerdicts(BaseModel):
    """The judge's reply: every statement of the answer with its verdict."""

    statements: list[StatementVerdict] = Field(
        default_factory=list, description="Statements of the answer, in order, with verdicts.")


def messages(sample: EvalSample) -> list[tuple[str, str]]:
    """The judge prompt for ``sample``."""
    from core.llm.prompts import with_safety

    return [("system", with_safety(PROMPT)),
            ("user", f"Question: {sample.question}\n\nCONTEXT:\n"
                     f"{numbered_contexts(sample.contexts)}\n\nANSWER:\n"
                     f"{clean_answer(sample.answer)}")]


def llm_rule(sample: EvalSample, judge: Judge) -> Judgement:
    """Statements and verdicts from the LLM judge."""
    if not clean_answer(sample.answer):
        return Judgement(None, note="empty answer")
    reply = judge.ask(FaithfulnessVerdicts, messages(sample), role="judge:faithfulness")
    verdicts = reply.statements
    if not verdicts:
        return Judgement(None, note="the judge found no statement in the answer")
    value = sum(v.supported for v in verdicts) / len(verdicts)
    return Judgement(value, {"statements": [v.model_dump() for v in verdicts]})


def offline_rule(sample: EvalSample, judge: Judge) -> Judgement:
    """Sentence support by embedding similarity, lexical overlap and figures."""
    statements = claims(sample.answer)
    if not statements:
        return Judgement(None, note="the answer states nothing to check")
    found = support(statements, [c.text for c in sample.contexts], judge.embedder)
    value = sum(s.supported for s in found) / len(found)
    return Judgement(value, {"statements": [s.as_dict() for s in found]})


def faithfulness(sample: EvalSample, judge: Judge) -> MetricScore:
    """Faithfulness of ``sample.answer`` to ``sample.contexts`` (0..1)."""
    return judge.score(KEY, (LLM_NAME, OFFLINE_NAME), sample, llm_rule, offline_rule)
