"""Compare judges coverage by the part's company and measure, not by similarity alone; a part
asking which company wins is covered only by a sentence naming one; one count of covered
parts feeds both the verdict line and the table. Wordings come from slots (companies,
measures, periods), never one example."""

from __future__ import annotations

import itertools

import pytest

from core.agent.state import Answer, Citation, Evidence, PlanStep
from core.analysis.model import AnalysisSpec
from core.app.compare import verdicts
from core.app.compare_parts import measures_in, part_of
from core.app.compare_verdict import coverage_count, overall
from core.app.runs import RunRecord
from core.foundation.types import DocumentMeta

DOCS = [DocumentMeta(doc_id=f"d{i}", file_name=f"{t.lower()}.htm", company=name, ticker=t,
                     form_type="10-K", period="FY2024")
        for i, (name, t) in enumerate([("Acme Tool Co", "ACMT"), ("Birch Inc.", "BRCH"),
                                       ("Zenith Ltd", "ZNTH")])]
SHORT = {"d0": "Acme", "d1": "Birch", "d2": "Zenith"}
MEASURES = ["net margin", "operating margin", "gross margin", "free cash flow",
            "capital expenditures"]
PERIODS = ["FY2022", "fiscal 2023", "FY2024"]


def _record(kind: str, question: str, claims: list[tuple[str, str]], plan=()) -> RunRecord:
    """An answer whose n-th claim cites a chunk of filing ``doc`` (claims: (text, doc))."""
    evidence = [Evidence(id=f"{doc}-{n:05d}", kind="chunk", text=text, doc_id=doc,
                         label=f"{SHORT[doc]} 10-K")
                for n, (text, doc) in enumerate(claims, start=1)]
    cites = [Citation(n=n, evidence_id=e.id, kind="chunk", label=e.label)
             for n, e in enumerate(evidence, start=1)]
    text = " ".join(f"{t} [{n}]" for n, (t, _) in enumerate(claims, start=1))
    return RunRecord(kind=kind, question=question, plan=list(plan), evidence=evidence,
                     answer=Answer(text=text, citations=cites))


CASES = [(a, b, m, other, p)
         for (a, b), m, p in itertools.product(itertools.permutations(SHORT.items(), 2),
                                               MEASURES, PERIODS)
         for other in MEASURES if other != m][::7]


@pytest.mark.parametrize(("a", "b", "measure", "other", "period"), CASES)
def test_a_sentence_about_another_company_or_measure_covers_nothing(
        hash_embedder, a, b, measure, other, period):
    (a_doc, a_name), (b_doc, b_name) = a, b
    part = f"What was {a_name}'s {measure} in {period}?"
    deep = _record("deep", part, [(f"{a_name}'s {measure} was 16.2% in {period}.", a_doc)],
                   [PlanStep(sub_question=part)])
    wrong_company = _record("baseline", part, [
        (f"{b_name}'s {measure} was 16.2% in {period}, driven by its segment revenue.",
         b_doc)])
    wrong_measure = _record("baseline", part, [
        (f"{a_name}'s {other} was $1,204 million in {period}.", a_doc)])
    for base in (wrong_company, wrong_measure):
        found = verdicts(deep, base, hash_embedder, DOCS)[0]
        assert found.deep.coverage == "covered", (part, deep.answer.text)
        assert found.baseline.coverage == "missing", (part, base.answer.text)
        assert found.winner == "deep"
    # "we" in the company's own filing: the citation says whose it is
    own = _record("baseline", part, [(f"Our {measure} was 16.2% in {period}.", a_doc)])
    assert verdicts(deep, own, hash_embedder, DOCS)[0].baseline.coverage == "covered"
    theirs = _record("baseline", part, [(f"Our {measure} was 16.2% in {period}.", b_doc)])
    assert verdicts(deep, theirs, hash_embedder, DOCS)[0].baseline.coverage == "missing"


@pytest.mark.parametrize(("measure", "period", "direction"),
                         list(itertools.product(MEASURES[:4], PERIODS, ["higher", "lower"])))
def test_a_part_asking_which_needs_an_answer_naming_a_winner(hash_embedder, measure, period,
                                                            direction):
    ask = f"Which had the {direction} {measure} in {period}, Acme or Birch?"
    plan = [PlanStep(sub_question=f"Look up {measure} for Acme", tool="figure_lookup"),
            PlanStep(sub_question=ask, tool="analyze",
                     analysis=AnalysisSpec(kind="compare", name=measure))]
    names = _record("deep", ask, [
        (f"Acme's {measure} was 12.0% in {period}, {direction} than Birch's 9.5%.", "d0")], plan)
    quotes = _record("baseline", ask, [
        (f"Acme's {measure} was 12.0% in {period}.", "d0"),
        (f"Birch's {measure} was 9.5% in {period}.", "d1")])
    rows = verdicts(names, quotes, hash_embedder, DOCS)
    which = rows[1]
    assert which.deep.coverage == "covered" and not which.deep.note
    assert which.baseline.coverage == "partial" and which.baseline.note == "names no winner"
    o = overall(names, quotes, rows)
    assert "the baseline names no winner" in " ".join(o.reasons)
    assert "names no winner where the question asks which" in o.line


def test_part_reading_takes_company_and_measure_from_any_wording():
    for name, measure, period in itertools.product(["Acme", "ACMT", "Birch", "BRCH"],
                                                   MEASURES, PERIODS):
        part = part_of(f"How did {name}'s {measure} change in {period}?", None, DOCS)
        assert len(part.companies) == 1, (name, part.companies)
        assert part.measures == measures_in(measure) and part.measures, measure
        assert not part.which
    step = PlanStep(sub_question="Look up the figure", tool="figure_lookup",
                    metric="net_margin", doc_ids=["d2"])
    part = part_of(step.sub_question, step, DOCS)
    assert set(part.companies) == {"Zenith Ltd"} and "net_margin" in part.measures


def test_one_count_of_covered_parts_for_the_line_and_the_table(hash_embedder):
    parts = [f"What was Acme's {m} in FY2024?" for m in MEASURES[:4]]
    deep = _record("deep", "q", [(f"Acme's {m} was 10% in FY2024.", "d0") for m in MEASURES[:3]],
                   [PlanStep(sub_question=p) for p in parts])
    base = _record("baseline", "q", [("Birch's segment revenue rose 12% in FY2024.", "d1")])
    rows = verdicts(deep, base, hash_embedder, DOCS)
    d, b = coverage_count(rows, "deep"), coverage_count(rows, "baseline")
    assert (d.covered, d.total, b.covered, b.total) == (3, 4, 0, 4)
    o = overall(deep, base, rows)
    assert f"covers {d.words()} sub-question(s) (baseline {b.words()})" in o.line
    shown = _drawn(rows)
    assert f"The deep agent covers {d.words()} sub-question(s); the baseline covers " \
        f"{b.words()}." in shown, shown


def _drawn(rows) -> str:
    """The sub-question table's heading line as Compare draws it (AppTest)."""
    from streamlit.testing.v1 import AppTest

    def page():
        import streamlit as st

        from components.compare_view import render_verdicts
        render_verdicts(st.session_state["rows"])

    at = AppTest.from_function(page)
    at.session_state["rows"] = rows
    at.run(timeout=60)
    assert not at.exception
    return " ".join(m.value for m in at.markdown).replace("**", "")
