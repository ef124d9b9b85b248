"""Figures stated when the question's test cannot be decided as written, and why said.

Three shapes of question are answered by stating figures, never by deciding on a part of
the question (``AnalysisPlan.unread`` says what was not decided, why, and what to ask):

* **one company named twice** ("Acme or ACME CORP", "Acme vs ACM"): one company, no second
  to compare; its figure is given;
* **a test the figure cannot be held to** (a threshold that is no finite number, "above
  1e400%"; two thresholds at once, "above 20% and below 10%"): the figure is given, the
  test is not decided on the first threshold, nor on the digits before an exponent;
* **each company its own measure** ("Acme's revenue or Birch's operating margin, which is
  higher?"): each company's figure of the measure asked of it; two measures are never
  compared as one (nor one company's measure put in place of the other's).
"""

from __future__ import annotations

from core.analysis.model import AnalysisSpec
from core.analysis.plan import AnalysisPlan, figure_question, read_figure
from core.analysis.subjects import Subject


def stated_plan(pairs: list[tuple[Subject, str]], unread: list[str], documents, store,
                decimals: int | None, defs: str = "") -> AnalysisPlan | None:
    """Each ``(company, measure words)`` figure, stated in the order asked; nothing
    decided. None when a figure cannot be read as a figure question."""
    several = len({id(s) for s, _ in pairs}) > 1
    spec = AnalysisSpec(kind="multi", name=" and ".join(dict.fromkeys(w for _, w in pairs)),
                        labels=[s.label if several else w for s, w in pairs])
    subjects = [s for s, _ in pairs] if several else [pairs[0][0]]
    plan = AnalysisPlan(spec=spec, subjects=subjects, unread=list(unread))
    for subject, words in pairs:
        question = figure_question(subject, words)
        request = read_figure(f"{question} {defs}".strip(), documents, store, decimals,
                              subject)
        if request is None:
            return None
        plan.questions.append(question)
        plan.requests.append(request)
    return plan


def named_twice(subject: Subject, asked: str) -> str:
    """Why a comparison of one company with itself is not made."""
    words = [subject.words, *subject.aliases]
    how = f" ('{words[0]}' and '{words[1]}' are one company)" if len(words) > 1 else ""
    cik = f", {subject.qualifier}" if subject.qualifier else ""
    return (f"{asked}: the question names {subject.company}{cik} twice{how}, so there is no "
            "second company to compare; its figure is given (name another company loaded "
            "to compare)")


def asked_of(spec: AnalysisSpec | None) -> str:
    """What a comparison asked, in words: 'which is higher', 'the yes / no'."""
    if spec is not None and spec.kind == "verdict":
        return "the yes / no"
    if spec is not None and spec.kind == "rank":
        return "the ranking"
    return "which is " + ("lower" if spec is not None and spec.direction == "lower"
                          else "higher")


def own_measures(body: str, found: list, subjects: list[Subject]
                 ) -> list[tuple[Subject, tuple]] | None:
    """Each company with the one measure written after it, when every company named has its
    own and they are not all one ("Acme's revenue or Birch's operating margin"); None
    otherwise (one measure asked of all, or several of each)."""
    at = sorted((max(body.find(s.words), 0), k) for k, s in enumerate(subjects))
    if len(subjects) < 2 or len(found) != len(subjects):
        return None
    bounds = [a for a, _ in at] + [len(body)]
    pairs = []
    for (start, k), end in zip(at, bounds[1:], strict=True):
        mine = [f for f in found if start <= f[2] < end]
        if len(mine) != 1:
            return None
        pairs.append((subjects[k], mine[0]))
    if len({f[0] for _, f in pairs}) < 2:
        return None
    return pairs


def measures_differ(pairs: list[tuple[Subject, tuple]], asked: str) -> str:
    """Why two companies' different measures are not compared, and what to ask instead."""
    named = " and ".join(f"{s.label}'s {f[1]}" for s, f in pairs)
    first = pairs[0][1][1]
    names = " or ".join(s.label for s, _ in pairs)
    return (f"{asked}: {named} are different measures, so they are not compared (each is "
            f"given); to compare, ask one measure of both, for example 'Which had the "
            f"higher {first}, {names}?'")
