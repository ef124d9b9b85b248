"""The answer under test, and running the cases through it.

An answerer is any ``question -> answer text`` callable (``Answerer``):

* ``AgentAnswerer(service)``: the product's deep agent exactly as ``python -m core ask "Q"
  --approve`` runs it (``ResearchService.ask(question, approve=True)``; offline: no LLM
  call). One service per corpus, reused across questions (start-up once).
* ``AnalysisAnswerer(store, documents)``: the reader and the analysis layer alone
  (``core.reading.read_plans`` then ``answer_analysis``; a plain figure question through
  ``answer_figure``), for tests and a fast reader-only measure with no retrieval.

``run_cases(cases, answerer)`` times each answer and judges it; ``rejudge(outcomes)``
judges saved answers again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Protocol

from core.bench.paraphrase.judge import judge
from core.bench.paraphrase.model import Case, Judgement, Outcome

_KEEP = 1500


class Answerer(Protocol):
    """The answer under test: a question in, the answer's text out."""

    name: str

    def __call__(self, question: str) -> str: ...


class AgentAnswerer:
    """The offline deep agent of one corpus (see the module docstring)."""

    name = "agent"

    def __init__(self, service):
        self.service = service

    @classmethod
    def for_settings(cls, settings) -> AgentAnswerer:
        """A service over ``settings``' corpus, built as ``python -m core ask`` builds it,
        offline."""
        from core.app.corpus import Corpus
        from core.app.research import ResearchService
        from core.retrieval.web import get_web_search

        corpus = Corpus(settings)
        return cls(ResearchService.from_corpus(settings, corpus, llm=None,
                                               web=get_web_search(settings)))

    def __call__(self, question: str) -> str:
        record = self.service.ask(question, approve=True)
        if record.answer is None:
            raise RuntimeError(record.error or f"run {record.id} ended {record.status} "
                               "with no answer")
        return record.answer.text

    def close(self) -> None:
        self.service.close()


class AnalysisAnswerer:
    """The reader and the analysis layer alone over a store (see the module docstring)."""

    name = "analysis"

    def __init__(self, store, documents=None):
        self.store = store
        self.documents = list(documents if documents is not None else store.documents())

    def __call__(self, question: str) -> str:
        from core.analysis.combine import answer_analysis
        from core.reading import read_plans

        reading, plans, request = read_plans(question, self.documents, self.store)
        if plans:
            return answer_analysis(plans[0], self.store).lead
        from core.figures.compute import answer_figure

        if request is None:  # the agent would quote the filings' passages
            return "Passages of the filings answer this (no figure was asked)." if \
                reading.kind == "text" else ""
        result = answer_figure(request, self.store)
        who = ", ".join(request.companies)
        if not result.ok:
            return f"I could not compute {request.name}: {'; '.join(result.missing)}."
        return f"{who}'s {request.name} was {result.display}."


def run_case(case: Case, answerer: Callable[[str], str]) -> Outcome:
    """One case answered, timed and judged (an answerer's failure is a no-answer)."""
    t0 = time.perf_counter()
    error = ""
    try:
        text = answerer(case.question) or ""
    except Exception as exc:  # noqa: BLE001 - a failing answer is a measured outcome
        text, error = "", f"{type(exc).__name__}: {exc}"[:500]
    seconds = time.perf_counter() - t0
    judged = judge(case.gold, text, case.question)
    if error and not text:
        judged = Judgement(passed=False, miss="no-answer", opening="empty",
                           reason=f"failed: {error}")
    return Outcome(case=case, judgement=judged, seconds=round(seconds, 4),
                   answer=text[:_KEEP], error=error)


def run_cases(cases: Iterable[Case], answerer: Callable[[str], str],
              progress: Callable[[int, Outcome], None] | None = None) -> list[Outcome]:
    """Every case through ``answerer``, in order."""
    out = []
    for i, case in enumerate(cases):
        outcome = run_case(case, answerer)
        out.append(outcome)
        if progress is not None:
            progress(i, outcome)
    return out


def rejudge(outcomes: list[Outcome]) -> list[Outcome]:
    """Saved outcomes judged again by the current judge (their answers kept), so a run saved
    before a change of the judge stays comparable; a failed answer stays a no-answer."""
    out = []
    for o in outcomes:
        if o.error and not o.answer:
            out.append(o)
            continue
        judged = judge(o.case.gold, o.answer, o.case.question)
        out.append(o.model_copy(update={"judgement": judged}))
    return out

