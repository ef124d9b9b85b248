"""The final answer: synthesis, one re-ask of a bad LLM answer, self-check, citations.

1. With an LLM, the synthesiser writes the answer; its citations are validated and
   every claim is self-checked (``selfcheck.py``, one batched LLM call). An answer
   that cites nothing, or whose claims are mostly uncited or unsupported
   (``selfcheck.problem``), is asked again ONCE with the reason; if the second answer
   fails too, the extractive brief (``synthesize.offline_answer``) replaces it, with
   a warning. The evidence is never dropped: the brief cites it.
2. Offline (or after the fallback) the brief is checked by the offline rule.
3. Unsupported and uncited claims are removed from the text (``apply_checks``); the
   verdict of every claim stays on the ``Answer`` (``checks``), and the evidence is
   renumbered 1..M in order of first citation.

Figures (``figure_answer``): offline, the answer opens with the figures the run computed
(the figure sentence, then the work, each input cited), then the brief of the text steps.
With an LLM the figures are given to the synthesiser as authoritative findings and the
look-up and compute tools are offered to it first (``figure_tools``); an answer that does
not open with the figure gets the figure sentence put first. Either way the self-check
applies the figure rules (``figure_check``), and ``Answer.figures`` lists the figures
stated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.agent.common import call_usage
from core.agent.deps import AgentDeps, CorpusInfo, RoleCall, ask_llm
from core.agent.roles.analysis_check import verdict_problem
from core.agent.roles.citations import best_records, number_evidence, renumber, validate_citations
from core.agent.roles.figure_answer import drop_empty_leads, figure_block, stated_figures
from core.agent.roles.figure_check import FigureKnowledge, agrees, amounts
from core.agent.roles.selfcheck import apply_checks, check_answer, problem
from core.agent.roles.synthesize import (
    SynthesisOutput,
    limit_note,
    offline_answer,
    synth_messages,
)
from core.agent.state import (
    Answer,
    Evidence,
    RoleUsage,
    SentenceCheck,
    StepRecord,
    StopReason,
    total_usage,
)

RETRY_PROMPT = ("Your answer was rejected: {why}. Write it again from the numbered evidence: "
                "cite every factual sentence with the [n] of the evidence that states it, quote "
                "figures exactly as the evidence gives them (unit and period included), and "
                "leave out anything the evidence does not support.")


@dataclass
class Final:
    """The checked answer and what it cost."""

    answer: Answer
    warnings: list[str] = field(default_factory=list)
    usage: dict[str, RoleUsage] = field(default_factory=dict)
    call: RoleCall | None = None
    """For the AnswerReady event: the usage of every call the answer made (synthesiser,
    re-ask, self-check, figure tools), so the trace's per-node count adds up to the run's."""
    tool_figures: list = field(default_factory=list)  # FigureResults from LLM tool calls


def _add(usage: dict[str, RoleUsage], role: str, call: RoleCall | None) -> None:
    spent = call_usage(call)  # None when nothing was called, failed or served from the cache
    if spent is not None:
        usage[role] = usage[role] + spent if role in usage else spent


def _offer_tools(question: str, records: list[StepRecord], numbered: dict[int, Evidence],
                 figures: str, deps: AgentDeps, out: Final, know: FigureKnowledge) -> str:
    """The look-up and compute tools offered first (``figure_tools``); ``numbered`` gains
    the evidence their facts add. Returns the tools' figures for the answer call."""
    from core.agent.roles.figure_tools import ROLE, offer_figure_tools, tool_block

    tools = offer_figure_tools(question, records, numbered,
                               synth_messages(question, records, numbered, figures), deps)
    if tools.usage.calls or tools.usage.fallbacks:
        out.usage[ROLE] = out.usage[ROLE] + tools.usage if ROLE in out.usage else tools.usage
    if tools.warning:
        out.warnings.append(tools.warning)
    numbered.update(tools.numbered)
    know.results += tools.results
    out.tool_figures = list(tools.results)
    return tool_block(tools, question, deps) if tools.results else ""


def _lead_with_figure(draft: str, records: list[StepRecord], numbered: dict[int, Evidence],
                      question: str, deps: AgentDeps) -> str:
    """``draft`` opening with the run's first figure: its sentence is put first when the
    draft's first sentence does not state it."""
    from core.agent.roles.figure_answer import citer, company_of
    from core.figures.statement import figure_sentence

    analysed = [r for r in records if r.analysis is not None and r.analysis.decided
                and r.analysis.spec.kind in ("compare", "rank", "verdict", "criterion", "pick")]
    if analysed:
        return _lead_with_analysis(draft, analysed[0].analysis, numbered)
    ok = [r for _, r in stated_figures(records) if r.ok]
    if not ok:
        return draft
    first = re.split(r"(?<=[.!?])\s+", draft.strip(), maxsplit=1)[0]
    pool = [ok[0].value or 0.0] + [v for v, _ in amounts(ok[0].display)]
    if any(agrees(v, d, pool) for v, d in amounts(re.sub(r"\[\d+\]", "", first))):
        return draft
    lead = figure_sentence(ok[0], company_of(ok[0], question, deps), citer(numbered))
    return f"{lead}\n\n{draft}"


def _lead_with_analysis(draft: str, result, numbered: dict[int, Evidence]) -> str:
    """``draft`` opening with the analysis's verdict: its lead goes first when the draft's
    first sentence does not give the verdict (the winner's name, or the same yes / no)."""
    from core.agent.roles.analysis_answer import analysis_paragraph
    from core.agent.roles.figure_answer import citer

    first = re.split(r"(?<=[.!?])\s+", draft.strip(), maxsplit=1)[0]
    yes_no = result.spec.kind == "verdict" or bool(result.spec.expect)
    said = first if not yes_no else first.split()[0].strip(".,!") if first else ""
    if result.verdict and result.verdict.split(",")[0].strip().lower() in said.lower():
        return draft
    lead = analysis_paragraph(result, citer(numbered)).splitlines()[0]
    return f"{lead}\n\n{draft}"


def _llm_answer(question: str, records: list[StepRecord], numbered: dict[int, Evidence],
                deps: AgentDeps, out: Final, know: FigureKnowledge
                ) -> tuple[str, list[str], list[SentenceCheck], list[str]] | None:
    """The LLM's answer with its checks and the markers it invented, re-asked once with the
    reason; None: use the brief."""
    figures = figure_block(records, numbered, question, deps).text
    if figures:
        figures = "\n\n".join(x for x in [figures, _offer_tools(
            question, records, numbered, figures, deps, out, know)] if x)
    messages = synth_messages(question, records, numbered, figures)
    for attempt in (1, 2):
        call = ask_llm(deps, "synthesizer", SynthesisOutput, messages)
        out.call = call
        _add(out.usage, "synthesizer", call)
        if call.warning:
            out.warnings.append(call.warning)
        if call.value is None or not call.value.answer.strip():
            return None
        validated = validate_citations(call.value.answer.strip(), numbered)
        draft = _lead_with_figure(validated.text, records, numbered, question, deps) \
            if figures else validated.text
        checks, check_call = check_answer(draft, numbered, deps, use_llm=True, figures=know)
        _add(out.usage, "selfcheck", check_call)
        if check_call is not None and check_call.warning:
            out.warnings.append(check_call.warning)
        why = verdict_problem(draft, know.analyses) or problem(checks)
        if why is None:
            return draft, list(call.value.not_found), checks, validated.invalid
        if attempt == 1:
            out.warnings.append(f"synthesis: the LLM answer was rejected ({why}); asked again "
                                "with the reason")
            messages = [*messages, ("assistant", call.value.answer),
                        ("user", RETRY_PROMPT.format(why=why))]
        else:
            out.warnings.append(f"synthesis: the LLM answer was rejected again ({why}); "
                                "replaced by the extractive brief")
    return None


def knowledge(records: list[StepRecord]) -> FigureKnowledge:
    """The run's figures for the self-check: every figure step's result, and the metric
    each figure step's weak text evidence was searched for."""
    text_ids = {i for r in records if r.figure is None for i in r.evidence_ids}
    step_metric = {}
    for r in records:
        if r.figure is None or not r.figure.request.metric:
            continue
        facts = {i.fact.chunk_id for i in r.figure.inputs if i.fact is not None}
        step_metric.update({e: r.figure.request.metric for e in r.evidence_ids
                            if e not in facts and e not in text_ids})
    analyses = [r.analysis for r in records if r.analysis is not None]
    return FigureKnowledge(results=[r.figure for r in records if r.figure is not None],
                           step_metric=step_metric, analyses=analyses)


def _offline_text(question: str, records: list[StepRecord], numbered: dict[int, Evidence],
                  stop: StopReason | None, deps: AgentDeps, corpus: CorpusInfo
                  ) -> tuple[str, list[str], list]:
    """The figures found first (``figure_block``), then the brief of the text steps, then
    the figures not found (first when there is no text step)."""
    block = figure_block(records, numbered, question, deps)
    text_records = [r for r in records if r.figure is None and r.analysis is None]
    if not block.figures and not block.analyses:
        text, not_found = offline_answer(question, records, numbered, stop, corpus)
        return text, not_found, []
    parts, not_found = list(block.lead), list(block.not_found)
    if text_records:
        brief, more = offline_answer(question, text_records, numbered, stop, corpus,
                                     headings=True)
        parts += [brief, *block.tail]
        not_found += more
    else:
        parts += block.tail
        if stop is not None and stop.code != "completed":
            parts.append(limit_note(stop))
    return "\n\n".join(parts), not_found, block.figures


def _renumber_checks(checks: list[SentenceCheck], old: dict[int, Evidence],
                     new: dict[int, Evidence]) -> list[SentenceCheck]:
    new_of_id = {ev.id: n for n, ev in new.items()}
    mapping = {n: new_of_id.get(ev.id) for n, ev in old.items()}
    def sub(m: re.Match) -> str:
        n = mapping.get(int(m.group(1)))
        return f"[{n}]" if n else ""

    out = []
    for c in checks:
        if not c.kept:  # removed: it keeps the numbers of the full evidence list
            out.append(c)
            continue
        out.append(c.model_copy(update={
            "sentence": re.sub(r"\[(\d+)\]", sub, c.sentence).strip(),
            "citations": [mapping[n] for n in c.citations if mapping.get(n)]}))
    return out


EMPTIED = ("I could not state an answer the cited evidence supports: the self-check removed "
           "every sentence drafted; each step's findings are in the research trace.")


def final_answer(question: str, history: list[StepRecord], evidence: dict[str, Evidence],
                 stop: StopReason | None, deps: AgentDeps,
                 corpus: CorpusInfo | None = None) -> Final:
    """The checked, cited answer of a run (see the module docstring)."""
    records = best_records(history)
    numbered = number_evidence(records, evidence)
    out = Final(Answer(text=""))
    know = knowledge(records)
    got = _llm_answer(question, records, numbered, deps, out, know) \
        if deps.llm is not None else None
    invented: list[str] = []
    if got is not None:
        text, not_found, checks, invented = got
        source = "llm"
        figures = [r for _, r in stated_figures(records)] + out.tool_figures
        if stop is not None and stop.code != "completed":
            text += f"\n\n{limit_note(stop)}"
    else:
        text, not_found, figures = _offline_text(question, records, numbered, stop, deps,
                                                 corpus or deps.corpus)
        source = "offline"
        checks = None
    first = validate_citations(text, numbered)
    if checks is None:
        checks, _ = check_answer(first.text, numbered, figures=know)
    kept_text, checks = apply_checks(first.text, checks)
    kept_text = drop_empty_leads(kept_text)
    removed = [c for c in checks if not c.kept]
    if removed and not kept_text.strip():  # said, never a blank answer
        kept_text = EMPTIED
    if removed:
        out.warnings.append(f"self-check: removed {len(removed)} sentence(s) the cited evidence "
                            "does not support")
    check, kept = renumber(validate_citations(kept_text, numbered), numbered)
    out.answer = Answer(text=check.text, citations=check.citations,
                        invalid_markers=list(dict.fromkeys(invented + first.invalid)),
                        not_found=not_found,
                        evidence=list(kept.values()), source=source,
                        checks=_renumber_checks(checks, numbered, kept), figures=figures,
                        analyses=[r.analysis for r in records if r.analysis is not None])
    if out.usage:
        out.call = RoleCall(None, total_usage(out.usage))
    return out
