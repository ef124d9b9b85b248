"""Figure planning: a question that asks for a figure becomes look-up and compute steps.

``core.figures.question.parse_figure_question`` reads the question (metric, periods, the
aggregate asked, unit and rounding, a definition the question gives); the clauses of the
question (``plan_rules.split_clauses``) are then sorted:

* a clause that asks for the figure (it parses on its own), a definition or an instruction
  on how to state it ("... is defined as ...", "round to two decimal places", "answer in
  USD millions"), context on where to look or who asks ("when referencing the income
  statement", ``SOURCE_WORDS``) and a clause asking how the figure changed (when the
  question asks for a change, growth or average, or for the figure beside earlier
  periods) are covered by the figure steps;
* a clause that asks why, or for anything else, stays a text step, as before.

The figure becomes one ``figure_lookup`` step per metric (its periods, every filing of the
company named: the look-up prefers the period's own) and, when something is derived (a
change, a ratio, an average, a formula), a ``compute`` step over them. A lone look-up of
one period states the figure itself, in the unit asked. Figures need facts: a corpus whose
filings were ingested before facts existed plans text steps, as before, and the note says
how to add them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.agent.deps import AgentDeps
from core.agent.roles.figure_catalog import formula_inputs, metric_label
from core.agent.roles.plan_rules import split_clauses
from core.agent.state import PlanStep
from core.analysis.question import AnalysisPlan
from core.figures.model import FigureRequest
from core.retrieval.scope import match_companies

WHY = re.compile(
    r"\b(?:why|explain\w*|describ\w*|drivers?|drove|driven|reasons?|caus\w*|discuss\w*|"
    r"contribut\w*|factors?|attribut(?:e|es|ed)\b|risks?|strateg\w*|outlook|guidance|impact\w*|"
    r"affect\w*|what\s+led)\b", re.IGNORECASE)
INSTRUCTION = re.compile(
    r"\bdefined\s+as\b|\bis\s+calculated\s+as\b|^\s*(?:please\s+)?(?:round|express|answer|"
    r"give|respond|provide|use|using|rely|relying|base|based|show|calculate|compute|report|"
    r"state|assume|treat|define)\b", re.IGNORECASE)
CHANGE = re.compile(
    r"\b(?:chang\w*|grow\w*|grew|growth|increas\w*|decreas\w*|declin\w*|rise|rose|fell|"
    r"fall\w*|compar\w*|differ\w*|year[- ]over[- ]year|yoy|cagr|average|up|down)\b",
    re.IGNORECASE)
DERIVED = ("average", "change", "pct_change", "cagr", "formula")
SOURCE_WORDS = """statement statements income balance sheet cash flow financial position operations
comprehensive equity stockholders shareholders filing report annual quarterly form details
information data figures numbers shown stated given presented reported provided resource
referencing reference primarily mainly only solely using use rely relying based basing judgment
conclusion drawing perspective investment investor analyst banker assume assuming role question
answer response respond following help calculate compute metric want please notes"""
"""Words about where an answer comes from and who asks: a clause made of them ("When
primarily referencing the income statement", "You are an investment analyst ...") is
context for the figure, not a question of its own."""


@dataclass
class FigurePart:
    """One figure the question asks for, and the clauses it answers."""

    request: FigureRequest
    clauses: list[int] = field(default_factory=list)
    text: str = ""
    """The words the request was read from (its steps ask them again when they run)."""
    analysis: AnalysisPlan | None = None
    """An analysis of several figures (compare, rank, a verdict), planned by
    ``analysis_plan``; ``request`` is then its first figure."""


@dataclass
class FigureSplit:
    """The question sorted into figures and text clauses."""

    clauses: list[str]
    figures: list[FigurePart] = field(default_factory=list)
    text: list[int] = field(default_factory=list)
    """Clauses that still need a text step (by index into ``clauses``)."""
    notes: list[str] = field(default_factory=list)

    @property
    def figure_only(self) -> bool:
        return bool(self.figures) and not self.text


def is_context(clause: str, deps: AgentDeps) -> bool:
    """A clause that only says which statements to use or who asks (see ``SOURCE_WORDS``);
    the company's and periods' words aside, at most one word of its own."""
    from core.agent.roles.sentences import terms

    names = " ".join(d.company for d in deps.corpus.documents)
    own = terms(clause) - terms(SOURCE_WORDS) - terms(names) - {"us", "our", "we", "you"}
    own = {t for t in own if not re.fullmatch(r"(?:fy)?\d+", t)}
    return bool(terms(clause)) and len(own) <= 1 and not WHY.search(clause)


def asks_figures(clause: str, deps: AgentDeps) -> bool:
    """Whether a clause of an analysis question asks something of its figures: it names a
    measure, a change, a comparison or ranking, a number, or is an instruction or context;
    else ("and what happened in Taiwan?") it is a text question of its own."""
    from core.analysis.words import COMPARATIVE, RANK, SUPERLATIVE, comparative_direction
    from core.metrics import find_metrics

    return bool(find_metrics(clause) or CHANGE.search(clause) or COMPARATIVE.search(clause)
                or RANK.search(clause) or SUPERLATIVE.search(clause)
                or comparative_direction(clause) or re.search(r"\d", clause)
                or INSTRUCTION.search(clause) or is_context(clause, deps))


def facts_ready(deps: AgentDeps, doc_ids: list[str]) -> bool:
    """Whether facts were extracted for some of ``doc_ids`` (all documents when empty)."""
    counts = deps.corpus.fact_counts
    if deps.facts is None or counts is None:
        return False
    ids = doc_ids or [d.doc_id for d in deps.corpus.documents]
    return any(d in counts for d in ids)


def parse_request(text: str, deps: AgentDeps, scope: list[str]) -> FigureRequest | None:
    from core.figures.question import parse_figure_question

    docs = [d for d in deps.corpus.documents if not scope or d.doc_id in scope]
    return parse_figure_question(text, docs, deps.facts)


def split_question(question: str, deps: AgentDeps, scope: list[str]) -> FigureSplit:
    """The question's figures and text clauses (see the module docstring)."""
    clauses = split_clauses(question) or [question.strip()]
    out = FigureSplit(clauses=clauses, text=list(range(len(clauses))))
    if deps.facts is None or deps.corpus.fact_counts is None:
        return out
    from core.agent.roles.analysis_plan import analysis_parts, plan_doc_ids

    analyses = [a for a in analysis_parts(question, deps, scope) if a.requests]
    if analyses and facts_ready(deps, plan_doc_ids(analyses[0])):
        why = [i for i, c in enumerate(clauses) if WHY.search(c) or (
            len(clauses) > 1 and not asks_figures(c, deps))]
        covered = [i for i in range(len(clauses)) if i not in why] or [0]
        for k, analysis in enumerate(analyses):  # one per measure asked of several companies
            text = question if k == 0 else f"{question} ({analysis.spec.name})"
            out.figures.append(FigurePart(analysis.requests[0], covered, text, analysis))
        out.text = why
        return out
    whole = parse_request(question, deps, scope)
    instructions = [i for i, c in enumerate(clauses)
                    if (INSTRUCTION.search(c) or is_context(c, deps)) and not WHY.search(c)]
    own = {i: r for i, c in enumerate(clauses) if i not in instructions
           for r in [parse_request(c, deps, scope)] if r is not None} if len(clauses) > 1 \
        else ({0: whole} if whole is not None else {})
    if not own and whole is None:  # the figure is asked inside a definition-like clause
        own = {i: r for i in instructions for r in [parse_request(clauses[i], deps, scope)]
               if r is not None}
        instructions = [i for i in instructions if i not in own]
    if whole is None and not own:
        return out
    if not facts_ready(deps, scope):
        out.notes.append("the question asks for a figure, but no facts were extracted from "
                         "these filings (ingested before facts existed): searched the text "
                         "instead; `python -m core facts --rebuild` reads them")
        return out
    metrics = {r.metric or r.name for r in own.values()}
    if len(metrics) > 1 or whole is None:  # each figure clause its own, with the instructions
        extra = " ".join(clauses[i] for i in instructions)
        for i in sorted(own):
            text = f"{clauses[i]} {extra}".strip()
            request = parse_request(text, deps, scope)
            out.figures.append(FigurePart(request or own[i], [i],
                                          text if request is not None else clauses[i]))
        covered = set(own) | set(instructions)
    else:
        covered = set(own) | set(instructions)
        if whole.aggregate in DERIVED or len(whole.periods) > 1:
            covered |= {i for i, c in enumerate(clauses) if CHANGE.search(c) and not WHY.search(c)}
        if not own:
            covered |= {i for i, c in enumerate(clauses) if not WHY.search(c)}
        out.figures.append(FigurePart(whole, sorted(covered), question))
    out.text = [i for i in range(len(clauses)) if i not in covered or WHY.search(clauses[i])]
    return out


def figure_doc_ids(part: FigurePart, split: FigureSplit, question: str, deps: AgentDeps,
                   scope: list[str]) -> tuple[list[str], str]:
    """The filings a figure is read from: every filing of the company its clauses name (or
    the question names), within the analyst's scope; the look-up prefers the period's own
    filing and says when another one's figures are used. Else the analyst's scope, else
    the one company of the corpus."""
    docs = [d for d in deps.corpus.documents if not scope or d.doc_id in scope]
    text = " ".join(split.clauses[i] for i in part.clauses) or question
    for words in (text, question):
        named = match_companies(words, docs)
        if named:
            ids = list(dict.fromkeys(i for _, found in named.values() for i in found))
            return ids, f"{', '.join(shown for shown, _ in named.values())}'s filings"
    if part.request.doc_ids:
        return list(part.request.doc_ids), "the filings the question names"
    companies = {d.company for d in docs}
    if scope or len(companies) == 1:
        return [d.doc_id for d in docs], "the filings in scope"
    return [], "no company in the corpus is named"


def figure_steps(part: FigurePart, split: FigureSplit, question: str, deps: AgentDeps,
                 scope: list[str], first: int) -> tuple[list[PlanStep], str | None]:
    """Look-up steps (one per metric) and, when derived, a compute step; ``first`` is the
    plan index of the first step (for ``depends_on``). ``(steps, note)``. Each company's
    figure is its own: filings of several companies get a look-up (and compute) per
    company, each naming it ("Look up Acme's revenue for FY2024.")."""
    if part.analysis is not None:
        from core.agent.roles.analysis_plan import analysis_steps

        return analysis_steps(part.analysis, part.text or question, first), None
    doc_ids, why_docs = figure_doc_ids(part, split, question, deps, scope)
    if not doc_ids:
        return [], (f"the figure ({part.request.name}) names no company of the corpus; "
                    "searched the text instead")
    steps: list[PlanStep] = []
    for ids in by_company(doc_ids, deps):
        steps += _company_steps(part, question, deps, ids, why_docs, first + len(steps))
    return steps, None


def by_company(doc_ids: list[str], deps: AgentDeps) -> list[list[str]]:
    """``doc_ids`` grouped by the company that filed them, in order."""
    company = {d.doc_id: d.company for d in deps.corpus.documents}
    groups: dict[str, list[str]] = {}
    for i in doc_ids:
        groups.setdefault(company.get(i) or i, []).append(i)
    return list(groups.values())


def _company_steps(part: FigurePart, question: str, deps: AgentDeps, doc_ids: list[str],
                   why_docs: str, first: int) -> list[PlanStep]:
    request = part.request
    who = company_words(question, doc_ids, deps)
    refs = formula_inputs(request.formula)
    periods: dict[tuple[str, str | None], list[str]] = {}
    for metric, period, member in refs:
        periods.setdefault((metric, member), [])
        if period not in periods[metric, member]:
            periods[metric, member].append(period)
    text = part.text or question
    named = bool(match_companies(text, [d for d in deps.corpus.documents
                                        if d.doc_id in doc_ids]))
    single = len(refs) == 1 and request.aggregate == "value"
    if not named:  # the step names its company, as the question did not
        text = f"What was {possessive(who)} {request.name} in {refs[0][1]}?" if single else \
            f"For {who}: {text}"
    if single:  # "X in FY2023 and how it changed from FY2022": the earlier periods beside
        periods[refs[0][0], refs[0][2]] = sorted(set(request.periods) | {refs[0][1]})
    steps = []
    for (metric, member), wanted in periods.items():
        label = metric_label(metric) + (f" of {member}" if member else "")
        asked = [fiscal_label(w) for w in wanted] if request.fiscal_quarters else wanted
        steps.append(PlanStep(
            sub_question=text if single else
            f"Look up {possessive(who)} {label} for {', '.join(asked)}.",
            justification=f"A figure the question asks for ({request.name}): its reported "
                          f"{label} for {', '.join(wanted)} from the filings' facts (no text "
                          f"search, no LLM); filings: {why_docs}.",
            tool="figure_lookup", keywords=[label, *wanted], doc_ids=doc_ids, metric=metric,
            periods=sorted(wanted), unit=request.unit if single else None,
            decimals=request.decimals if single else None, member=member))
    if single:
        return steps
    steps.append(PlanStep(
        sub_question=text,
        justification=f"Computes {request.name} = {request.formula} from the look-ups "
                      f"({request.aggregate}; formula from the {request.formula_source}).",
        tool="compute", keywords=[request.name], doc_ids=doc_ids, formula=request.formula,
        unit=request.unit, decimals=request.decimals,
        depends_on=list(range(first, first + len(steps)))))
    return steps


def company_words(question: str, doc_ids: list[str], deps: AgentDeps) -> str:
    """The company of ``doc_ids`` as the question names it ('NVIDIA', 'amd'), else as an
    analyst writes the registry's name ('Advanced Micro Devices')."""
    from core.analysis.subjects import short_name

    who = named_company(question, doc_ids, deps)
    return who if match_companies(question, deps.corpus.documents).get(who) else \
        short_name(who)


def possessive(name: str) -> str:
    """"NVIDIA's", "Advanced Micro Devices'"."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def fiscal_label(period: str) -> str:
    """'FY2023-Q1' as a question names a fiscal quarter ('Q1 FY2023'); years as they are."""
    return f"{period[-2:]} {period[:6]}" if "-Q" in period else period


def named_company(question: str, doc_ids: list[str], deps: AgentDeps) -> str:
    """The company as the question names it ('NVIDIA'), else as the registry does."""
    docs = [d for d in deps.corpus.documents if d.doc_id in doc_ids] or deps.corpus.documents
    for raw, (_, ids) in match_companies(question, docs).items():
        if set(ids) & set(doc_ids):
            return raw
    return next((d.company for d in docs if d.doc_id in doc_ids and d.company != "unknown"),
                "The company")


def figure_blocks(split: FigureSplit, question: str, deps: AgentDeps, scope: list[str],
                  notes: list[str]) -> tuple[dict[int, list[PlanStep]], list[int]]:
    """``({clause index: the figure steps planned at it}, clauses needing a text step)``;
    a figure that cannot be planned (no company named) leaves its clauses to text steps.
    Steps' ``depends_on`` are relative to the block (``shift_steps`` places them)."""
    blocks: dict[int, list[PlanStep]] = {}
    text = set(split.text)
    for part in split.figures:
        steps, note = figure_steps(part, split, question, deps, scope, 0)
        if note:
            notes.append(note)
        if steps:
            block = blocks.setdefault(part.clauses[0] if part.clauses else 0, [])
            block.extend(shift_steps(steps, len(block)))
        else:
            text |= set(part.clauses)
    return blocks, sorted(text)


def shift_steps(steps: list[PlanStep], offset: int) -> list[PlanStep]:
    """``steps`` with their ``depends_on`` moved by ``offset``."""
    if not offset:
        return list(steps)
    return [s.model_copy(update={"depends_on": [d + offset for d in s.depends_on]})
            for s in steps]
