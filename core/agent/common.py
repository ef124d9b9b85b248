"""Helpers every node uses: the current step, usage updates, warnings as events."""

from __future__ import annotations

import re

from core.agent.deps import AgentDeps, RoleCall
from core.agent.events import Warning as WarningEvent
from core.agent.events import emit
from core.agent.state import PlanStep, ResearchState, RoleUsage


def current_step(state: ResearchState) -> PlanStep:
    """The plan step being researched."""
    return state["plan"][state.get("step_index", 0)]


def call_usage(call: RoleCall | None) -> RoleUsage | None:
    """The call's usage for an event, or None when no LLM was called."""
    u = call.usage if call is not None else None
    if u is None or (u.calls == 0 and u.fallbacks == 0 and u.cache_hits == 0):
        return None
    return call.usage


def usage_update(role: str, call: RoleCall | None) -> dict[str, dict[str, RoleUsage]]:
    """State update adding the call's usage to ``role`` (empty when nothing was spent)."""
    usage = call_usage(call)
    return {"usage": {role: usage}} if usage is not None else {}


def warn(node: str, step: int | None, message: str, role: str | None = None) -> list[str]:
    """Emit a warning event; returns the message as a one-item list for ``warnings``."""
    emit(WarningEvent(node=node, step=step, message=message, role=role))
    return [message]


def call_warnings(node: str, step: int | None, call: RoleCall | None, role: str) -> list[str]:
    """The warning of a failed LLM call, emitted (empty list when the call went fine)."""
    if call is None or not call.warning:
        return []
    return warn(node, step, call.warning, role)


def filter_terms(step: PlanStep, deps: AgentDeps) -> set[str]:
    """Terms the step's filters already enforce (company, years, form, section title)."""
    from core.agent.roles.sentences import terms

    out = {"10", "k", "q", "form", "annual", "quarterly"}
    if step.section:  # every chunk of "Item 1A. Risk Factors" is about risk
        out |= terms(step.section)
    for doc_id in step.doc_ids:
        doc = deps.corpus.doc(doc_id)
        if doc:
            out |= terms(doc.company) | set(re.findall(r"(?:19|20)\d\d", doc.period))
    return out

