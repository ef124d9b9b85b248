"""The run lifecycle the pages render: plan drafts (edit, reorder, depends-on, justification),
the draft kept with the run, discard and cancel recorded, runs searched and tagged."""

from __future__ import annotations

import threading
from datetime import date

import pytest
from pydantic import BaseModel, Field

from core.agent.state import PlanStep
from core.app import jobs, run_session
from core.app.plan_draft import (
    StepDraft,
    add,
    drafts_from_plan,
    justification_text,
    move,
    plan_problems,
    remove,
    to_plan,
)
from core.app.run_index import (
    RunSummary,
    clean_tags,
    load_note,
    save_draft,
    search,
    set_tags,
    summaries,
)
from testkit.agent_fakes import QUESTION, FakeRetriever, make_service
from tests.waiting import CEILING_S, GATE_S, until

SECTIONS = {"nvda": ["Item 1A. Risk Factors", "Item 7. MD&A"],
            "amd": ["Item 1A. Risk Factors", "Item 1C. Cybersecurity"]}


def _plan() -> list[PlanStep]:
    return [PlanStep(sub_question="NVIDIA's competition risks?", doc_ids=["nvda"],
                     section="Item 1A. Risk Factors", justification="the 10-K lists risks"),
            PlanStep(sub_question="AMD AI news 2024", tool="web_search",
                     justification="news is after the filing"),
            PlanStep(sub_question="How does AMD's news bear on them?", doc_ids=["nvda"],
                     justification="connects the two")]


# --- drafts ------------------------------------------------------------------------------


def test_an_untouched_draft_gives_back_the_proposed_plan():
    plan = _plan()
    drafts = drafts_from_plan(plan)
    assert not any(d.edited for d in drafts)
    assert [s.model_dump() for s in to_plan(drafts)] == [s.model_dump() for s in plan]
    assert plan_problems(drafts, SECTIONS) == {}


def test_an_edited_step_says_so_instead_of_keeping_a_stale_reason():
    drafts = drafts_from_plan(_plan())
    drafts[0].doc_ids = ["amd"]  # the analyst changes the company scope
    assert drafts[0].edited and not drafts[1].edited
    why = justification_text(drafts[0])
    assert why.startswith("Edited by the analyst.") and "the 10-K lists risks" in why
    drafts[0].note = "AMD's own filing"
    assert justification_text(drafts[0]).startswith("Edited by the analyst: AMD's own filing")
    assert to_plan(drafts)[0].doc_ids == ["amd"]
    new = add(drafts)[-1]
    assert new.origin is None and justification_text(new) == "Added by the analyst."


def test_reorder_remove_and_the_problems_of_each_step():
    drafts = move(drafts_from_plan(_plan()), 2, 0)
    assert [d.sub_question[:3] for d in drafts] == ["How", "NVI", "AMD"]
    drafts[1].section = "Item 1C. Cybersecurity"  # only AMD's filing has it; step 2 is NVIDIA's
    drafts = add(drafts)  # a blank step
    problems = plan_problems(drafts, SECTIONS, web_available=False, max_steps=3)
    assert "not in the selected filings" in problems[1][0]
    assert "Web search is not available" in problems[2][0]
    assert "The sub-question is empty" in problems[3][0]
    assert "at most 3" in problems[None][0]
    assert all(p[0].isupper() and p.endswith(".") for ps in problems.values() for p in ps)
    assert len(remove(drafts, 3)) == 3


class DepStep(PlanStep):
    """A plan step that carries dependencies (as the agent's does once it supports them)."""

    depends_on: list[int] = Field(default_factory=list)


def test_dependencies_follow_their_step_when_steps_move_and_must_point_backwards():
    drafts = drafts_from_plan(_plan())
    drafts[2].depends_on = [drafts[0].uid, drafts[1].uid]
    assert to_plan(drafts, DepStep)[2].depends_on == [0, 1]
    moved = move(drafts, 2, 0)  # now it runs before the steps it depends on
    problems = plan_problems(moved, SECTIONS)
    assert "depends on step 2, which runs after it" in problems[0][0]
    dropped = remove(drafts, 0)
    assert to_plan(dropped, DepStep)[1].depends_on == [0]  # the deleted step's link is gone
    restored = drafts_from_plan(to_plan(drafts, DepStep))
    assert restored[2].depends_on == [restored[0].uid, restored[1].uid]


def test_drafts_survive_json_and_keep_what_was_proposed(settings):
    drafts = drafts_from_plan(_plan())
    drafts[0].sub_question = "AMD's competition risks?"
    save_draft(settings, "run-1", drafts)
    back = load_note(settings, "run-1").draft
    assert [d.model_dump() for d in back] == [d.model_dump() for d in drafts]
    assert back[0].edited and not back[1].edited
    assert isinstance(back[0], StepDraft)


# --- the run's life: draft, discard, cancel ------------------------------------------------


def test_a_paused_run_comes_back_with_its_draft_and_a_discarded_one_says_so(settings):
    svc = make_service(settings)
    thread, plan, _ = svc.start(QUESTION)
    drafts = drafts_from_plan(plan)
    drafts[0].sub_question = "Acme's supply risks?"
    save_draft(settings, thread, drafts)
    session = run_session.open_run(svc, settings, thread)  # e.g. after a browser refresh
    assert session.phase == "review" and session.draft[0].sub_question == "Acme's supply risks?"
    run_session.discard(svc, settings, thread)
    session = run_session.open_run(svc, settings, thread)
    assert session.phase == "discarded" and "discarded" in session.message
    rows = summaries(settings, waiting=[r.id for r in svc.paused_runs()])
    assert [r.status for r in rows] == ["discarded"]  # not "paused", not "interrupted"


def test_the_session_owns_the_draft_from_start_to_approval(settings):
    svc = make_service(settings)
    thread = run_session.start(svc, QUESTION, always_review=True)
    session = run_session.open_run(svc, settings, thread)
    assert session.phase is run_session.Phase.REVIEW and session.phase == "review"
    assert not session.restored
    steps = session.editable_steps()
    assert [s.sub_question for s in steps] == [p.sub_question for p in session.plan]
    steps[0].sub_question = "Acme's supply risks?"
    run_session.save_draft(settings, thread, steps)
    again = run_session.open_run(svc, settings, thread)  # a refresh
    assert again.restored and again.draft_saved_at
    assert again.editable_steps()[0].sub_question == "Acme's supply risks?"
    run_session.reset_draft(settings, thread)
    proposal = run_session.open_run(svc, settings, thread)
    assert not proposal.restored
    assert proposal.editable_steps()[0].sub_question == session.plan[0].sub_question

    job = run_session.approve_edits(svc, settings, proposal, proposal.editable_steps())
    assert jobs.wait(job, CEILING_S) and job.error is None
    approved = next(e for e in job.events if e.type == "plan_approved")
    assert approved.edited is False  # untouched drafts approve the proposal as it is
    done = run_session.open_run(svc, settings, thread)
    assert done.phase is run_session.Phase.DONE and load_note(settings, thread).draft is None
    jobs.forget(thread)


def test_edited_drafts_are_approved_as_edited(settings):
    svc = make_service(settings)
    thread = run_session.start(svc, QUESTION, always_review=True)
    session = run_session.open_run(svc, settings, thread)
    steps = session.editable_steps()
    steps[0].sub_question = "Acme's supply risks?"
    job = run_session.approve_edits(svc, settings, session, steps)
    assert jobs.wait(job, CEILING_S) and job.error is None
    approved = next(e for e in job.events if e.type == "plan_approved")
    assert approved.edited is True
    assert job.result.plan[0].sub_question == "Acme's supply risks?"
    jobs.forget(thread)


class HeldRetriever(FakeRetriever):
    """A search that waits until the test opens ``gate`` (``entered``: one is waiting)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.entered, self.gate = threading.Event(), threading.Event()

    def search(self, *args, **kwargs):
        self.entered.set()
        self.gate.wait(GATE_S)
        return super().search(*args, **kwargs)


def test_a_run_is_cancelled_at_its_next_event_and_what_it_did_is_kept(settings):
    retriever = HeldRetriever()
    svc = make_service(settings, retriever=retriever)
    thread, _, _ = svc.start(QUESTION)
    job = run_session.approve(svc, settings, thread, None)
    assert run_session.open_run(svc, settings, thread).phase == "running"
    try:
        assert retriever.entered.wait(CEILING_S)  # a step is searching (held there)
        assert until(lambda: any(e.type == "step_started" for e in job.events))
        assert run_session.cancel(thread)
    finally:
        retriever.gate.set()
    assert jobs.wait(job, CEILING_S) and job.cancelled
    session = run_session.open_run(svc, settings, thread)
    assert session.phase == "cancelled" and "Cancelled by the analyst" in session.message
    record = session.record
    assert record.status == "failed" and record.answer is None
    assert any(e.type == "step_started" for e in record.events)
    assert not any(e.type == "answer_ready" for e in record.events)
    assert [r.status for r in summaries(settings)] == ["cancelled"]
    jobs.forget(thread)


def test_an_approved_run_finishes_in_the_background(settings):
    svc = make_service(settings)
    thread, _, _ = svc.start(QUESTION)
    job = run_session.approve(svc, settings, thread, None)
    assert jobs.wait(job, CEILING_S) and job.error is None
    session = run_session.open_run(svc, settings, thread)
    assert session.phase == "done" and session.record.answer is not None
    assert load_note(settings, thread).draft is None
    jobs.forget(thread)


def test_unknown_run_is_missing(settings):
    svc = make_service(settings)
    assert run_session.open_run(svc, settings, "20990101-000000-deadbeef").phase == "missing"


# --- finding runs ------------------------------------------------------------------------


def _row(**kw) -> RunSummary:
    base = dict(id="r1", kind="deep", question="NVIDIA competition risks",
                created="2025-03-02T10:00:00+00:00",
                status="done", backend="offline engine", companies=["NVIDIA CORP"],
                answer_text="Rivals such as AMD compete on price [1].", tags=["q1"])
    return RunSummary(**{**base, **kw})


def test_search_matches_every_word_and_each_filter():
    rows = [_row(), _row(id="r2", question="AMD supply chain", companies=["AMD"],
                         status="cancelled", created="2025-04-10T09:00:00+00:00", tags=[],
                         answer_text="")]
    assert [r.id for r in search(rows, text="amd price")] == ["r1"]  # words from the answer
    assert [r.id for r in search(rows, companies=["AMD"])] == ["r2"]
    assert [r.id for r in search(rows, statuses=["cancelled"])] == ["r2"]
    assert [r.id for r in search(rows, tags=["q1"])] == ["r1"]
    assert [r.id for r in search(rows, since=date(2025, 4, 1))] == ["r2"]
    assert [r.id for r in search(rows, since=date(2025, 3, 1), until=date(2025, 3, 31))] == ["r1"]
    assert search(rows, text="nothing-like-this") == []


def test_tags_are_cleaned_and_saved_with_the_run(settings):
    assert clean_tags([" Q1 review ", "q1 review", "<b>x</b>", ""]) == ["Q1 review", "bx/b"]
    set_tags(settings, "run-9", ["board", "Board", "NVIDIA"])
    assert load_note(settings, "run-9").tags == ["board", "NVIDIA"]


@pytest.mark.parametrize("bad", ["../etc/passwd", "a/b", ""])
def test_run_notes_refuse_odd_ids(settings, bad):
    from core.foundation.errors import AppError

    with pytest.raises(AppError):
        set_tags(settings, bad, ["x"])


def test_summaries_name_companies_and_preview_answers(settings):
    from core.agent.state import Answer, Evidence
    from core.app.runs import RunRecord, save_run

    ev = Evidence(id="nvda-00001", kind="chunk", text="t", doc_id="nvda",
                  label="NVIDIA CORP 10-K FY2023 — Item 1A, p. 12")
    save_run(RunRecord(id="r-ok", question="q", evidence=[ev],
                       answer=Answer(text="Rivals compete. [1] (Offline engine: note.)",
                                     evidence=[ev])), settings)
    row = summaries(settings, doc_names={})[0]
    assert row.companies == ["NVIDIA CORP"]  # from the label when not in the corpus
    assert row.answer_preview == "Rivals compete. [1]"
    assert summaries(settings, doc_names={"nvda": "NVIDIA CORP"})[0].companies == ["NVIDIA CORP"]


def test_a_model_with_no_dependency_field_gets_none():
    class Plain(BaseModel):
        sub_question: str
        tool: str
        doc_ids: list[str]
        section: str | None
        keywords: list[str]
        justification: str

    out = to_plan(drafts_from_plan(_plan()), Plain)
    assert not hasattr(out[0], "depends_on")


def test_the_cli_shares_the_run_session_with_the_dashboard(settings):
    import io

    from core.cli.agent import ask

    svc = make_service(settings)
    thread, plan, _ = svc.start(QUESTION)
    drafts = drafts_from_plan(plan)
    drafts[0].sub_question = "Acme's supply risks?"
    save_draft(settings, thread, drafts)  # edited in the browser, then resumed in a terminal
    out = io.StringIO()
    record = ask(None, settings=settings, resume=thread, approve=True, service=svc, out=out)
    assert "as edited in the dashboard" in out.getvalue()
    assert record.plan[0].sub_question == "Acme's supply risks?"
    assert load_note(settings, thread).draft is None
    out = io.StringIO()
    again = ask(None, settings=settings, resume=thread, approve=True, service=svc, out=out)
    assert again.id == thread and "no plan waits for review" in out.getvalue()

    other, _, _ = svc.start(QUESTION)
    run_session.discard(svc, settings, other)
    out = io.StringIO()
    ask(None, settings=settings, resume=other, approve=True, service=svc, out=out)
    assert "discarded at review" in out.getvalue()
    assert run_session.open_run(svc, settings, other).phase == "discarded"  # not run
