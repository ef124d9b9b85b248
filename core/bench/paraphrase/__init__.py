"""The generated paraphrase suite: how well the product reads analysts' own words.

Questions are generated from slot grammars (``grammar.toml``: templates per kind, measure
words, direction words; company, measure and period forms in ``grammar``) over whatever
corpus is given, their gold is computed from the facts with the figures layer (``gold``),
the product answers them (``runner``) and ``judge`` scores each answer by the shape the
question asks. ``python -m core bench paraphrase`` prints the pass rate per kind and per
slot value (``cli``, ``report``).

Public calls::

    from core.bench.paraphrase import generate, judge, run_cases, AgentAnswerer
    gen = generate(store, n=360, seed=7)          # Generated(cases, skipped, ...)
    verdict = judge(case.gold, answer_text)       # Judgement(passed, miss, opening, ...)
    outcomes = run_cases(gen.cases, AgentAnswerer.for_settings(settings))
"""

from core.bench.paraphrase.generate import Generated, generate, parse_slots
from core.bench.paraphrase.judge import judge
from core.bench.paraphrase.model import BenchRun, Case, Gold, Judgement, Outcome
from core.bench.paraphrase.runner import AgentAnswerer, AnalysisAnswerer, run_cases

__all__ = ["AgentAnswerer", "AnalysisAnswerer", "BenchRun", "Case", "Generated", "Gold",
           "Judgement", "Outcome", "generate", "judge", "parse_slots", "run_cases"]
