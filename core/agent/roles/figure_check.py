"""Self-check of figures: a sentence's figure must be the asked metric and period.

Two rules over the run's figure results (look-ups, computations, tool calls), applied on
top of ``selfcheck``'s own (a rule verdict here wins over the text rule and, when it finds
a fault, over the LLM judge too):

* **A quoted line under a figure step** (a table row "Label: values", cited from the
  evidence a figure step's text search kept) must be a line of the metric asked: a row
  whose label the metric catalogue does not read as that metric ("Total: $2,710" under a
  revenue look-up), or a row of percentages for an amount ("Revenue: 100.0%", a
  common-size table), is unsupported.
* **A stated figure** of a metric the run looked up: in a sentence that names the metric
  (the catalogue's names) for a member (a segment, product line or region), every amount
  must agree with that member's facts or a change between them (``member_check``); for the
  entity, every amount must agree (at any scale: units, thousands,
  millions, billions; sign aside) with a fact of that metric for the periods the sentence
  names, or with a figure the run computed. One that agrees with none is unsupported; a
  sentence whose amounts all agree, citing a chunk of those facts, is supported.
* **A row an analysis read** ("Goodwill, fiscal 2024 (ended 2024-11-29): $12,788 million;
  table row: Goodwill | 12,788 | 12,805 [1]", a balance-sheet line a pick ranked) is
  supported when it names the row, cites the chunk the row's fact is printed in and states
  no figure but the row's own or the cited text's (``row_verdict``): its framing words
  ("fiscal", "table row") are not the filing's, so the term overlap of the text rule
  failed it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from core.agent.roles.analysis_check import named_at
from core.agent.roles.member_check import (  # noqa: F401 - agrees re-exported
    agrees,
    changes_of,
    member_named,
    member_verdict,
)
from core.agent.state import Evidence, SentenceCheck
from core.figures.model import FigureResult

SCALES = (1.0, 1e-3, 1e-6, 1e-9, 1e3, 1e6)
_MARK = re.compile(r"\[(\d+)\]")
_ROW = re.compile(r"^\s*(?:[-*•]\s*)?(?P<label>[^:\[\]\n]{2,120}?):\s+[-−(]?[$€£]?\s?\d")
_AMOUNT = re.compile(r"(?<![\w.])([-−(]?)([$€£]?)\s?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
                     r"(?![\w]|-[A-Za-z])")  # not '3M', '8-K', '10-Q': names, not amounts
_YEAR = re.compile(r"(?:19|20)\d\d")
_QUOTED_ROW = re.compile(r"\(table row:.*\)", re.S)
_PAGE = re.compile(r"\bpp?\.\s*\d+(?:\s*[-–]\s*\d+)?")
_ISO_DATE = re.compile(r"\b(?:19|20)\d\d-[01]\d-[0-3]\d\b")  # a period's end: a date, no figure


@dataclass
class FigureKnowledge:
    """What the run's figure steps found, for the self-check."""

    results: list[FigureResult] = field(default_factory=list)
    step_metric: dict[str, str] = field(default_factory=dict)
    """Evidence id -> the metric its figure step asked (for that step's weak lines)."""
    analyses: list = field(default_factory=list)
    """The run's analyses (``AnalysisResult``): their figures, thresholds and verdicts."""
    facts: Any = None
    """The fact store (``AgentDeps.facts``): the facts of a member a sentence names
    (``member_check``); None outside a run."""

    def doc_ids(self) -> list[str]:
        """The filings the run's figures were read from."""
        return list(dict.fromkeys(i.fact.doc_id for r in self.results for i in r.inputs
                                  if i.fact is not None))

    def given(self) -> list[float]:
        """Numbers an analysis states that no fact holds: a verdict's threshold, the
        thresholds of the criterion that decided it."""
        from core.metrics.criteria import get_criterion

        out = [a.spec.threshold for a in self.analyses if a.spec.threshold is not None]
        # what the analysis computed from the facts itself: a series' largest move, a share
        out += [v for a in self.analyses for v, _ in amounts(f"{a.lead} {a.basis}")]
        for a in self.analyses:
            found = get_criterion(a.spec.criterion or "")
            out += [t.threshold for t in found.tests] if found else []
        return out

    def metrics(self) -> set[str]:
        out = {r.request.metric for r in self.results if r.request.metric}
        return out | {i.metric for r in self.results for i in r.inputs}

    def fact_values(self, metric: str, years: set[int]) -> list[float]:
        """Facts of ``metric`` (used and alternatives), for ``years`` when given."""
        out = []
        for r in self.results:
            for inp in r.inputs:
                if inp.metric != metric:
                    continue
                year = _period_year(inp.period)
                if years and year not in years:
                    continue
                facts = ([inp.fact] if inp.fact else []) + list(inp.alternatives)
                out += [f.value for f in facts]
                if inp.value is not None:
                    out.append(inp.value)
        return out

    def computed(self, metric: str) -> list[float]:
        """Numbers a figure of ``metric`` (or computed from it) states: its value, display
        and the intermediate results of its work (an input's value is a fact of its own
        period, checked as such)."""
        out: list[float] = []
        for r in self.results:
            if r.request.metric != metric and metric not in {i.metric for i in r.inputs}:
                continue
            if r.value is not None:
                out.append(r.value)
            given = [i.value for i in r.inputs if i.value is not None]
            out += [v for v, d in amounts(f"{r.display} {r.work}")
                    if not agrees(v, d, given)]
            out += changes([i for i in r.inputs if i.metric == metric])
        return out

    def stated(self, result: FigureResult, years: set[int]) -> list[float]:
        """Numbers a sentence stating ``result`` may give: its value and display, the
        intermediate results of its work, its inputs (of ``years`` when the sentence names
        some) and the changes between them."""
        out = [result.value] if result.value is not None else []
        given = [i.value for i in result.inputs if i.value is not None]
        out += [v for v, d in amounts(f"{result.display} {result.work}")
                if not agrees(v, d, given)]
        out += [i.value for i in result.inputs if i.value is not None
                and (not years or _period_year(i.period) in years)]
        by_metric: dict[str, list] = {}
        for i in result.inputs:
            by_metric.setdefault(i.metric, []).append(i)
        return out + [c for ins in by_metric.values() for c in changes(ins)]

    def analysis_chunk_ids(self) -> set[str]:
        """The chunks the run's analyses read rows from (a pick's balance-sheet lines)."""
        return {c for a in self.analyses for r in a.rows for c in r.chunk_ids}

    def chunk_ids(self, metric: str) -> set[str]:
        return {i.fact.chunk_id for r in self.results for i in r.inputs
                if i.metric == metric and i.fact is not None and i.fact.chunk_id}


def changes(inputs: list) -> list[float]:
    """The change between every two periods of one metric, as an amount and in percent
    (what a sentence stating a figure beside an earlier one says: "up 12.5%")."""
    found = sorted((i.period, i.value) for i in inputs if i.value is not None)
    return changes_of([v for _, v in found])




def _period_year(period: str) -> int | None:
    m = re.search(r"(?:19|20)\d\d", period or "")
    return int(m.group(0)) if m else None


def amounts(text: str) -> list[tuple[float, int]]:
    """``(value, decimals)`` of the amounts in ``text``; bare years, ISO dates and page
    references ("p. 50") are left out."""
    out = []
    text = _ISO_DATE.sub(" ", _PAGE.sub(" ", text))
    for sign, cur, raw in _AMOUNT.findall(text):
        if not cur and not sign and "," not in raw and "." not in raw and _YEAR.fullmatch(raw):
            continue
        whole, _, frac = raw.replace(",", "").partition(".")
        try:
            out.append((float(f"{whole}.{frac}" if frac else whole), len(frac)))
        except ValueError:
            continue
    return out




def metric_name(metric: str) -> str:
    from core.agent.roles.figure_catalog import metric_label

    return metric_label(metric)


def line_verdict(sentence: str, marks: list[int], numbered: dict[int, Evidence],
                 know: FigureKnowledge) -> SentenceCheck | None:
    """The quoted-line rule (see the module docstring), or None when it does not apply."""
    from core.metrics import metric_for_label

    plain = _MARK.sub("", sentence)
    ids = [numbered[n].id for n in dict.fromkeys(marks) if n in numbered]
    asked = {know.step_metric[i] for i in ids if i in know.step_metric}
    m = _ROW.match(plain)
    if not ids or not m or len(asked) != 1 or any(i not in know.step_metric for i in ids):
        return None
    label = m.group("label").strip()
    metric = asked.pop()
    first = re.match(r"\s*[-−(]?[$€£]?\s?[\d,.]+\)?\s*(%)?", plain[m.end("label") + 1:])
    unit = "percent" if first and first.group(1) else None
    if metric_for_label(label, unit=unit) == metric:
        return None
    why = f"the line's item '{label}' is not {metric_name(metric)}, the figure asked"
    if unit and metric_for_label(label) == metric:
        why = (f"the line gives {metric_name(metric)} as a percentage (a common-size "
               "table), not the amount asked")
    return SentenceCheck(sentence=sentence, citations=marks, verdict="unsupported",
                         judge="offline", reason=why)


def _mentioned(result: FigureResult, plain: str, keys: set[str]) -> bool:
    """Whether a sentence states ``result``: it names its catalogue metric (or, for a
    metric the question defined, its name)."""
    if result.request.metric:
        return result.request.metric in keys
    name = result.request.name.strip().lower()
    return len(name) > 3 and name in plain.lower()


def figure_verdict(sentence: str, marks: list[int], numbered: dict[int, Evidence],
                   know: FigureKnowledge) -> SentenceCheck | None:
    """The stated-figure rule (see the module docstring), or None when it does not apply."""
    from core.metrics import find_metrics
    from core.retrieval.scope import question_periods

    if not marks or not know.results:
        return None
    # The printed row quoted as an input's source ("(table row: Total revenues | 5,162,082 |
    # 12,899,672 | ...)") holds the other periods' figures too: they are no stated figures.
    plain = _QUOTED_ROW.sub(" ", _MARK.sub("", sentence))
    keys = {m.key for m in find_metrics(plain)} | _concept_metrics(plain)
    metrics = [m for m in sorted(know.metrics()) if m in keys]
    stated = amounts(plain)
    results = [r for r in know.results if _mentioned(r, plain, keys)]
    if not (metrics or results) or not stated:
        return None
    years = {p.year for p in question_periods(plain)[0]}
    pool = [v for m in metrics for v in know.fact_values(m, years) + know.computed(m)]
    pool += know.given()
    for r in results:
        pool += know.stated(r, years)
    wrong = [v for v, d in stated if not agrees(v, d, pool)]
    base = dict(sentence=sentence, citations=marks, judge="offline")
    what = ", ".join(dict.fromkeys([metric_name(m) for m in metrics]
                                   + [r.request.name for r in results
                                      if r.request.metric not in metrics]))
    when = f" for {', '.join(f'FY{y}' for y in sorted(years))}" if years else ""
    member = member_named(plain, know) if wrong and metrics else None
    if member is not None:  # "Data Center revenue ... up 41%": the segment's, not the total's
        return member_verdict(sentence, marks, numbered, member[0], member[1], stated)
    if wrong:
        return SentenceCheck(**base, verdict="unsupported", reason=(
            f"figure(s) {', '.join(f'{v:,g}' for v in wrong)} agree with no reported or "
            f"computed {what}{when}"))
    cited = {numbered[n].id for n in marks if n in numbered}
    sources = set().union(*(know.chunk_ids(m) for m in metrics), *(
        {i.fact.chunk_id for i in r.inputs if i.fact is not None} for r in results),
        know.analysis_chunk_ids())
    if not cited & sources:
        return None
    return SentenceCheck(**base, verdict="supported", reason=(
        f"figures agree with the facts and results of {what}{when}"))


def row_verdict(sentence: str, marks: list[int], numbered: dict[int, Evidence],
                analyses: list) -> SentenceCheck | None:
    """The stated-row rule (see the module docstring), or None when it does not apply."""
    cited = {numbered[n].id: numbered[n].text for n in dict.fromkeys(marks) if n in numbered}
    plain = _MARK.sub("", sentence)
    for a in analyses:
        for row in a.rows:
            if row.value is None or not cited.keys() & set(row.chunk_ids) \
                    or named_at(plain, row.label) < 0:
                continue
            pool = [v for v, _ in amounts(" ".join([row.display, row.inputs, *cited.values()]))]
            if all(agrees(v, d, pool) for v, d in amounts(plain)):
                return SentenceCheck(sentence=sentence, citations=marks, verdict="supported",
                                     judge="offline", reason=f"states the row {row.label!r} "
                                     f"the analysis read ({row.display}) from the cited chunk")
    return None


_CONCEPT = re.compile(r"\b[a-z][a-z0-9-]*:[A-Z][A-Za-z0-9]+")


def _concept_metrics(text: str) -> set[str]:
    """The metrics of the XBRL concepts a line names as its source ("XBRL us-gaap:Revenue
    FromContractWithCustomerExcludingAssessedTax" is revenue)."""
    from core.metrics import metric_for_concept

    return {k for c in _CONCEPT.findall(text) if (k := metric_for_concept(c))}


def check_figures(checks: list[SentenceCheck], numbered: dict[int, Evidence],
                  know: FigureKnowledge | None) -> list[SentenceCheck]:
    """``checks`` with the figure rules applied (see the module docstring)."""
    if know is None or not (know.results or know.step_metric):
        return checks
    out = []
    for c in checks:
        if c.verdict == "uncited":
            out.append(c)
            continue
        rule = line_verdict(c.sentence, c.citations, numbered, know) or \
            figure_verdict(c.sentence, c.citations, numbered, know) or \
            row_verdict(c.sentence, c.citations, numbered, know.analyses)
        if rule is None or (rule.verdict == "supported" and c.judge == "llm"):
            out.append(c)
        else:
            out.append(rule)
    from core.agent.roles.analysis_check import check_analyses

    return check_analyses(out, know.analyses)
