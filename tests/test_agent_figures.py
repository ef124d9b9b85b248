"""Figure questions end to end, offline, on a real iXBRL 10-K (NVIDIA FY2023, from EDGAR):
ingest (facts at ingest), plan (look-up and compute steps), run (facts, arithmetic, no
LLM), answer (the figure first, each input cited), self-check, the CLI."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from core.app.research import ResearchService
from core.cli.agent import ask
from core.foundation.config import Settings
from core.foundation.errors import PlanValidationError

FIXTURE = Path(__file__).parent / "fixtures" / "figures" / "nvda-10k-fy2023.html.gz"
REVENUE_Q = ("What was NVIDIA's total revenue in fiscal 2023 and how did it change from "
             "fiscal 2022?")
STATED = re.compile(r"[$€£]\s?\d|\d\s*(?:million|billion|thousand)|\d\s?%")
"""An amount stated in an answer (years, page numbers and form names are not)."""
EIGHT_K = """<html><body>
<p>UNITED STATES SECURITIES AND EXCHANGE COMMISSION</p><p>Washington, D.C. 20549</p>
<p>FORM 8-K</p><p>CURRENT REPORT</p>
<p>Pursuant to Section 13 or 15(d) of the Securities Exchange Act of 1934</p>
<p>Date of Report (Date of earliest event reported): March 4, 2024</p>
<p>NORTHWIND CHIPS INC.</p><p>(Exact name of registrant as specified in its charter)</p>
<p>Item 5.02 Departure of Directors or Certain Officers.</p>
<p>On March 4, 2024, the Board of Directors of Northwind Chips Inc. appointed Jane Roe as
Chief Financial Officer, effective April 1, 2024. Ms. Roe previously served as the
company's treasurer.</p>
<p>Item 9.01 Financial Statements and Exhibits.</p><p>None.</p>
</body></html>"""


@pytest.fixture(scope="module")
def nvda(tmp_path_factory, ingested_store):
    """The NVIDIA 10-K ingested (once a session; hash embedder: the figures do not depend
    on it), in a store of this module's own."""
    from core.app.corpus import Corpus
    from testkit.fakes.embedder import HashEmbedder

    store = ingested_store(tmp_path_factory.mktemp("nvda") / "store", FIXTURE.stem)
    settings = Settings(data_dir=store, cache_enabled=False, _env_file=None)
    return settings, Corpus(settings, embedder=HashEmbedder())


def _service(nvda, tmp_path) -> tuple[ResearchService, Settings]:
    settings, corpus = nvda
    runs = settings.model_copy(update={"runs_dir": tmp_path / "runs"}) \
        if "runs_dir" in Settings.model_fields else settings
    return ResearchService.from_corpus(runs, corpus), runs


def test_the_cli_answers_the_revenue_question_with_the_figure_first(nvda, tmp_path):
    svc, settings = _service(nvda, tmp_path)
    out = io.StringIO()
    record = ask(REVENUE_Q, settings=settings, approve=True, service=svc, out=out)
    text = out.getvalue()
    answer = text.split("=== Answer (deep, offline engine) ===\n\n", 1)[1]
    first = answer.splitlines()[0]
    assert first == ("NVIDIA's revenue was $26,974 million in FY2023, about flat from "
                     "$26,914 million in FY2022 (+0.2%) [1].")
    # the plan: one look-up (both periods), no text search; the router's fast path
    assert "router: fast path: a figure question" in text
    assert [(s.tool, s.metric, s.periods) for s in record.plan] == \
        [("figure_lookup", "revenue", ["FY2022", "FY2023"])]
    # the facts used, with source and page, live; the computation table under the answer
    assert "revenue[FY2023]: $26,974 million (printed 26,974) — Revenue [xbrl " \
        "us-gaap:Revenues, p. 54" in text  # in millions, as the answer (issue 38 item 18)
    table = text.split("Computation:", 1)[1]
    assert re.search(r"Revenue\s+FY2023\s+\$26,974 million\s+USD\s+XBRL us-gaap:Revenues, "
                     r"p\. 54 \[1\]", table)
    # [1] is the income statement chunk the facts are printed in; no LLM was called
    ev = record.evidence[0]
    assert ev.section.startswith("Item 8") and ev.page == 54 and "26,974" in ev.text
    assert record.total_usage.calls == 0 and record.answer.source == "offline"
    assert [f.display for f in record.answer.figures] == ["$26,974 million"]
    assert all(c.verdict == "supported" for c in record.answer.checks if c.kept)
    facts = [e for e in record.events if e.type == "facts_found"]
    assert [(f.period, f.source, f.page) for f in facts[0].facts] == \
        [("FY2023", "xbrl", 54), ("FY2022", "xbrl", 54)]


def test_a_derived_figure_is_looked_up_then_computed_in_the_rounding_asked(nvda, tmp_path):
    svc, _ = _service(nvda, tmp_path)
    q = ("What is the FY2023 fixed asset turnover ratio for NVIDIA? Fixed asset turnover "
         "ratio is defined as: FY2023 revenue / (average PP&E between FY2022 and FY2023). "
         "Round your answer to two decimal places.")
    record = svc.ask(q)
    assert [s.tool for s in record.plan] == ["figure_lookup", "figure_lookup", "compute"]
    assert record.plan[2].formula == "revenue[FY2023] / avg(ppe_net[FY2022], ppe_net[FY2023])"
    assert record.plan[2].depends_on == [0, 1] and record.plan[2].decimals == 2
    first = record.answer.text.splitlines()[0]
    assert first.startswith("NVIDIA's FY2023 fixed asset turnover ratio was 8.19 [")
    computed = [e for e in record.events if e.type == "figure_computed"]
    assert computed[0].result.value == 8.19 and "26,974 / avg(2,778, 3,807)" in \
        computed[0].result.work
    assert record.total_usage.calls == 0


def test_a_missing_input_is_said_and_no_number_is_stated(nvda, tmp_path):
    svc, _ = _service(nvda, tmp_path)
    record = svc.ask("What was NVIDIA's capital expenditure in FY2019?")
    text = record.answer.text
    assert text.startswith("I could not compute FY2019 capital expenditure: no FY2019 "
                           "capital expenditure in the filings loaded.")
    assert not STATED.search(text)  # no figure stated, not even a weak line's
    assert record.answer.figures[0].missing and record.answer.figures[0].value is None
    assert record.total_usage.calls == 0


def test_a_filing_without_statements_is_said(tmp_path, hash_embedder):
    from core.app.corpus import Corpus

    settings = Settings(data_dir=tmp_path / "store", cache_enabled=False, _env_file=None)
    path = tmp_path / "northwind-8k-2024-03-04.htm"
    path.write_text(EIGHT_K, encoding="utf-8")
    corpus = Corpus(settings, embedder=hash_embedder)
    corpus.ingest_path(path)
    record = ResearchService.from_corpus(settings, corpus).ask(
        "What was Northwind's revenue in fiscal 2023?")
    assert record.plan[0].tool == "figure_lookup"
    first = record.answer.text.splitlines()[0]
    assert first == ("I could not read revenue: NORTHWIND CHIPS INC. 8-K holds no financial "
                     "statements, so no figure is reported in it.")
    assert not STATED.search(record.answer.text)


def test_a_mixed_question_states_the_figure_then_the_text_steps(nvda, tmp_path):
    svc, _ = _service(nvda, tmp_path)
    record = svc.ask("What was NVIDIA's revenue in fiscal 2023, and what drove the change "
                     "in its gaming revenue?")
    tools = [s.tool for s in record.plan]
    assert tools[0] == "figure_lookup" and "filing_search" in tools
    text = record.answer.text
    assert text.startswith("NVIDIA's FY2023 revenue was $26,974 million [1].")
    assert "Extractive brief (offline engine)" in text.split("\n\n", 1)[1]


def test_figure_fields_are_edited_and_checked_at_review(nvda, tmp_path):
    svc, _ = _service(nvda, tmp_path)
    thread_id, plan, _ = svc.start(REVENUE_Q)
    bad = [s.model_dump() for s in plan]
    bad[0]["metric"] = "revnue"
    with pytest.raises(PlanValidationError) as err:
        svc.resume(thread_id, bad)
    assert "step 1: unknown metric 'revnue'; use a catalogue key such as revenue" in \
        str(err.value.problems)
    broken = [*bad[:1], {"sub_question": "x", "tool": "compute", "formula": "revenue[FY2023] -"}]
    broken[0]["metric"] = "revenue"
    with pytest.raises(PlanValidationError) as err:
        svc.resume(thread_id, broken)
    assert any(p.startswith("step 2: the formula 'revenue[FY2023] -' is not valid")
               for p in err.value.problems)
    edited = [s.model_dump() for s in plan]
    edited[0].update(unit="USD billions", decimals=1)
    record = svc.resume(thread_id, edited).run()
    assert record.answer.text.startswith("NVIDIA's revenue was $27.0 billion in FY2023")


def test_figure_steps_take_the_fast_path_and_cost_no_step_budget(nvda, tmp_path):
    """A lone figure question is not paused for review unless asked ("auto"); figure steps
    are not counted against max_steps (they search nothing and call no LLM)."""
    svc, settings = _service(nvda, tmp_path)
    thread_id, _, events = svc.start(REVENUE_Q, review="auto")
    assert events[0].type == "route_chosen" and events[0].path == "fast"
    assert events[0].review is False and events[-1].type == "answer_ready"
    tight = settings.model_copy(update={"max_steps": 1})
    small = ResearchService.from_corpus(tight, nvda[1])
    record = small.ask("What is NVIDIA's FY2023 fixed asset turnover ratio, defined as FY2023 "
                       "revenue / average PP&E of FY2022 and FY2023, and what drove its "
                       "gaming revenue?")
    assert [s.tool for s in record.plan].count("filing_search") == 1
    assert sorted(r.step for r in record.history) == list(range(len(record.plan)))
    assert record.stop_reason.code == "completed"
