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
from core.agent.roles.brief import BANNER, answer_first, part_lines  # noqa: F401 - BANNER re-exported
from core.agent.roles.citations import best_records
from core.agent.roles.connect import LINK_NOTE, build_link, link_text
from core.agent.state import Evidence, StepRecord, StopReason

SYNTH_PROMPT = """You write the final answer of a research run over SEC filings and web sources.
Answer the question in several short paragraphs using ONLY the numbered evidence and findings.
- Cite every sentence that states a fact with the number(s) of its evidence, like [1] or [2][3];
  use only numbers that appear in the evidence list.
- Connect the parts of the question explicitly (e.g. how a later development relates to a risk
  the filing states), citing both sides.
- Say plainly what you could not find; never invent facts, figures or sources.
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


def offline_answer(question: str, records: list[StepRecord], numbered: dict[int, Evidence],
                   stop: StopReason | None, corpus: CorpusInfo | None = None
                   ) -> tuple[str, list[str]]:
    """The extractive brief: per step, the line that answers it first, then the best line of
    each other kept source, each with its [n] marker (each line once; a step whose evidence is
    weak is quoted under "Only weak evidence" and still listed as not found); a connect clause
    ("explain how X bears on Y") juxtaposes the earlier steps' findings; then the gaps, and the
    banner saying the brief is extractive."""
    n_of = {ev.id: n for n, ev in numbered.items()}
    paragraphs: list[str] = []
    not_found: list[str] = []
    used: list[str] = []
    names = " ".join(d.company for d in corpus.documents) if corpus is not None else ""
    for k, rec in enumerate(records):
        link = _link_paragraph(rec, records[:k], numbered, corpus, question)
        if link:
            paragraphs.append(link)
            continue
        lines = part_lines(rec, n_of, used)
        if rec.coverage == "none" or not lines:
            not_found.append(rec.sub_question)
        if not lines:
            continue
        if rec.coverage == "none":
            body = "\n".join(f"- {line}" for line in lines)
            paragraphs.append(f"Only weak evidence — {rec.sub_question}\n{body}")
            continue
        first, *rest = answer_first(lines, rec.sub_question, names)
        body = "\n".join([first, *(f"- {line}" for line in rest)])
        if rec.coverage == "partial":
            part = rec.sub_question.rstrip(".?")
            body += f"\n- Note: partly answered by the evidence found ({part})."
        paragraphs.append(body)
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
