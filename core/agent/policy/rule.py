"""Policy role: CONTINUE, REVISE or FINISH after each step, with a reason.

The decision is a rule over the reflection's coverage verdict (judged by the LLM
in the distiller's call when one is configured, by term coverage offline) and
the run's bounds, so it costs no extra LLM call. A step that found nothing or
only weak evidence is never silently accepted: while revisions remain it is
REVISEd by ``revision_for`` (drop a wrong section filter, drop the document
filter, broaden the query, switch tool); when none remain the gap is recorded
and said in the answer. ``max_revisions`` counts revisions across the whole run; when it is
used up the run still goes on to the remaining steps, and the stop reason says so.

A revision can re-plan the rest: when a section filter returned no candidate at
all (the section is missing or mis-detected in those filings), ``carry_forward``
drops the same filter from the later steps that search the same section of the
same documents, so they do not fail the same way; those changes do not count
against ``max_revisions``.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from core.agent.deps import AgentDeps, current_run_id
from core.agent.roles.planner import FILING_CUES
from core.agent.roles.quality import LOW_RELEVANCE
from core.agent.roles.retrieval import removed_filings
from core.agent.roles.sentences import content_words
from core.agent.state import (
    Decision,
    PlanStep,
    ResearchState,
    StepQuality,
    StopReason,
    total_usage,
)


class PolicyDecision(BaseModel):
    """The policy's output after a step."""

    decision: Decision = Field(description="CONTINUE to the next step, REVISE this step, FINISH.")
    reason: str = Field(description="Why, in one sentence a reader can check.")
    limit: StopReason | None = Field(default=None, description="A bound that was reached.")


def run_started(state: ResearchState, deps: AgentDeps) -> float | None:
    """When the run's clock started: its LLM guard's start (set with the state's at route and
    review; a run continued in a new process counts what it spent before, not the time it was
    stopped: ``ResearchService.continue_run``), else the state's ``started_at``."""
    guard = deps.guards.get(current_run_id()) if deps.guards is not None else None
    if guard is not None and guard.started_at is not None:
        return guard.started_at
    return state.get("started_at")


def bound_reached(state: ResearchState, deps: AgentDeps) -> StopReason | None:
    """The wall-time or token bound, if reached."""
    s = deps.settings
    started = run_started(state, deps)
    if started is not None and deps.clock() - started >= s.max_wall_s:
        return StopReason(code="max_wall_s", message=f"wall-time limit of {s.max_wall_s:g} s "
                          "reached; answered with the evidence gathered so far")
    spent = total_usage(state.get("usage")).total
    if spent >= s.max_tokens:
        return StopReason(code="max_tokens", message=f"token budget of {s.max_tokens} reached "
                          f"({spent} used); answered with the evidence gathered so far")
    return None


def decide(state: ResearchState, deps: AgentDeps) -> PolicyDecision:
    """The decision for the step just reflected (see the module docstring)."""
    s = deps.settings
    index = state.get("step_index", 0)
    plan = state["plan"]
    work = state["work"]
    used = len(state.get("revisions", []))
    quality = _quality(state, index)
    off_topic = bool(work.reranked) and work.coverage != "answered" and \
        quality is not None and quality.relevance < LOW_RELEVANCE
    weak = work.coverage == "none" or not work.reranked or off_topic
    if not work.reranked:
        what = "found nothing"
    elif work.coverage == "none" or quality is None:
        what = "found only weak evidence"
    else:
        what = f"kept evidence mostly off the question (relevance {quality.relevance:.2f})"
    bound = bound_reached(state, deps)
    if bound:
        return PolicyDecision(decision="FINISH", reason=bound.message, limit=bound)
    if weak and used < s.max_revisions:
        return PolicyDecision(decision="REVISE", reason=f"step {index + 1} {what} (coverage: "
                              f"{work.coverage}); revision {used + 1} of at most "
                              f"{s.max_revisions}")
    note = ""
    limit = None
    if weak:
        note = f"step {index + 1} {what} and max_revisions ({s.max_revisions}) is used up; " \
            "the gap is recorded. "
        limit = StopReason(code="max_revisions", message=f"max_revisions ({s.max_revisions}) "
                           f"reached: step {index + 1} is left without usable evidence")
    elif work.coverage == "partial":
        note = f"step {index + 1} answered only partly (kept, flagged). "
    if quality is not None and quality.consistency is not None and quality.consistency < 1:
        note += f"sources disagree ({'; '.join(quality.notes[-2:])}; kept, flagged). "
    if index + 1 >= len(plan):
        return PolicyDecision(decision="FINISH", reason=note + "all plan steps are done",
                              limit=limit)
    if state.get("steps_run", 0) >= s.max_steps:
        stop = StopReason(code="max_steps", message=f"max_steps ({s.max_steps}) reached: "
                          f"{len(plan) - index - 1} plan step(s) not run")
        return PolicyDecision(decision="FINISH", reason=note + stop.message, limit=stop)
    return PolicyDecision(decision="CONTINUE", limit=limit,
                          reason=note + f"moving on to step {index + 2} of {len(plan)}")


def _quality(state: ResearchState, index: int) -> StepQuality | None:
    """The quality dimensions of the step just reflected (its latest record)."""
    history = state.get("history") or []
    last = history[-1] if history else None
    return last.quality if last is not None and last.step == index else None


def revision_for(step: PlanStep, state: ResearchState, deps: AgentDeps
                 ) -> tuple[PlanStep, str]:
    """The next change to try for a weak step: ``(new step, description)``."""
    index = state.get("step_index", 0)
    done = {r.change.split(":")[0] for r in state.get("revisions", []) if r.step == index}
    if step.section and "drop section" not in done:
        return step.model_copy(update={"section": None}), \
            f"drop section: the '{step.section}' filter found nothing usable; search all sections"
    if step.doc_ids and "drop documents" not in done \
            and not removed_filings(step.doc_ids, deps):  # never another company's filing
        return step.model_copy(update={"doc_ids": []}), \
            "drop documents: search every document in scope"
    broad = content_words(step.sub_question, limit=4)
    if "broaden query" not in done and broad and broad != step.keywords:
        return step.model_copy(update={"keywords": broad}), \
            f"broaden query: keywords reduced to the sub-question's core terms {broad}"
    if step.tool == "filing_search" and deps.web_available \
            and not FILING_CUES.search(step.sub_question):
        return step.model_copy(update={"tool": "web_search", "section": None, "doc_ids": []}), \
            "switch tool: the filings did not answer; try web search"
    if step.tool == "web_search" and deps.corpus.documents:
        return step.model_copy(update={"tool": "filing_search"}), \
            "switch tool: the web did not answer; try the filings"
    words = re.findall(r"\w+", step.sub_question)
    return step.model_copy(update={"keywords": words[:6]}), \
        "broaden query: use the sub-question's own words"


def carry_forward(plan: list[PlanStep], index: int, before: PlanStep, change: str,
                  found_nothing: bool) -> list[tuple[int, PlanStep, str]]:
    """Later steps to change like step ``index``: ``[(j, new step, description)]``.

    Only a dropped section filter that returned no candidate carries over, and only to
    filing steps with the same section and the same documents.
    """
    if not (found_nothing and before.section and change.startswith("drop section")):
        return []
    out = []
    for j in range(index + 1, len(plan)):
        step = plan[j]
        if step.tool == "filing_search" and step.section == before.section \
                and set(step.doc_ids) == set(before.doc_ids):
            out.append((j, step.model_copy(update={"section": None}),
                        f"drop section (carried over from step {index + 1}): the "
                        f"'{before.section}' filter returned nothing from these documents; "
                        "search all sections"))
    return out
