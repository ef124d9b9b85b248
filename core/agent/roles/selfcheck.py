"""Self-check of the answer (after Self-RAG's "is supported" critique): every claim sentence
is checked against the evidence its [n] markers cite.

Offline rule (also the fallback when the LLM check fails), per sentence:
- it must cite something ("uncited" otherwise);
- every figure it states must appear in the cited text (the evidence's text, citation
  label, title and date), compared as numbers, so "$3,912.0"
  matches "3,912.0" and a rounding at another scale ("$3.9 billion" for 3,912.0 million)
  counts; a year is a figure too;
- at least ``MIN_OVERLAP`` of its content terms (figures aside) must occur in the cited text.
With an LLM: ONE batched call over all sentences (counted in the run's usage as the
``selfcheck`` role), the evidence fenced as data.

Not claims, so not checked: part headings (ending with "?" or ":"), the brief's banner and
notes, "could not find" statements. An unsupported or uncited claim is removed from the
answer (``apply_checks``); its verdict is kept with ``kept=False``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel, Field

from core.agent.deps import AgentDeps, RoleCall, ask_llm
from core.agent.roles.figure_check import FigureKnowledge, check_figures
from core.agent.roles.sentences import terms
from core.agent.state import Evidence, SentenceCheck

MIN_OVERLAP = 0.5
MIN_WORDS = 4
SCALES = (1.0, 1e3, 1e-3, 1e6, 1e-6)
_MARK = re.compile(r"\[(\d+)\]")
_ISO_DATE = re.compile(r"\b(?:19|20)\d\d-[01]\d-[0-3]\d\b")
_NUMBER = re.compile(r"(?<![\w.])[-−(]?\$?\s?(\d[\d,]*(?:\.\d+)?)")
_SENT_END = re.compile(r"(?<=[.!?”\]])\s+(?=[\"“(]?[A-Z$])")
_NO_CLAIM = re.compile(r"could not|couldn't|not find|no evidence|not found|\bfound no\b|"
                       r"\bcannot name\b|offline engine|"
                       r"stopped early|limit reached|^partly answered\b|^note:",
                       re.IGNORECASE)

CHECK_PROMPT = """You check an answer sentence by sentence against the evidence each sentence
cites. For each numbered sentence say whether the cited evidence supports it: every figure
(with its unit and period) must appear in the cited text, and the claim must follow from it.
A sentence citing nothing is not supported. Reply with one verdict per sentence."""


class Verdict(BaseModel):
    """The LLM's verdict on one sentence."""

    index: int = Field(description="The sentence's number.")
    supported: bool = Field(description="True when the cited evidence supports the sentence.")
    reason: str = Field(default="", description="Short reason, naming a wrong figure if any.")


class SelfCheckOutput(BaseModel):
    """The self-check's reply: one verdict per sentence."""

    verdicts: list[Verdict] = Field(default_factory=list, description="One per sentence.")


@dataclass
class Claim:
    """A claim sentence of the answer, its markers, and where it sits."""

    text: str
    marks: list[int]


def claims(text: str) -> list[Claim]:
    """The answer's claim sentences (see the module docstring for what is not a claim)."""
    out: list[Claim] = []
    lines: list[str] = []
    for para in re.split(r"\n\s*\n", text):
        rows = [ln for ln in para.splitlines() if ln.strip()]
        if len(rows) > 1 and not _MARK.search(rows[0]):
            rows = rows[1:]  # the part's heading (its sub-question)
        lines.extend(rows)
    for line in lines:
        body = re.sub(r"^\s*[-*•]\s+", "", line).strip()
        if _NO_CLAIM.search(body) and not _MARK.search(body):
            continue  # a note or banner line
        for sentence in _SENT_END.split(body):
            sentence = sentence.strip()
            plain = _MARK.sub("", sentence).strip()
            if len(plain.split()) < MIN_WORDS or _NO_CLAIM.search(plain):
                continue
            ended = plain.endswith((".", "!", "”", '"'))
            if plain.endswith(("?", ":")) or (not _MARK.search(sentence) and not ended):
                continue  # a part heading
            out.append(Claim(sentence, [int(n) for n in _MARK.findall(sentence)]))
    return out


def _figures(text: str) -> list[tuple[float, int]]:
    """``(value, decimals)`` of every number in ``text``."""
    out = []
    for raw in _NUMBER.findall(text):
        whole, _, frac = raw.replace(",", "").partition(".")
        try:
            out.append((float(f"{whole}.{frac}" if frac else whole), len(frac)))
        except ValueError:
            continue
    return out


def figure_found(value: float, decimals: int, pool: list[float]) -> bool:
    """Whether ``value`` (written with ``decimals``) is a number of ``pool`` at some scale."""
    tol = 0.5 * 10 ** (-decimals) + 1e-9
    return any(abs(g * s - value) <= tol for g in pool for s in SCALES)


def offline_verdict(claim: Claim, numbered: dict[int, Evidence]) -> SentenceCheck:
    """The rule verdict for one claim (see the module docstring)."""
    cited = [" ".join(filter(None, [numbered[n].text, numbered[n].label, numbered[n].title,
                                    numbered[n].date]))
             for n in dict.fromkeys(claim.marks) if n in numbered]
    base = dict(sentence=claim.text, citations=claim.marks, judge="offline")
    if not cited:
        return SentenceCheck(**base, verdict="uncited", reason="cites no evidence of the run")
    source = "\n".join(cited)
    plain = _MARK.sub("", claim.text)
    pool = [v for v, _ in _figures(source)]
    # A period's end date in the claim ("ended 2024-11-29") is no figure to find.
    missing = [f"{v:g}" for v, d in _figures(_ISO_DATE.sub(" ", plain))
               if not figure_found(v, d, pool)]
    if missing:
        return SentenceCheck(**base, verdict="unsupported",
                             reason=f"figure(s) {', '.join(missing)} not in the cited text")
    words = {t for t in terms(re.sub(r"\d[\d,.]*", " ", plain)) if not t.isdigit()}
    share = len(words & terms(source)) / len(words) if words else 1.0
    if share < MIN_OVERLAP:
        return SentenceCheck(**base, verdict="unsupported",
                             reason=f"only {share:.0%} of its terms are in the cited text")
    return SentenceCheck(**base, verdict="supported",
                         reason=f"figures found; {share:.0%} of its terms in the cited text")


def check_messages(items: list[Claim], numbered: dict[int, Evidence]) -> list[tuple[str, str]]:
    from core.llm.prompts import fence_evidence, with_safety

    blocks = [{"id": str(k), "text": c.text, "cited": [
        {"n": n, "text": numbered[n].text} for n in dict.fromkeys(c.marks) if n in numbered]}
        for k, c in enumerate(items, start=1)]
    user = "Sentences with the evidence they cite:\n" + fence_evidence(blocks)
    return [("system", with_safety(CHECK_PROMPT)), ("user", user)]


def check_answer(text: str, numbered: dict[int, Evidence], deps: AgentDeps | None = None,
                 use_llm: bool = False, figures: FigureKnowledge | None = None
                 ) -> tuple[list[SentenceCheck], RoleCall | None]:
    """Verdicts for every claim of ``text``: one batched LLM call when ``use_llm`` and an LLM
    is at hand (a sentence the reply leaves out, or a failed call, gets the rule), else the
    offline rule; then the figure rules of ``figure_check`` over the run's ``figures``."""
    checks, call = _check(text, numbered, deps, use_llm)
    if figures is not None and figures.facts is None and deps is not None:
        figures.facts = deps.facts  # a member's figures are read from the run's facts
    return check_figures(checks, numbered, figures), call


def _check(text: str, numbered: dict[int, Evidence], deps: AgentDeps | None,
           use_llm: bool) -> tuple[list[SentenceCheck], RoleCall | None]:
    items = claims(text)
    rule = [offline_verdict(c, numbered) for c in items]
    if not (use_llm and deps is not None and deps.llm is not None) \
            or all(r.verdict == "uncited" for r in rule):
        return rule, None
    call = ask_llm(deps, "selfcheck", SelfCheckOutput, check_messages(items, numbered))
    if call.value is None:
        return rule, call
    by_index = {v.index: v for v in call.value.verdicts}
    out = []
    for k, (c, r) in enumerate(zip(items, rule, strict=True), start=1):
        v = by_index.get(k)
        if v is None or r.verdict == "uncited":
            out.append(r)
            continue
        out.append(SentenceCheck(sentence=c.text, citations=c.marks, judge="llm",
                                 verdict="supported" if v.supported else "unsupported",
                                 reason=v.reason))
    return out, call


def apply_checks(text: str, checks: list[SentenceCheck]) -> tuple[str, list[SentenceCheck]]:
    """``text`` without its unsupported and uncited claims; the checks with ``kept`` set."""
    out_checks = []
    for c in checks:
        if c.verdict == "supported":
            out_checks.append(c)
            continue
        text = text.replace(c.sentence, "", 1)
        out_checks.append(c.model_copy(update={"kept": False}))
    lines = [ln.rstrip() for ln in text.splitlines()]
    lines = [ln for ln in lines if re.sub(r"^\s*[-*•]\s*", "", ln).strip() or not ln.strip()]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines))
    return re.sub(r"[ \t]{2,}", " ", text).strip(), out_checks


def problem(checks: list[SentenceCheck], max_bad: float = 0.5) -> str | None:
    """Why an LLM answer must be re-asked: no supported claim, or too many bad ones."""
    if not checks:
        return "it states nothing checkable with a citation"
    bad = [c for c in checks if c.verdict != "supported"]
    if len(bad) == len(checks):
        return ("none of its sentences is supported by the evidence it cites "
                f"({bad[0].verdict}: {bad[0].reason})")
    if len(bad) / len(checks) > max_bad:
        return f"{len(bad)} of its {len(checks)} sentences are uncited or unsupported"
    return None
