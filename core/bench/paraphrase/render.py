"""Wording a case: a template's placeholders filled in the forms of the case's slots."""

from __future__ import annotations

import random

from core.bench.paraphrase.corpus import Filer
from core.bench.paraphrase.gold import Spec
from core.bench.paraphrase.grammar import (
    Grammar,
    Template,
    join_names,
    measure_form,
    period_words,
    typo,
)


def company_form(filer: Filer, form: str, rng: random.Random) -> str:
    """``filer`` as written in the company form ``form`` (grammar.COMPANY_FORMS)."""
    if form == "registry":
        return filer.name
    if form == "ticker-upper":
        return filer.ticker.upper()
    if form == "ticker-lower":
        return filer.ticker.lower()
    if form == "name-lower":
        return filer.short.lower()
    if form == "typo":
        return typo(filer.short, rng)
    return filer.short


def _threshold(value: float, percent: bool, form: str) -> str:
    def num(x: float) -> str:
        return f"{x:g}"

    if percent:
        return f"{num(value)}%" if form == "standard" else f"{num(value)} percent"
    if abs(value) >= 1000:
        b = num(value / 1000)
        return f"${b} billion" if form == "standard" else f"${b}bn"
    return f"${num(value)} million" if form == "standard" else f"${num(value)}m"


def _direction_word(grammar: Grammar, spec: Spec, t: Template, rng: random.Random) -> str:
    judged = bool(spec.measures) and spec.measures[0].better == "higher"
    if t.kind == "rank":
        words = grammar.wording["rank"]
        options = list(words[spec.direction])
        if judged:
            options += words[f"{spec.direction}_judged"]
        return rng.choice(options)
    if t.kind == "compare":
        words = grammar.wording["compare"]
        options = list(words[spec.direction])
        if judged:
            options += words[f"{spec.direction}_judged"]
        return rng.choice(options)
    if t.kind == "growth_compare":
        return rng.choice(grammar.wording["growth"][spec.direction])
    if t.kind in ("largest_member", "balance_line"):
        return rng.choice(grammar.wording["largest"][spec.direction])
    return ""


def render(t: Template, spec: Spec, slots: dict[str, str], grammar: Grammar,
           rng: random.Random) -> tuple[str, dict[str, str]]:
    """The question, and the slot values only known once worded (the direction words)."""
    form = slots["company"]
    names = [company_form(f, form if (form != "typo" or i == 0) else "short", rng)
             for i, f in enumerate(spec.filers)]
    several = len(spec.filers) > 1
    words = period_words(slots.get("period", "none"), spec.year, several)
    values: dict[str, str] = {
        "A": names[0], "B": names[1] if several else "", "list": join_names(names),
        "in_period": f" in {words}" if words else "",
        "In_period": f"In {words}, " if words else "",
    }
    mform = slots.get("measure", "catalogue")
    for i, m in enumerate(spec.measures):
        written = measure_form(m, mform, rng)
        values["m" if i == 0 else "m2"] = written
        if i == 0:
            values["m1"] = written
            values["rev"] = written
    if spec.kind == "balance_line":  # the side asked: "liability" / "liabilities"
        values["side"] = spec.target
        values["sides"] = "assets" if spec.target == "asset" else "liabilities"
    shown: dict[str, str] = {}
    if t.uses("dir"):
        values["dir"] = shown["wording"] = _direction_word(grammar, spec, t, rng)
    if t.uses("thr") and spec.threshold is not None:
        values["thr"] = _threshold(spec.threshold, spec.measures[0].percent,
                                   slots.get("threshold", "standard"))
    if t.uses("rel"):
        values["rel"] = shown["wording"] = rng.choice(
            grammar.wording["relation"][spec.direction])
    if t.uses("chg"):
        values["chg"] = shown["wording"] = rng.choice(grammar.wording["change"][spec.direction])
    if t.uses("seg"):
        values["seg"] = spec.segment.lower() if slots.get("member") == "lower" else spec.segment
    question = t.text.format(**values).replace("..", ".")  # "... ACME INC.." ends once
    return question, shown
