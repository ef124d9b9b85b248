"""Answer correctness (after RAGAS): factual agreement with the ground truth plus similarity.

LLM judge: one structured call sorts statements into true positives (in the
answer and supported by the ground truth), false positives (in the answer, not
in the ground truth) and false negatives (in the ground truth, missing from the
answer); factual F1 = TP / (TP + (FP + FN) / 2); the score is
0.75 * F1 + 0.25 * embedding similarity of answer and ground truth (RAGAS's
default weights). Offline: numeric agreement (share of the ground truth's
figures, years aside, that the answer states), term F1 and embedding
similarity, weighted 0.5 / 0.25 / 0.25 (0.5 / 0.5 for term F1 and similarity
when the ground truth has no figures). No ground truth: not applicable.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from core.agent.roles.sentences import terms
from core.evaluation.judge import EvalSample, Judge, Judgement
from core.evaluation.offline import clean_answer, numbers
from core.evaluation.results import MetricScore

KEY = "answer_correctness"
LLM_NAME = "answer correctness (LLM judge: factual F1 0.75 + semantic similarity 0.25)"
OFFLINE_NAME = "answer correctness (offline: numeric agreement + term F1 + embedding similarity)"
F1_WEIGHT = 0.75

PROMPT = """You compare an ANSWER with the GROUND TRUTH answer to the same question.
Break both into short factual statements, then classify them:
- tp: statements of the answer that the ground truth supports;
- fp: statements of the answer that the ground truth does not contain or contradicts;
- fn: statements of the ground truth that the answer does not contain.
Figures must agree (units and periods included) to count as supported."""


class CorrectnessVerdicts(BaseModel):
    """The judge's classification of statements."""

    tp: list[str] = Field(default_factory=list, description="Answer statements the truth supports.")
    fp: list[str] = Field(default_factory=list, description="Answer statements not in the truth.")
    fn: list[str] = Field(default_factory=list, description="Truth statements the answer misses.")


def factual_f1(tp: int, fp: int, fn: int) -> float:
    """TP / (TP + (FP + FN) / 2); 0 when there is nothing to compare."""
    denom = tp + 0.5 * (fp + fn)
    return tp / denom if denom else 0.0


def _is_year(n: str) -> bool:
    return n.isdigit() and 1900 <= int(n) <= 2100


def figures(text: str) -> set[str]:
    """Figures of ``text`` that are not years (all of them if it states only years)."""
    found = numbers(text)
    kept = {n for n in found if not _is_year(n)}
    return kept or found


def messages(sample: EvalSample) -> list[tuple[str, str]]:
    """The judge prompt for ``sample`` (no untrusted evidence is shown: answer and truth only)."""
    return [("system", PROMPT),
            ("user", f"Question: {sample.question}\n\nGROUND TRUTH:\n{sample.ground_truth}\n\n"
                     f"ANSWER:\n{clean_answer(sample.answer)}")]


def llm_rule(sample: EvalSample, judge: Judge) -> Judgement:
    """Factual F1 from the LLM judge's statement classes, plus embedding similarity."""
    if not (sample.ground_truth or "").strip():
        return Judgement(None, note="no ground truth")
    answer = clean_answer(sample.answer)
    if not answer:
        return Judgement(0.0, note="empty answer")
    v = judge.ask(CorrectnessVerdicts, messages(sample), role="judge:answer_correctness")
    f1 = factual_f1(len(v.tp), len(v.fp), len(v.fn))
    sim = judge.similarity(answer, sample.ground_truth or "")
    value = f1 if sim is None else F1_WEIGHT * f1 + (1 - F1_WEIGHT) * sim
    return Judgement(value, {"f1": round(f1, 4), "similarity": sim, **v.model_dump()})


def offline_rule(sample: EvalSample, judge: Judge) -> Judgement:
    """Numeric agreement, term F1 and embedding similarity (see the module docstring)."""
    truth = (sample.ground_truth or "").strip()
    if not truth:
        return Judgement(None, note="no ground truth")
    answer = clean_answer(sample.answer)
    if not answer:
        return Judgement(0.0, note="empty answer")
    want, got = terms(truth), terms(answer)
    common = len(want & got)
    term_f1 = 2 * common / (len(want) + len(got)) if want and got else 0.0
    sim = judge.similarity(answer, truth)
    truth_figs = figures(truth)
    parts: list[tuple[float, float]] = []
    numeric = None
    if truth_figs:
        numeric = len(truth_figs & numbers(answer)) / len(truth_figs)
        parts.append((0.5, numeric))
    parts.append((0.25 if truth_figs else 0.5, term_f1))
    if sim is not None:
        parts.append((0.25 if truth_figs else 0.5, sim))
    value = sum(w * v for w, v in parts) / sum(w for w, _ in parts)
    return Judgement(value, {"numeric_agreement": numeric, "term_f1": round(term_f1, 4),
                             "similarity": None if sim is None else round(sim, 4),
                             "figures": sorted(truth_figs),
                             "missing_figures": sorted(truth_figs - numbers(answer))})


def answer_correctness(sample: EvalSample, judge: Judge) -> MetricScore:
    """Correctness of ``sample.answer`` against ``sample.ground_truth`` (0..1)."""
    return judge.score(KEY, (LLM_NAME, OFFLINE_NAME), sample, llm_rule, offline_rule)
