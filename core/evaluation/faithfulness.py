"""Faithfulness (after RAGAS): the share of the answer's statements its contexts support.

LLM judge: one structured call breaks the answer into statements and gives a
supported/unsupported verdict for each against the run's contexts, checking every
figure against the passage the statement cites; a "supported" statement whose figures
are not in its cited text is then overruled (``check_figures``). Offline:
the answer's sentences are the statements; each is supported when every
figure it states appears in the contexts it cites (in any context when uncited)
and its terms and meaning are found there (``core.evaluation.offline.support``).
Either way, a figure line is supported by the fact it cites: a statement whose figures are
the run's recorded figures, whose facts are printed in the chunks it cites, and which names
their metric (``core.evaluation.fact_support``), whatever its words' overlap.
No statement: not applicable.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from core.evaluation.fact_support import backings, fact_backed
from core.evaluation.judge import EvalSample, Judge, Judgement, numbered_contexts
from core.evaluation.offline import cited_claims, clean_answer, numbers, support
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
3. Check every figure (amount, percentage, count, year, ratio) character by character against
   the context passage the statement cites ([n] in the ANSWER is context n): it is supported
   only if that same figure appears there for the same line item, period and unit. A figure
   missing from the cited passage, belonging to another line item or period, or rounded or
   converted differently than the passage allows, makes the statement unsupported.
List each statement's figures and the context numbers it cites, and give a short reason for
each verdict."""


class StatementVerdict(BaseModel):
    """One statement of the answer and whether the context supports it."""

    statement: str = Field(description="A self-contained factual statement from the answer.")
    supported: bool = Field(description="True if the context directly supports the statement.")
    reason: str = Field(default="", description="One short sentence explaining the verdict.")
    figures: list[str] = Field(default_factory=list, description="Figures the statement "
                               "states, as written (amounts, percentages, counts, years).")
    cited: list[int] = Field(default_factory=list, description="Context numbers [n] the "
                             "statement cites in the answer.")


class FaithfulnessVerdicts(BaseModel):
    """The judge's reply: every statement of the answer with its verdict."""

    statements: list[StatementVerdict] = Field(
        default_factory=list, description="Statements of the answer, in order, with verdicts.")


def messages(sample: EvalSample) -> list[tuple[str, str]]:
    """The judge prompt for ``sample``."""
    from core.llm.prompts import with_safety

    return [("system", with_safety(PROMPT)),
            ("user", f"Question: {sample.question}\n\nCONTEXT:\n"
                     f"{numbered_contexts(sample.contexts)}\n\nANSWER (with its [n] "
                     f"citations):\n{answer_with_markers(sample.answer)}")]


def answer_with_markers(text: str) -> str:
    """The answer as the judge reads it: the offline note removed, citation markers kept."""
    from core.agent.roles.synthesize import OFFLINE_NOTE

    return (text or "").replace(OFFLINE_NOTE, "").strip()


def check_figures(verdict: StatementVerdict, contexts: list[str]) -> StatementVerdict:
    """Overrule a "supported" verdict whose figures are not in the cited context text
    (all contexts when it cites none): a judge must not wave a wrong number through."""
    stated = numbers(" ".join([verdict.statement, *verdict.figures]))
    refs = [n for n in verdict.cited if 1 <= n <= len(contexts)]
    pool = [contexts[n - 1] for n in refs] if refs else contexts
    found = set().union(*(numbers(c) for c in pool)) if pool else set()
    missing = sorted(stated - found)
    if not verdict.supported or not missing:
        return verdict
    where = "the cited context" if refs else "the context"
    return verdict.model_copy(update={"supported": False, "reason": (
        f"figure(s) {', '.join(missing)} not in {where} (checked after the judge, who said: "
        f"{verdict.reason or 'supported'})")})


def backed(verdict: StatementVerdict, sample: EvalSample) -> StatementVerdict:
    """An unsupported statement that is a figure line backed by the fact it cites becomes
    supported, saying by what (``core.evaluation.fact_support``)."""
    if verdict.supported or not sample.figures:
        return verdict
    why = fact_backed(verdict.statement, verdict.cited, [c.id for c in sample.contexts],
                      backings(sample.figures))
    if not why:
        return verdict
    return verdict.model_copy(update={"supported": True, "reason": (
        f"backed by the fact it cites: {why} (the judge said: {verdict.reason or 'no'})")})


def llm_rule(sample: EvalSample, judge: Judge) -> Judgement:
    """Statements and verdicts from the LLM judge."""
    if not clean_answer(sample.answer):
        return Judgement(None, note="empty answer")
    reply = judge.ask(FaithfulnessVerdicts, messages(sample), role="judge:faithfulness")
    texts = [c.text for c in sample.contexts]
    verdicts = [backed(check_figures(v, texts), sample) for v in reply.statements]
    if not verdicts:
        return Judgement(None, note="the judge found no statement in the answer")
    value = sum(v.supported for v in verdicts) / len(verdicts)
    return Judgement(value, {"statements": [v.model_dump() for v in verdicts]})


def offline_rule(sample: EvalSample, judge: Judge) -> Judgement:
    """Sentence support by embedding similarity, lexical overlap and figures."""
    pairs = cited_claims(sample.answer)
    if not pairs:
        return Judgement(None, note="the answer states nothing to check")
    statements = [s for s, _ in pairs]
    found = support(statements, [c.text for c in sample.contexts], judge.embedder,
                    cited=[refs for _, refs in pairs])
    facts = backings(sample.figures)
    ids = [c.id for c in sample.contexts]
    rows = []
    for s, (_, refs) in zip(found, pairs, strict=True):
        row = s.as_dict()
        why = "" if s.supported or not facts else fact_backed(s.statement, refs, ids, facts)
        if why:
            s.supported = row["supported"] = True
            row["backed_by"] = why
        rows.append(row)
    value = sum(s.supported for s in found) / len(found)
    return Judgement(value, {"statements": rows})


def faithfulness(sample: EvalSample, judge: Judge) -> MetricScore:
    """Faithfulness of ``sample.answer`` to ``sample.contexts`` (0..1)."""
    return judge.score(KEY, (LLM_NAME, OFFLINE_NAME), sample, llm_rule, offline_rule)
