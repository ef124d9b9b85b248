"""A plan kept inside the corpus and the question (what an LLM's plan goes through).

* ``constrain_plan``: real sections and documents, available tools, each filing step
  scoped to the companies its sub-question names, no repeated steps;
* ``company_lookups``: a figure step reads one company's filings, never none;
* ``clause_steps``: a clause no step's sub-question asks (its words kept only as another
  step's keywords, or left out) gets a text step of its own, planned as the offline rule
  plans a clause (tool by cue words, the filings of the companies it or the question names,
  the section by keyword); the notes say which part was added. The plan never stays silent
  on a part.
"""

from __future__ import annotations

from core.agent.deps import AgentDeps, match_section
from core.agent.plan_edit import figure_problems
from core.agent.roles.plan_rules import dedupe_steps, step_scope, unasked_clauses
from core.agent.roles.plan_tools import choose_section, choose_tool
from core.agent.roles.sentences import content_words
from core.agent.state import FIGURE_TOOLS, PlanStep


def clause_steps(steps: list[PlanStep], question: str, deps: AgentDeps, scope: list[str],
                 notes: list[str]) -> list[PlanStep]:
    """``steps`` with a text step for each clause of the question that no step's sub-question
    asks (a clause kept only as another step's keyword is not researched), as the offline
    rule plans it; said in the notes."""
    missing = unasked_clauses(question, steps, deps.corpus.documents)
    if not missing or len(steps) >= deps.settings.max_steps:
        return steps
    out = list(steps)
    for clause in missing[:max(0, deps.settings.max_steps - len(steps))]:
        tool, why_tool = choose_tool(clause, deps.corpus, deps.web_available)
        doc_ids: list[str] = []
        section, why = None, "web search has no sections"
        if tool == "filing_search":
            doc_ids, _ = step_scope(clause, question, deps.corpus, scope)
            section, why = choose_section(clause, deps.corpus.all_sections(doc_ids or scope
                                                                           or None))
        out.append(PlanStep(
            sub_question=clause, tool=tool, keywords=content_words(clause), section=section,
            doc_ids=doc_ids, justification=f"A part of the question no step of the plan asked "
            f"(added by the offline rule); {tool}: {why_tool}; section: {why}."))
        notes.append(f"added a step for the part \"{clause}\": no step of the plan asked it")
    return out


def company_lookups(steps: list[PlanStep], question: str, deps: AgentDeps, scope: list[str],
                    notes: list[str]) -> list[PlanStep]:
    """Every look-up and compute step reads one company's filings: a figure step with no
    filings takes those of the companies the question names (or the analyst's scope), one
    step per company, each naming it ("Look up Acme's operating cash flow for FY2024."); a
    step that depended on it depends on every copy."""
    from core.agent.roles.figure_plan import by_company, company_words, possessive
    from core.retrieval.scope import match_companies, resolve_scope

    docs = [d for d in deps.corpus.documents if not scope or d.doc_id in scope]
    named = resolve_scope(question, docs).doc_ids or ([d.doc_id for d in docs] if scope
                                                       else [])
    out: list[PlanStep] = []
    where: dict[int, list[int]] = {}
    for i, step in enumerate(steps):
        deps_on = sorted({n for d in step.depends_on for n in where.get(d, [])})
        if step.tool not in FIGURE_TOOLS or step.doc_ids or not named:
            where[i] = [len(out)]
            out.append(step.model_copy(update={"depends_on": deps_on}))
            continue
        groups = by_company(named, deps)
        where[i] = list(range(len(out), len(out) + len(groups)))
        for ids in groups:
            who = company_words(question, ids, deps)
            own = [d for d in docs if d.doc_id in ids]
            text = step.sub_question if match_companies(step.sub_question, own) else \
                f"{step.sub_question.rstrip(' .?')} ({possessive(who)} filings)."
            out.append(step.model_copy(update={"doc_ids": ids, "sub_question": text,
                                               "depends_on": deps_on}))
        notes.append(f"step {i + 1} named no company: read from the filings of "
                     + ", ".join(company_words(question, g, deps) for g in groups))
    return out


def constrain_plan(steps: list[PlanStep], deps: AgentDeps, scope: list[str],
                   question: str = "") -> tuple[list[PlanStep], list[str]]:
    """Keep the plan inside the corpus: real sections and documents, available tools,
    each filing step scoped to the companies its sub-question names, dependencies on
    earlier steps only, no repeated steps."""
    notes: list[str] = []
    known = {d.doc_id for d in deps.corpus.documents if not scope or d.doc_id in scope}
    out: list[PlanStep] = []
    for i, step in enumerate(steps, start=1):
        if not step.sub_question.strip():
            notes.append(f"step {i}: empty sub-question dropped")
            continue
        upd: dict = {}
        if step.tool == "web_search" and not deps.web_available:
            upd["tool"] = "filing_search"
            notes.append(f"step {i}: web search unavailable, switched to filing search")
        bad = [d for d in step.doc_ids if d not in known]
        if bad:
            upd["doc_ids"] = [d for d in step.doc_ids if d in known]
            notes.append(f"step {i}: unknown document(s) {', '.join(bad)} dropped")
        if step.tool in FIGURE_TOOLS:
            bad_fields = figure_problems(i, step)
            if bad_fields or not deps.corpus.documents:
                notes += [f"{p} (step dropped)" for p in bad_fields]
                continue
            upd["section"] = None
        if upd.get("tool", step.tool) in ("filing_search", "figure_lookup"):
            named, _ = step_scope(step.sub_question, question, deps.corpus, scope)
            have = upd.get("doc_ids", step.doc_ids)
            if named and not (have and set(have) <= set(named)) \
                    and refers_named(step.sub_question, deps):
                upd["doc_ids"] = named
                notes.append(f"step {i}: filings set to those of the companies it names")
        if step.section:
            doc_ids = upd.get("doc_ids", step.doc_ids)
            real = match_section(step.section, deps.corpus.all_sections(doc_ids or scope or None))
            if real != step.section:
                upd["section"] = real
                notes.append(f"step {i}: section '{step.section}' "
                             + (f"mapped to '{real}'" if real else "is not in the corpus; dropped"))
        earlier = [d for d in step.depends_on if 0 <= d < len(out)]
        if earlier != step.depends_on:
            upd["depends_on"] = earlier
        out.append(step.model_copy(update=upd))
    out, more = dedupe_steps(out)
    return out, notes + more


def refers_named(sub_question: str, deps: AgentDeps) -> bool:
    """True when the sub-question itself names a company of the corpus."""
    from core.retrieval.scope import match_companies

    return bool(match_companies(sub_question, deps.corpus.documents))
