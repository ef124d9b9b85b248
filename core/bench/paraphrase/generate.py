"""Generating the cases: templates and slot fillers over the corpus's companies, measures,
periods and segments, with the gold computed from the facts.

``generate(store, n=..., seed=...)`` is deterministic for a seed (each kind draws from its
own ``random.Random(f"{seed}:{kind}")``, so ``--kinds`` leaves the other kinds' questions
as they were). Within a kind every template, and every value of every slot, is used in
turn (a fresh shuffle each round), so a kind of ``len(values)`` cases or more covers every
slot value. A drawn case whose gold cannot be computed is drawn again and counted in
``skipped``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from core.bench.paraphrase.book import GoldBook
from core.bench.paraphrase.corpus import CorpusView, Filer, corpus_view
from core.bench.paraphrase.gold import Spec, gold_for
from core.bench.paraphrase.grammar import (
    COMPANY_FORMS,
    KINDS,
    MEASURE_FORMS,
    MEMBER_FORMS,
    PERIOD_FORMS,
    Grammar,
    Template,
    load_grammar,
)
from core.bench.paraphrase.model import Case
from core.bench.paraphrase.render import render

_TRIES = 25
_DIRECTIONS = {"compare": ("higher", "lower"), "rank": ("descending", "ascending"),
               "growth_compare": ("higher", "lower"), "largest_member": ("higher", "lower"),
               "balance_line": ("higher", "lower")}


@dataclass
class Generated:
    """The cases generated and how many drawn cases were skipped (gold not computable)."""

    cases: list[Case] = field(default_factory=list)
    skipped: int = 0
    skipped_by_kind: dict[str, int] = field(default_factory=dict)


class _Rotor:
    """Values in turn, each round a fresh shuffle: every value within ``len(values)``
    draws."""

    def __init__(self, values, rng: random.Random):
        self.values, self.rng, self.queue = list(values), rng, []

    def _round(self) -> list:
        fresh = self.values[:]
        self.rng.shuffle(fresh)
        return fresh

    def next(self, avoid: tuple = ()):
        """The next value, one of ``avoid`` left in the queue for a later draw."""
        if not self.queue:
            self.queue = self._round()
        if all(v in avoid for v in self.queue):
            if all(v in avoid for v in self.values):
                return self.queue.pop()
            self.queue = self._round() + self.queue
        for i in range(len(self.queue) - 1, -1, -1):
            if self.queue[i] not in avoid:
                return self.queue.pop(i)
        return self.queue.pop()


def parse_slots(items: list[str] | None) -> dict[str, set[str]]:
    """``["company=ticker-lower", "company=typo", "period=FYyy"]`` -> {slot: values}."""
    out: dict[str, set[str]] = {}
    for item in items or []:
        for part in item.split(","):
            slot, sep, value = part.partition("=")
            if not sep or not slot.strip() or not value.strip():
                raise ValueError(f"--slots takes slot=value (comma-separated), not {part!r}")
            out.setdefault(slot.strip(), set()).add(value.strip())
    return out


def _allowed(values, slot: str, only: dict[str, set[str]]) -> list[str]:
    keep = [v for v in values if slot not in only or v in only[slot]]
    return keep or list(values)


@dataclass
class _KindDraw:
    """Rotors of one kind (templates and slots) and its random generator."""

    kind: str
    grammar: Grammar
    only: dict[str, set[str]]
    rng: random.Random
    rotors: dict[str, _Rotor] = field(default_factory=dict)

    def __post_init__(self):
        templates = [t for t in self.grammar.for_kind(self.kind)
                     if "order" not in self.only or t.order in self.only["order"]]
        templates = [t for t in templates if "test" not in self.only
                     or (t.test or "") in self.only["test"]] or templates
        self.rotors = {
            "template": _Rotor(templates or self.grammar.for_kind(self.kind), self.rng),
            "company": _Rotor(_allowed(COMPANY_FORMS, "company", self.only), self.rng),
            "measure": _Rotor(_allowed(MEASURE_FORMS, "measure", self.only), self.rng),
            "period": _Rotor(_allowed(PERIOD_FORMS, "period", self.only), self.rng),
            "member": _Rotor(_allowed(MEMBER_FORMS, "member", self.only), self.rng),
            "threshold": _Rotor(_allowed(("standard", "variant"), "threshold", self.only),
                                self.rng),
            "direction": _Rotor(_allowed(_DIRECTIONS.get(self.kind, ("-",)), "direction",
                                         self.only), self.rng),
            "relation": _Rotor(("more", "less"), self.rng),
            "change": _Rotor(("up", "down"), self.rng),
        }

    def slots(self) -> tuple[Template, dict[str, str]]:
        """A template and the slot values of the next case."""
        t: Template = self.rotors["template"].next()
        slots = {"company": self.rotors["company"].next(), "order": t.order}
        if t.uses("m") or t.uses("m1") or t.uses("rev"):
            slots["measure"] = self.rotors["measure"].next()
        if t.uses("in_period") or t.period_first:
            period = self.rotors["period"].next(("none",) if t.period_first else ())
            slots["period"] = "FYyyyy" if t.period_first and period == "none" else period
        if t.uses("seg"):
            slots["member"] = self.rotors["member"].next()
        if t.test:
            slots["test"] = t.test
        if t.test in ("above", "below"):
            slots["threshold"] = self.rotors["threshold"].next()
        direction = {"relation": "relation", "change": "change"}.get(t.test, "direction")
        if t.kind in _DIRECTIONS and t.target != "loss":
            slots["direction"] = self.rotors[direction].next()
        elif t.test in ("relation", "change"):
            slots["direction"] = self.rotors[direction].next()
        elif t.kind == "trend":
            slots["direction"] = t.test
        elif t.target == "loss":
            slots["direction"] = "loss"
        return t, slots


def _filers(view: CorpusView, count: int, form: str, rng: random.Random) -> list[Filer] | None:
    pool = [f for f in view.filers if f.ticker or not form.startswith("ticker")]
    return rng.sample(pool, count) if len(pool) >= count else None


def _year(filers: list[Filer], form: str, rng: random.Random) -> int | None:
    """The fiscal year a case names (None: each company's latest); -1 when the companies
    share no year their reports print."""
    if form in ("none", "latest"):
        return None
    common = set.intersection(*(set(f.years) for f in filers))
    if not common:
        return -1
    if len(filers) == 1 and rng.random() < 0.3:
        return max(common) - 1
    return max(common)


def _measures(grammar: Grammar, t: Template, rng: random.Random):
    if t.kind in ("share", "largest_member"):
        return (grammar.measures["revenue"],)
    if t.kind == "figures" or t.test == "relation":
        pair = rng.choice(grammar.pairs["figures" if t.kind == "figures" else "relation"])
        return tuple(grammar.measures[k] for k in pair)
    if not (t.uses("m") or t.uses("m1")):
        return ()
    pool = [m for m in grammar.measures_for(t.kind)
            if (t.unit != "percent" or m.percent) and (t.unit != "amount" or not m.percent)]
    return (rng.choice(pool),)


def _spec(view: CorpusView, grammar: Grammar, t: Template, slots: dict[str, str],
          rng: random.Random) -> Spec | None:
    count = {"compare": 2, "difference": 2, "growth_compare": 2}.get(t.kind, 1)
    if t.kind == "rank":
        count = rng.choice((3, 3, 4))
    filers = _filers(view, count, slots["company"], rng)
    if filers is None:
        return None
    year = _year(filers, slots.get("period", "none"), rng)
    if year == -1:
        return None
    direction = slots.get("direction", "")
    return Spec(kind=t.kind, filers=tuple(filers), measures=_measures(grammar, t, rng),
                year=year, direction=direction, test=t.test, premise=t.premise,
                target=t.target or ("revenue" if t.kind == "largest_member" else ""))


def _one(view, grammar, book, draw: _KindDraw, index: int, gen: Generated) -> Case | None:
    t, slots = draw.slots()
    for _ in range(_TRIES):
        spec = _spec(view, grammar, t, slots, draw.rng)
        if spec is None:
            continue
        done = gold_for(spec, book, draw.rng)
        if done is None:
            gen.skipped += 1
            gen.skipped_by_kind[t.kind] = gen.skipped_by_kind.get(t.kind, 0) + 1
            continue
        gold, spec = done
        question, shown = render(t, spec, slots, grammar, draw.rng)
        return Case(id=f"{t.kind}-{index:03d}", kind=t.kind, question=question,
                    template=t.id, slots={**slots, **shown}, gold=gold)
    return None


def generate(store, *, n: int = 360, seed: int = 7, kinds: list[str] | None = None,
             only: dict[str, set[str]] | None = None, view: CorpusView | None = None,
             book: GoldBook | None = None, grammar: Grammar | None = None) -> Generated:
    """About ``n`` cases over ``store``'s companies (its ``documents()`` and ``facts()``),
    spread evenly over ``kinds`` (default: every kind); ``only``: slot values to keep
    (``parse_slots``)."""
    grammar = grammar or load_grammar()
    kinds = list(kinds or KINDS)
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise ValueError(f"unknown kind(s) {', '.join(bad)}; kinds: {', '.join(KINDS)}")
    view = view or corpus_view(store)
    book = book or GoldBook(store)
    gen = Generated()
    if not view.filers:
        return gen
    for k, kind in enumerate(kinds):
        count = n // len(kinds) + (1 if k < n % len(kinds) else 0)
        draw = _KindDraw(kind, grammar, only or {}, random.Random(f"{seed}:{kind}"))
        for i in range(count):
            case = _one(view, grammar, book, draw, i, gen)
            if case is not None:
                gen.cases.append(case)
    return gen
