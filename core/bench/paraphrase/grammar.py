"""The suite's vocabulary (``grammar.toml``) read into typed records, and the slot forms.

Slots are the ways an analyst writes one thing:

* company: ``registry`` ("ACME CORP"), ``short`` ("Acme"), ``ticker-upper`` ("ACM"),
  ``ticker-lower`` ("acm"), ``name-lower`` ("acme"), ``typo`` (one letter of a word of
  five letters or more deleted, or two neighbours swapped: "Adboe", "Alphabt"; chosen by
  the case's random generator, so deterministic for a seed);
* measure: ``catalogue`` ("operating margin"), ``title`` ("Operating Margin"), ``plural``
  ("operating margins"), ``abbreviation`` ("op margin", "R&D", "FCF", "top line"),
  ``abbreviation-lower`` ("r&d", "fcf"), ``abbreviation-upper`` ("CAPEX", "OP MARGIN");
* period: ``FYyyyy`` ("FY2024"), ``fiscal yyyy`` ("fiscal 2024"), ``yyyy`` ("2024"),
  ``FYyy`` ("FY24"), ``latest`` ("in its latest fiscal year"), ``none``;
* order: the template's word order (company-first, measure-first, period-first, trailing);
* member: ``printed`` ("Widget Cloud"), ``lower`` ("widget cloud").
"""

from __future__ import annotations

import random
import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

GRAMMAR_FILE = Path(__file__).with_name("grammar.toml")

KINDS = ("figure", "figures", "compare", "rank", "difference", "growth_compare", "verdict",
         "trend", "share", "largest_member", "balance_line", "text")
COMPANY_FORMS = ("registry", "short", "ticker-upper", "ticker-lower", "name-lower", "typo")
MEASURE_FORMS = ("catalogue", "title", "plural", "abbreviation", "abbreviation-lower",
                 "abbreviation-upper")
PERIOD_FORMS = ("FYyyyy", "fiscal yyyy", "yyyy", "FYyy", "latest", "none")
MEMBER_FORMS = ("printed", "lower")


@dataclass(frozen=True)
class Measure:
    """A catalogue measure and the words analysts write for it."""

    key: str
    """Catalogue key ('operating_margin')."""
    unit: str
    """'percent' or 'USD'."""
    catalogue: str
    abbreviations: tuple[str, ...]
    plural: str
    better: str = ""
    """'higher' when judgement words (strongest, weakest) apply; '' for costs."""
    kinds: tuple[str, ...] = ()

    @property
    def percent(self) -> bool:
        return self.unit == "percent"


@dataclass(frozen=True)
class Template:
    """One wording of a kind of question (see grammar.toml for the fields)."""

    id: str
    kind: str
    order: str
    text: str
    unit: str = ""
    premise: str = ""
    test: str = ""
    target: str = ""

    def uses(self, name: str) -> bool:
        """Whether the text has the placeholder ``{name}``."""
        return "{" + name + "}" in self.text

    @property
    def period_first(self) -> bool:
        return self.uses("In_period")


@dataclass(frozen=True)
class Grammar:
    """The whole vocabulary: measures, pairs, direction words, templates."""

    measures: dict[str, Measure]
    pairs: dict[str, list[tuple[str, str]]]
    wording: dict[str, dict[str, list[str]]]
    templates: list[Template] = field(default_factory=list)

    def for_kind(self, kind: str) -> list[Template]:
        return [t for t in self.templates if t.kind == kind]

    def measures_for(self, kind: str) -> list[Measure]:
        return [m for m in self.measures.values() if kind in m.kinds]


@lru_cache(maxsize=4)
def load_grammar(path: Path = GRAMMAR_FILE) -> Grammar:
    """``grammar.toml`` read and checked (a kind or placeholder misspelt fails here)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    measures = {m["key"]: Measure(key=m["key"], unit=m["unit"], catalogue=m["catalogue"],
                                  abbreviations=tuple(m["abbreviations"]), plural=m["plural"],
                                  better=m.get("better", ""), kinds=tuple(m["kinds"]))
                for m in data["measure"]}
    templates: list[Template] = []
    counts: dict[str, int] = {}
    for t in data["template"]:
        if t["kind"] not in KINDS:
            raise ValueError(f"grammar.toml: unknown kind {t['kind']!r}")
        counts[t["kind"]] = counts.get(t["kind"], 0) + 1
        templates.append(Template(id=f"{t['kind']}.{counts[t['kind']]}", kind=t["kind"],
                                  order=t["order"], text=t["text"], unit=t.get("unit", ""),
                                  premise=t.get("premise", ""), test=t.get("test", ""),
                                  target=t.get("target", "")))
    pairs = {k: [(a, b) for a, b in v] for k, v in data["pairs"].items()}
    return Grammar(measures=measures, pairs=pairs, wording=data["wording"],
                   templates=templates)


# --- company forms ------------------------------------------------------------------

_SUFFIX = re.compile(r"[\s,]+(?:inc|incorporated|corp|corporation|company|co|ltd|limited|plc|"
                     r"llc|lp|the)\.?$", re.I)


def short_name(registry_name: str) -> str:
    """A registry name as an analyst writes it: corporate suffixes dropped, an all-capitals
    name in title case ("ACME TOOL CO" -> "Acme Tool", "BIRCH, INC." -> "Birch").
    Written here, not borrowed from the reader, so the suite stays independent of it."""
    name = registry_name.strip()
    while (cut := _SUFFIX.sub("", name)) != name and cut:
        name = cut
    name = name.strip(" ,.")
    if name.isupper():
        name = " ".join(w if len(w) <= 3 and w.isalpha() else w.capitalize()
                        for w in name.split())
    return name or registry_name


def typo(name: str, rng: random.Random) -> str:
    """``name`` with one typing slip in its longest word of five letters or more: a letter
    (never the first) deleted, or two neighbouring letters swapped; ``name`` itself when
    no word is long enough or every slip leaves it unchanged."""
    words = name.split(" ")
    long = [i for i, w in enumerate(words) if sum(c.isalpha() for c in w) >= 5]
    if not long:
        return name
    i = max(long, key=lambda k: (len(words[k]), -k))
    word = words[i]
    slips = [word[:p] + word[p + 1:] for p in range(1, len(word)) if word[p].isalpha()]
    slips += [word[:p] + word[p + 1] + word[p] + word[p + 2:] for p in range(1, len(word) - 1)
              if word[p].isalpha() and word[p + 1].isalpha()
              and word[p].lower() != word[p + 1].lower()]
    slips = [s for s in slips if s.lower() != word.lower()]
    if not slips:
        return name
    words[i] = rng.choice(slips)
    return " ".join(words)


# --- measure forms ------------------------------------------------------------------

def measure_form(measure: Measure, form: str, rng: random.Random) -> str:
    """How ``measure`` is written in the form ``form`` (MEASURE_FORMS)."""
    if form == "catalogue":
        return measure.catalogue
    if form == "title":
        return " ".join(w if w.isupper() else w.capitalize() for w in measure.catalogue.split())
    if form == "plural":
        return measure.plural
    abbreviation = rng.choice(measure.abbreviations)
    if form == "abbreviation-lower":
        return abbreviation.lower()
    if form == "abbreviation-upper":
        return abbreviation.upper()
    return abbreviation


# --- period forms -------------------------------------------------------------------

def period_words(form: str, year: int | None, several: bool = False) -> str:
    """The period as written after "in" ('FY2024', 'fiscal 2024', '2024', 'FY24',
    'its latest fiscal year'); '' for ``none``."""
    if form == "none" or (year is None and form != "latest"):
        return ""
    if form == "latest":
        return "their latest fiscal year" if several else "its latest fiscal year"
    return {"FYyyyy": f"FY{year}", "fiscal yyyy": f"fiscal {year}", "yyyy": f"{year}",
            "FYyy": f"FY{year % 100:02d}"}[form]


def join_names(names: list[str]) -> str:
    """'A', 'A and B', 'A, B and C'."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
