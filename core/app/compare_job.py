"""Compare as a background job: the baseline and the deep agent on one question.

``start`` runs, in a job of ``core.app.jobs`` (kind ``compare``): the baseline's first-run
setup (its own fixed-size chunks of filings that have none yet, built once and kept),
the baseline's answer, and, unless a finished deep run is reused, the deep agent with
its plan approved as proposed. The job's progress says which stage runs (and which
filing or step); its result is a ``CompareResult`` naming the two saved runs. Cancel
stops at the next stage (a deep run at its next event, saved as cancelled).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Any

from core.app import jobs
from core.foundation.config import Settings
from core.foundation.errors import AppError


@dataclass
class CompareResult:
    """The two saved runs of a comparison, and the first-run setup it needed."""

    baseline: str
    deep: str
    setup_s: float = 0.0
    setup_docs: int = 0


def new_job_id() -> str:
    return f"cmp-{uuid.uuid4().hex[:12]}"


def start(question: str, *, settings: Settings, store: Any, embedder: Any, documents: list,
          llm: Any = None, service: Any = None, deep_id: str | None = None,
          job_id: str | None = None) -> jobs.Job:
    """Compare ``question`` in a background job (see the module docstring).

    ``deep_id`` reuses that finished deep run; otherwise ``service`` (a ResearchService)
    researches the question now."""
    if deep_id is None and service is None:
        raise ValueError("a comparison needs a deep run id or a research service")

    def work(job: jobs.Job) -> CompareResult:
        from core.baseline.rag import scope

        # only the filings the baseline will search need its pieces (a question naming one
        # company: that company's), not every filing of the corpus
        setup_s, setup_docs = _setup(job, settings, store, embedder, scope(question, documents))
        job.check()
        job.report("Baseline: fixed-size chunks, vector top-3, one answer call…", 0, 1)
        base = _baseline(question, settings, store, embedder, llm)
        deep = deep_id or _deep(job, service, settings, question)
        job.report("Compared", 1, 1)
        return CompareResult(baseline=base, deep=deep, setup_s=setup_s, setup_docs=setup_docs)

    return jobs.start(job_id or new_job_id(), "compare", work, label=question)


def _setup(job: jobs.Job, settings: Settings, store: Any, embedder: Any,
           documents: list) -> tuple[float, int]:
    from core.baseline.index import build_doc, missing

    todo = missing(settings, embedder, documents)
    if not todo:
        return 0.0, 0
    t0 = time.perf_counter()
    job.report(f"First-run setup: the baseline needs its own fixed-size chunks of {len(todo)} "
               "filing(s), embedded once and kept (not counted in its answer time)…", 0, 1)
    for i, doc in enumerate(todo):
        job.check()

        def tick(name: str, done: int, total: int, i: int = i) -> None:
            elapsed = time.perf_counter() - t0
            share = (i + done / max(1, total)) / len(todo)
            left = f" · about {elapsed / share - elapsed:.0f} s left" if share > 0.05 else ""
            job.report(f"Filing {i + 1} of {len(todo)} · {name}: {done} of {total} "
                       f"chunks{left}", share, 1, line=False)

        build_doc(store, embedder, doc, settings, tick)
    return time.perf_counter() - t0, len(todo)


def _baseline(question: str, settings: Settings, store: Any, embedder: Any, llm: Any) -> str:
    from core.app.runs import save_run
    from core.baseline.rag import run_baseline

    base = run_baseline(question, settings=settings, store=store, embedder=embedder, llm=llm)
    save_run(base, settings)
    return base.id


def _deep(job: jobs.Job, service: Any, settings: Settings, question: str) -> str:
    """Research ``question`` with the plan approved as proposed; the run's id."""
    from core.agent import cancel as cancel_flag
    from core.app import run_session

    job.report("Deep agent: planning…", 0, 1)
    thread_id, plan, _ = service.start(question)
    try:
        service.pending_plan(thread_id)
    except AppError:  # not paused: the fast path already answered
        return thread_id
    stream = service.resume(thread_id, None)
    steps = len(plan)
    job.report(f"Deep agent: researching {steps} step(s) (plan approved as proposed)…", 0, 1)
    asked = False
    try:
        for event in stream:
            job.events.append(event)
            if event.type == "plan_approved":
                steps = len(event.plan)
            if event.type == "step_started":
                n = (event.step or 0) + 1
                job.report(f"Deep agent: step {n} of {max(steps, n)}", n - 1, max(steps, n),
                           line=False)
            if job.cancel_requested and not asked:
                cancel_flag.request(thread_id)
                asked = True
    finally:
        cancel_flag.clear(thread_id)
    if asked or job.cancel_requested:
        run_session.save_cancelled(service, settings, thread_id, job)
        raise jobs.Cancelled(f"compare {job.id}: cancelled during research")
    return thread_id
