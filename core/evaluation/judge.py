"""The judge behind the answer metrics, and what it judges.

``Judge`` holds the chat model (``llm``; None selects the offline rules) and the
embedder used for semantic similarity. Every answer metric module has an LLM
path (prompt + pydantic schema, called through ``core.llm.structured``) and an
offline rule, and calls ``judge.score(...)``, which runs the LLM path when there
is a model and falls back to the offline rule, saying so in the result, when
the call fails. The result's ``name`` and ``judge`` always tell which ran.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from core.evaluation.gold import GoldTarget, Piece
from core.evaluation.results import MetricScore
from core.foundation.config import Settings
from core.llm.breaker import LLMGuard

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)


@dataclass
class EvalSample:
    """One answer to judge: the question, the answer, the run's contexts, the references."""

    question: str
    answer: str
    contexts: list[Piece] = field(default_factory=list)
    ground_truth: str | None = None
    gold: list[GoldTarget] = field(default_factory=list)
    invalid_markers: list[str] = field(default_factory=list)
    """Citation markers the run already removed because they pointed nowhere."""
    figures: list[Any] = field(default_factory=list)
    """The figures the run recorded (``FigureResult``: the answer's and those its analyses
    combined), with the facts behind them: a figure line citing its fact is supported."""
    analyses: list[Any] = field(default_factory=list)
    """The run's ``AnalysisResult``s (its verdicts), for the analysis metrics' details."""
    verdict: str | list[str] | None = None
    """The reference verdict: a name (compare, pick), names in order (rank), 'yes' / 'no'."""
    gold_figures: dict[str, float] = field(default_factory=dict)
    """The reference figures by subject (company, measure or segment)."""


@dataclass
class Judgement:
    """What an LLM or offline scorer returns before it becomes a ``MetricScore``."""

    value: float | None
    details: dict[str, Any] = field(default_factory=dict)
    note: str | None = None


@dataclass
class Judge:
    """An LLM judge (``llm`` set) or the offline rules (``llm`` None)."""

    settings: Settings
    embedder: Any = None
    llm: Any = None
    calls: int = 0
    tokens: int = 0
    guard: LLMGuard = field(default_factory=lambda: LLMGuard(ignore=frozenset({"output"})))
    """Breaker over the whole evaluation: after the same endpoint failure (HTTP 5xx, 429,
    timeout...) twice the judge stops calling it and every metric uses its offline rule,
    saying so. Unusable judge output does not count: one bad reply is not a dead server."""

    def __post_init__(self) -> None:
        self.guard.threshold = self.settings.llm_breaker_threshold

    @property
    def kind(self) -> str:
        return "offline" if self.llm is None else "llm"

    @property
    def label(self) -> str:
        if self.llm is None:
            return "offline"
        name = getattr(self.llm, "model_name", None) or getattr(self.llm, "model", None)
        return f"llm:{name or type(self.llm).__name__}"

    def ask(self, schema: type[M], messages: list[Any], role: str) -> M:
        """One structured call to the judge model; raises ``LLMOutputError`` when unusable."""
        from core.llm.structured import StructuredCallError, call_structured

        try:
            result = call_structured(self.llm, schema, messages, self.settings, role=role,
                                     guard=self.guard)
        except StructuredCallError as exc:
            self.calls += exc.usage.calls
            self.tokens += exc.usage.total
            raise
        self.calls += result.usage.calls
        self.tokens += result.usage.total
        return result.value

    def similarity(self, a: str, b: str) -> float | None:
        """Cosine similarity of two texts with the embedder (None without one)."""
        if self.embedder is None or not a.strip() or not b.strip():
            return None
        vecs = self.embedder.encode([a, b])
        return max(0.0, float(vecs[0] @ vecs[1]))

    def score(self, key: str, names: tuple[str, str], sample: EvalSample,
              llm_rule: Callable[[EvalSample, Judge], Judgement],
              offline_rule: Callable[[EvalSample, Judge], Judgement]) -> MetricScore:
        """Run ``llm_rule`` with a model (else or on failure ``offline_rule``): a MetricScore.

        ``names`` is ``(llm name, offline name)``.
        """
        calls0, tokens0 = self.calls, self.tokens
        fallback = None
        if self.llm is not None:
            try:
                j = llm_rule(sample, self)
                return MetricScore(key=key, name=names[0], judge=self.label, value=j.value,
                                   details=j.details, note=j.note,
                                   judge_calls=self.calls - calls0,
                                   judge_tokens=self.tokens - tokens0)
            except Exception as exc:  # noqa: BLE001 - degrade to the offline rule, said below
                from core.llm.failures import redact

                fallback = redact(f"LLM judge failed ({exc}); offline rule used instead.",
                                  self.settings)
                log.warning("%s: %s", key, fallback)
        j = offline_rule(sample, self)
        note = "; ".join(n for n in (fallback, j.note) if n) or None
        return MetricScore(key=key, name=names[1], judge="offline", value=j.value,
                           details=j.details, note=note, judge_calls=self.calls - calls0,
                           judge_tokens=self.tokens - tokens0)


def make_judge(settings: Settings, embedder: Any, llm: Any = None, mode: str = "auto") -> Judge:
    """A judge: ``mode`` 'auto' (the given/configured LLM if any), 'llm' (required) or 'offline'."""
    from core.foundation.errors import AppError

    if mode not in ("auto", "llm", "offline"):
        raise AppError(f"Unknown judge {mode!r}: choose auto, llm or offline.")
    if mode == "offline":
        return Judge(settings, embedder, None)
    if llm is None:
        from core.llm.factory import make_chat_model

        llm = make_chat_model(settings)
    if llm is None and mode == "llm":
        raise AppError("The LLM judge needs a model: set DTR_LLM_BASE_URL (and DTR_LLM_API_KEY "
                       "if the endpoint needs one), or use --judge offline.")
    return Judge(settings, embedder, llm)


def numbered_contexts(contexts: list[Piece], limit: int = 1500) -> str:
    """The contexts as fenced, numbered evidence blocks for a judge prompt."""
    from core.llm.prompts import fence_evidence

    if not contexts:
        return "(no context was retrieved)"
    blocks = [{"id": str(i), "text": c.text[:limit], "source": c.label}
              for i, c in enumerate(contexts, start=1)]
    return fence_evidence(blocks)
