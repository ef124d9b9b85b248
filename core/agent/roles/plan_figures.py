"""An LLM's plan made sure to read its figures from the facts (``ensure_figures``).

A plan the LLM wrote for a figure question with no look-up step gets the offline rule's
figure steps first; one for an analysis question (a comparison, a ranking, a yes/no of
figures) with no analyze step gets the rule's figure and analyze steps in place of its own
figure steps, so the verdict is computed from the figures, never the model's arithmetic.
"""

from __future__ import annotations

from core.agent.deps import AgentDeps
from core.agent.roles.figure_plan import figure_blocks, shift_steps, split_question
from core.agent.state import PlanStep


def ensure_figures(steps: list[PlanStep], question: str, deps: AgentDeps, scope: list[str],
                   notes: list[str]) -> list[PlanStep]:
    """An LLM plan for a figure question that has no look-up step gets the offline rule's
    figure steps first (figures are read from the facts, never left to the text)."""
    from core.agent.state import ANALYZE

    has_analyze = any(s.tool == ANALYZE for s in steps)
    if any(s.tool == "figure_lookup" for s in steps) and has_analyze:
        return steps
    split = split_question(question, deps, scope)
    if not split.figures:
        return steps
    analysis = any(p.analysis is not None for p in split.figures)
    if not analysis and any(s.tool == "figure_lookup" for s in steps):
        return steps
    if analysis and not has_analyze:
        # The comparison is computed by the rule's steps, never left to the model's own
        # arithmetic: the LLM's figure steps give way to them, its text steps stay.
        steps = _text_steps(steps)
        notes.append("the plan had no analyze step for the comparison the question asks for; "
                     "its figure steps were replaced by the offline rule's")
    blocks, _ = figure_blocks(split, question, deps, scope, [])
    figure = [s for key in sorted(blocks) for s in shift_steps(
        blocks[key], sum(len(blocks[k]) for k in blocks if k < key))]
    if not figure:
        return steps
    notes.append(f"the plan had no look-up for the figure the question asks for; added "
                 f"{len(figure)} figure step(s) from the offline rule")
    return figure + shift_steps(steps, len(figure))


def _text_steps(steps: list[PlanStep]) -> list[PlanStep]:
    """``steps`` without figure steps, ``depends_on`` renumbered (a dependency on a dropped
    step is dropped)."""
    keep = [i for i, st in enumerate(steps) if not st.is_figure]
    where = {old: new for new, old in enumerate(keep)}
    return [steps[i].model_copy(update={"depends_on": [where[d] for d in steps[i].depends_on
                                                       if d in where]}) for i in keep]
