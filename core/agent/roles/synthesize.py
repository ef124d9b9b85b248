"""Synthesis role: the final multi-paragraph answer, every evidence sentence cited [n].

Evidence is numbered 1..N over the best attempt of each step; the LLM sees it
fenced as data and must cite only those numbers; ``citations.validate_citations``
then removes or flags any other marker. Offline rule: the extractive brief of
``brief.py`` (a banner, then per step the best line of each kept source with its
marker; a line already said is not repeated); for a clause that asks how one
finding bears on another, the offline juxtaposition of ``connect.py``; then what
could not be found, said plainly.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from core.agent.deps import AgentDeps, CorpusInfo, ask_llm
from core.agent.roles.brief import (  # noqa: F401 - BANNER re-exported
    BANNER,
    Quote,
    more_speakers,
    opening,
    part_quotes,
    rank_quotes,
    said,
)
from core.agent.roles.citations import best_records
from core.agent.roles.connect import LINK_NOTE, build_link, link_text
from core.agent.roles.speakers import company_names, is_demo, speaker
from core.agent.state import Evidence, StepRecord, StopReason

SYNTH_PROMPT = """You write the final answer of a research run over SEC filings and web sources.
Answer the question in several short paragraphs using ONLY the numbered evidence and findings.
- Cite every sentence that states a fact with the number(s) of its evidence, like [1] or [2][3];
  use only numbers that appear in the evidence list.
- Connect the parts of the question explicitly (e.g. how a later development relates to a risk
  the filing states), citing both sides.
- Say plainly what you could not find; never invent facts, figures or sources.
- Evidence whose source says "demo article" comes from a demo web snapshot written for the
  project, not live news: if you use it, say so ("a demo article says ..."), never as fact.
- A filing says "we": name the company whose filing it is instead.
- not_found: the parts of the question the evidence does not answer (empty list if none)."""

OFFLINE_NOTE = ("(Offline engine: extractive answer quoting the evidence; configure an LLM for an "
                "analytical synthesis across sources.)")


class SynthesisOutput(BaseModel):
    """The synthesiser's reply."""

    answer: str = Field(description="Multi-paragraph answer; every fact cites [n] markers.")
    not_found: list[str] = Field(default_factory=list, description="Parts not answered.")


def limit_note(stop: StopReason) -> str:
    """The sentence that says which bound ended or shaped the run."""
    if stop.code == "max_revisions":
        return f"Limit reached: {stop.message}."
    return f"Stopped early: {stop.message}."


FIGURES_NOTE = """- Computed figures are given below, read from the filings' reported facts and
  computed exactly: state each one FIRST, exactly as written (unit, rounding, period), with
  its [n] markers; never recompute, round differently or replace them."""


def synth_messages(question: str, records: list[StepRecord], numbered: dict[int, Evidence],
                   figures: str = "") -> list[tuple[str, str]]:
    """The synthesiser's messages; ``figures``: the run's computed figures with their [n]
    (authoritative findings, see ``figure_answer``)."""
    from core.llm.prompts import fence_evidence, with_safety

    findings = [{"id": f"finding-{r.step + 1}", "text": f"{r.sub_question} -> {r.finding}"}
                for r in records]
    blocks = [{"id": str(n), "text": ev.text, "source": ev.label, "url": ev.url,
               "date": ev.date} for n, ev in numbered.items()]
    user = (f"Question: {question}\n\nStep findings:\n"
            + (fence_evidence(findings) if findings else "(none)")
            + "\n\nNumbered evidence (cite as [n]):\n"
            + (fence_evidence(blocks) if blocks else "(no evidence was found)"))
    system = SYNTH_PROMPT
    if figures:
        system += "\n" + FIGURES_NOTE
        user += ("\n\nComputed figures (authoritative; state them first, as written):\n"
                 + fence_evidence([{"id": "computed-figures", "text": figures}]))
    return [("system", with_safety(system)), ("user", user)]


def _link_paragraph(rec: StepRecord, earlier: list[StepRecord], numbered: dict[int, Evidence],
                    corpus: CorpusInfo | None, question: str) -> str | None:
    """The offline juxtaposition for a connect clause (see ``connect.py``), or None."""
    n_of = {ev.id: n for n, ev in numbered.items()}
    link = build_link(rec, earlier, {ev.id: ev for ev in numbered.values()}, corpus, question)
    if link is None:
        return None
    return f"{rec.sub_question}\n{link_text(link, lambda i: f'[{n_of[i]}]')} {LINK_NOTE}"


DEMO_LEAD = ("From the demo web snapshot (articles written for this project's demos, not live "
             "news; quoted, not taken as fact):")


def _heading(sub_question: str) -> str:
    """A part's heading: its sub-question, ending with "?" or ":" (a heading, not a claim)."""
    q = sub_question.strip()
    return q if q.endswith(("?", ":")) else f"{q.rstrip('.')}:"


def _silent(rec: StepRecord, quotes: list[Quote], who, n_of: dict[str, int],
            text_of) -> list[str]:
    """Lines for the companies whose filing the step kept but that no quote speaks for: said,
    with the passage's citation, never left out unsaid."""
    have = {who(q.source) for q in quotes}
    out: dict[str, str] = {}
    for evidence_id in rec.evidence_ids:
        if evidence_id in n_of and text_of(evidence_id) and who(evidence_id) not in have:
            out.setdefault(who(evidence_id), f"- {who(evidence_id)}: I could not quote a whole "
                           f"sentence on this from its passages found [{n_of[evidence_id]}].")
    return list(out.values())


def _part(rec: StepRecord, quotes: list[Quote], who, demo, several: bool,
          silent: list[str]) -> list[str]:
    """The paragraphs of one answered part: its heading (several parts), the opening sentence
    saying what each company's best quote says, the other quotes each with its speaker, the
    companies no quote speaks for; demo web articles apart, labelled; a partly answered note
    after the list."""
    facts = [q for q in quotes if not demo(q.source)]
    shown = [q for q in quotes if demo(q.source)]
    out: list[str] = []
    lines = [_heading(rec.sub_question)] if several else []
    if facts:
        lead, led = opening(facts, who)
        lines += [lead, *(f"- {said(q, who(q.source))}" for q in facts if q not in led),
                  *silent]
    demo_lines = [DEMO_LEAD, *(f"- {said(q, who(q.source))}" for q in shown)] if shown else []
    if facts:
        out.append("\n".join(lines))
    else:  # only demo articles: the heading stands above them
        demo_lines = lines + demo_lines
    if demo_lines:
        out.append("\n".join(demo_lines))
    if rec.coverage == "partial":
        part = rec.sub_question.strip().rstrip(".")
        out.append(f"Partly answered: the evidence found covers only part of “{part}”"
                   + ("" if part.endswith("?") else "."))
    return out


def offline_answer(question: str, records: list[StepRecord], numbered: dict[int, Evidence],
                   stop: StopReason | None, corpus: CorpusInfo | None = None,
                   headings: bool | None = None) -> tuple[str, list[str]]:
    """The extractive brief (each part under its sub-question when there are several, or
    when ``headings``: the answer has other parts, e.g. figures, above it): per part, one
    opening sentence saying what each company's best quote says, then the other sources'
    quotes, each introduced by its speaker (the company, or the web source; demo snapshot
    articles apart and labelled as such); whole sentences only, each line once; a step whose
    evidence is weak is quoted under "Only weak evidence" and still listed as not found; a
    connect clause ("explain how X bears on Y") juxtaposes the earlier steps' findings; then
    the gaps, and the banner saying the brief is extractive."""
    n_of = {ev.id: n for n, ev in numbered.items()}
    by_id = {ev.id: ev for ev in numbered.values()}
    names = company_names(question, corpus)

    def who(evidence_id: str) -> str:
        return speaker(by_id[evidence_id], names).tag

    def demo(evidence_id: str) -> bool:
        return is_demo(by_id[evidence_id])

    def text_of(evidence_id: str) -> str | None:
        ev = by_id.get(evidence_id)
        return ev.text if ev is not None and ev.kind == "chunk" else None

    paragraphs: list[str] = []
    not_found: list[str] = []
    used: list[str] = []
    known = " ".join([*(d.company for d in corpus.documents), *names.values()]) \
        if corpus is not None else ""
    several = len(records) > 1 if headings is None else headings
    for k, rec in enumerate(records):
        link = _link_paragraph(rec, records[:k], numbered, corpus, question)
        if link:
            paragraphs.append(link)
            continue
        quotes = part_quotes(rec, n_of, used, text_of)
        if rec.coverage == "none" or not quotes:
            not_found.append(rec.sub_question)
        if not quotes:
            continue
        if rec.coverage == "none":
            body = "\n".join(f"- {said(q, who(q.source))}" for q in quotes)
            paragraphs.append(f"Only weak evidence — {rec.sub_question}\n{body}")
            continue
        quotes = rank_quotes(quotes, rec.sub_question, known)
        quotes += more_speakers(rec, quotes, text_of, n_of, who, used, known)
        paragraphs += _part(rec, quotes, who, demo, several,
                            _silent(rec, quotes, who, n_of, text_of))
    if not paragraphs:
        paragraphs.append("I could not find evidence in the filings or web sources to answer: "
                          f"{question}")
    elif not_found:
        paragraphs.append("I could not find usable evidence for: "
                          + "; ".join(q.rstrip(".?") for q in not_found) + ".")
    if stop is not None and stop.code != "completed":
        paragraphs.append(limit_note(stop))
    return "\n\n".join([*paragraphs, BANNER]), not_found


def synthesize(question: str, history: list[StepRecord], numbered: dict[int, Evidence],
               stop: StopReason | None, deps: AgentDeps, allow_llm: bool = True):
    """``(text, not_found, source, RoleCall | None)``."""
    records = best_records(history)
    call = None
    if allow_llm:
        call = ask_llm(deps, "synthesizer", SynthesisOutput,
                       synth_messages(question, records, numbered))
        if call.value is not None and call.value.answer.strip():
            text = call.value.answer.strip()
            if stop is not None and stop.code != "completed":
                text += f"\n\n{limit_note(stop)}"
            return text, list(call.value.not_found), "llm", call
    text, not_found = offline_answer(question, records, numbered, stop, deps.corpus)
    return text, not_found, "offline", call
