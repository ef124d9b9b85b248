"""Step dependencies and parallel steps (LangGraph ``Send``), and cancel while a branch waits.

Two-company corpus (tests/plan_corpus.py); the web fake can block, so the tests see whether
two steps really run at the same time and whether cancel ends a run whose branch is stuck
in a slow call."""

from __future__ import annotations

import threading
import time

from core.agent.state import PlanStep
from core.app import jobs, run_session
from testkit.agent_fakes import FakeWeb
from tests.plan_corpus import AMD, NVDA, WEB, TwoDocRetriever, service
from tests.waiting import CEILING_S, GATE_S


class BarrierRetriever(TwoDocRetriever):
    """Filing search that waits until the web search is also in flight."""

    def __init__(self, barrier: threading.Barrier):
        super().__init__()
        self.barrier = barrier

    def search(self, query, **kw):
        self.barrier.wait()
        return super().search(query, **kw)


class BarrierWeb(FakeWeb):
    """Web search that can wait for the filing search (``barrier``) or, like a slow search
    service, until the test opens ``gate`` (``entered`` says it is waiting there)."""

    def __init__(self, barrier: threading.Barrier | None = None,
                 gate: threading.Event | None = None):
        super().__init__(list(WEB))
        self.barrier, self.gate = barrier, gate
        self.entered = threading.Event()

    def search(self, query, k=5, *, after=None):
        if self.barrier is not None:
            self.barrier.wait()
        self.entered.set()
        if self.gate is not None:
            self.gate.wait(GATE_S)
        return super().search(query, k, after=after)


PLAN = [PlanStep(sub_question="How does NVIDIA describe competition from custom AI chips?",
                 doc_ids=[NVDA.doc_id], keywords=["competition"]),
        PlanStep(sub_question="What did AMD announce about AI accelerators in 2024?",
                 tool="web_search", keywords=["AMD", "accelerator"]),
        PlanStep(sub_question="How does this AMD news bear on NVIDIA's competition risk?",
                 doc_ids=[NVDA.doc_id], keywords=["competition", "accelerator"],
                 depends_on=[0, 1])]


def _run(settings, retriever, web, plan=PLAN):
    svc = service(settings, retriever, web)
    thread_id, _, _ = svc.start("How does NVIDIA describe its competition risks, and what did "
                                "AMD announce in 2024?")
    return svc.resume(thread_id, [s.model_dump() for s in plan]).run()


def test_independent_steps_run_side_by_side(settings):
    barrier = threading.Barrier(2, timeout=CEILING_S)  # breaks unless both are in flight
    record = _run(settings, BarrierRetriever(barrier), BarrierWeb(barrier), PLAN[:2])
    assert not barrier.broken
    assert {h.step for h in record.history} == {0, 1} and all(h.evidence_ids
                                                              for h in record.history)
    assert record.answer and record.stop_reason.code == "completed"


def test_a_dependent_step_starts_after_the_steps_it_uses(settings):
    record = _run(settings, TwoDocRetriever(), BarrierWeb())
    order = [(e.type, e.step) for e in record.events
             if e.type in ("step_started", "step_reflected")]
    third = order.index(("step_started", 2))
    assert ("step_reflected", 0) in order[:third] and ("step_reflected", 1) in order[:third]
    started = next(e for e in record.events if e.type == "step_started" and e.step == 2)
    assert started.depends_on == [0, 1]
    # it had the earlier findings: its history had both records when it ran
    assert [h.step for h in record.history][-1] == 2


class InFlight:
    """Counts calls in flight at once. Each call lasts ``hold`` seconds, or, given
    ``together``, until that many are in flight at once (``hold`` is then a ceiling)."""

    def __init__(self, hold: float = 0.3, together: int = 0):
        self.hold, self.together, self.now, self.most = hold, together, 0, 0
        self.lock = threading.Lock()
        self.met = threading.Event()

    def __enter__(self):
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
            if self.together and self.now >= self.together:
                self.met.set()
        if self.together:
            self.met.wait(self.hold)
        else:
            time.sleep(self.hold)  # one at a time: a pass cannot come from a slow machine

    def __exit__(self, *exc):
        with self.lock:
            self.now -= 1


class CountingRetriever(TwoDocRetriever):
    def __init__(self, flight: InFlight):
        super().__init__()
        self.flight = flight

    def search(self, query, **kw):
        with self.flight:
            return super().search(query, **kw)


class CountingWeb(FakeWeb):
    def __init__(self, flight: InFlight):
        super().__init__(list(WEB))
        self.flight = flight

    def search(self, query, k=5, *, after=None):
        with self.flight:
            return super().search(query, k, after=after)


def test_one_step_at_a_time_when_parallel_steps_is_1(settings):
    settings = settings.model_copy(update={"parallel_steps": 1})
    flight = InFlight()
    record = _run(settings, CountingRetriever(flight), CountingWeb(flight), PLAN[:2])
    assert flight.most == 1
    assert [e.step for e in record.events if e.type == "step_started"] == [0, 1]
    parallel = InFlight(hold=CEILING_S, together=2)  # each waits until the other came
    _run(settings.model_copy(update={"parallel_steps": 3}), CountingRetriever(parallel),
         CountingWeb(parallel), PLAN[:2])
    assert parallel.most == 2


def test_cancel_while_a_parallel_branch_waits_on_a_slow_web_search(settings):
    gate = threading.Event()
    web = BarrierWeb(gate=gate)
    svc = service(settings, TwoDocRetriever(), web)
    thread_id, _, _ = svc.start("How does NVIDIA describe its competition risks, and what "
                                "did AMD announce in 2024?")
    job = run_session.approve(svc, settings, thread_id, PLAN)
    try:
        assert web.entered.wait(CEILING_S)  # the web branch is stuck in its search
        assert run_session.cancel(thread_id)
    finally:
        gate.set()  # the slow search answers; the run ends at its branch's next stage
    assert jobs.wait(job, CEILING_S) and job.cancelled  # never hangs on the stuck branch
    session = run_session.open_run(svc, settings, thread_id)
    assert session.phase == "cancelled" and "Cancelled by the analyst" in session.message
    assert not any(e.type == "answer_ready" for e in job.events)
    assert not any(e.type == "step_started" and e.step == 2 for e in job.events)


def test_scope_shown_by_company_for_parallel_steps(settings):
    plan = [PLAN[0], PlanStep(sub_question="How does AMD describe its competition risks?",
                              doc_ids=[AMD.doc_id], keywords=["competition"])]
    record = _run(settings, TwoDocRetriever(), BarrierWeb(), plan)
    names = {e.step: e.companies for e in record.events if e.type == "step_started"}
    assert names[0][0].startswith("NVIDIA Corporation")
    assert names[1][0].startswith("Advanced Micro Devices")


def test_side_by_side_steps_share_max_revisions(settings):
    settings = settings.model_copy(update={"max_revisions": 1})
    retriever = TwoDocRetriever()
    retriever.search = lambda query, **kw: TwoDocRetriever.search(retriever, "zzz", **kw)
    record = _run(settings, retriever, BarrierWeb(), PLAN[:1] + [PLAN[0].model_copy(
        update={"sub_question": "How does NVIDIA describe supply chain risks?"})])
    assert len(record.revisions) == 1  # two weak steps in one wave, one revision in all
