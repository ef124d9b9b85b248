"""Analysis questions end to end, offline, on two real iXBRL 10-Ks (NVIDIA FY2023, fiscal year
ended 2023-01-29; AMD FY2025, ended 2025-12-27): ingest, plan (a figure step per company and
an analyze step), run (facts, arithmetic, no LLM, no text search), the answer (the verdict
first, every figure cited from its own company's filing), the plan editor's checks, the
self-check of a verdict."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from core.app.research import ResearchService
from core.cli.agent import ask
from core.foundation.config import Settings

FIXTURES = Path(__file__).parent / "fixtures" / "figures"
COMPARE_Q = "Which had the higher operating margin in its latest fiscal year, NVIDIA or AMD?"


@pytest.fixture(scope="module")
def two(tmp_path_factory, ingested_store):
    """Both 10-Ks ingested (once a session; hash embedder: figures do not depend on it), in
    a store of this module's own."""
    from core.app.corpus import Corpus
    from testkit.fakes.embedder import HashEmbedder

    store = ingested_store(tmp_path_factory.mktemp("two") / "store",
                           "nvda-10k-fy2023.html", "amd-10k-fy2025.htm")
    settings = Settings(data_dir=store, cache_enabled=False, _env_file=None)
    corpus = Corpus(settings, embedder=HashEmbedder())
    ids = {d.file_name[:4]: d.doc_id for d in corpus.documents()}
    return settings, corpus, ids


def _ask(two, question: str):
    settings, corpus, _ = two
    out = io.StringIO()
    record = ask(question, settings=settings, approve=True,
                 service=ResearchService.from_corpus(settings, corpus), out=out)
    answer = out.getvalue().split("=== Answer (deep, offline engine) ===\n\n", 1)[1]
    return record, out.getvalue(), answer


def test_a_comparison_plans_one_figure_per_company_and_answers_with_the_verdict(two):
    record, text, answer = _ask(two, COMPARE_Q)
    _, _, ids = two
    assert "router: fast path" in text and "compare of operating margin" in text
    assert [(s.tool, s.doc_ids) for s in record.plan] == [
        ("compute", [ids["nvda"]]), ("compute", [ids["amd-"]]),
        ("analyze", [ids["nvda"], ids["amd-"]])]
    assert record.plan[2].depends_on == [0, 1] and record.plan[2].analysis.kind == "compare"
    first = answer.splitlines()[0]
    # NVIDIA 4,224 / 26,974 = 15.7%; AMD 3,695 / 34,639 = 10.7%
    assert first.startswith("NVIDIA had the higher operating margin: 15.7% in fiscal 2023 [")
    assert "against AMD's 10.7% in fiscal 2025 [" in first
    assert "Fiscal years end in different months" in answer
    assert sum(u.calls for u in record.usage.values()) == 0  # no LLM
    result = record.answer.analyses[0]
    assert result.verdict == "NVIDIA" and [r.label for r in result.rows] == ["NVIDIA", "AMD"]
    # every figure is cited, and only from the filing of the company it belongs to
    cited = {c.evidence_id: c for c in record.answer.citations}
    by_doc = {ev.doc_id for ev in record.answer.evidence if ev.id in cited}
    assert by_doc == {ids["nvda"], ids["amd-"]}
    for row in result.rows:
        assert row.chunk_ids and all(c.startswith(ids["nvda" if row.label == "NVIDIA"
                                                      else "amd-"]) for c in row.chunk_ids)
    assert all(c.kept for c in record.answer.checks if c.sentence.startswith("NVIDIA had"))


def test_a_yes_no_question_is_answered_yes_first(two):
    record, _, answer = _ask(two, "Did AMD's revenue grow in fiscal 2025 compared with the "
                                  "year before?")
    assert answer.startswith("Yes. AMD's revenue grew 34.3% in fiscal 2025 [")
    assert [s.tool for s in record.plan] == ["compute", "analyze"]
    assert record.answer.analyses[0].verdict == "Yes"


def test_an_edited_analyze_step_without_its_figures_is_refused_with_the_fix(two):
    from core.agent.plan_edit import validate_plan

    record, _, _ = _ask(two, COMPARE_Q)
    settings, corpus, _ = two
    sections = {d.doc_id: d.sections for d in corpus.store.documents()}
    broken = record.plan[2].model_copy(update={"depends_on": []})
    problems = validate_plan([*record.plan[:2], broken], sections)
    assert any("set depends_on to them" in p for p in problems)
    lone = record.plan[2].model_copy(update={"depends_on": [0]})
    assert any("needs at least 2 figure steps" in p for p in
               validate_plan([*record.plan[:2], lone], sections))
    assert validate_plan(record.plan, sections) == []


def test_the_self_check_fails_a_sentence_that_contradicts_the_computed_verdict(two):
    from core.agent.roles.analysis_check import check_analyses, verdict_problem
    from core.agent.state import SentenceCheck

    record, _, _ = _ask(two, COMPARE_Q)
    result = record.answer.analyses[0]
    wrong = SentenceCheck(sentence="AMD had the higher operating margin than NVIDIA [1].",
                          citations=[1], verdict="supported", judge="llm")
    also = wrong.model_copy(update={"sentence": "NVIDIA's operating margin was lower than "
                                                "AMD's [1]."})
    right = wrong.model_copy(update={"sentence": "NVIDIA's operating margin was higher than "
                                                 "AMD's [1]."})
    checked = check_analyses([wrong, also, right], [result])
    assert [c.verdict for c in checked] == ["unsupported", "unsupported", "supported"]
    assert "the figures put NVIDIA first" in checked[0].reason
    yes = _ask(two, "Did AMD's revenue grow in fiscal 2025?")[0].answer.analyses[0]
    assert verdict_problem("No. AMD's revenue fell.", [yes]).startswith("it answers 'No'")
    assert verdict_problem("Yes, it grew 34.3%.", [yes]) is None
    # a yes/no about one of the compared ("Was AMD's the higher?"): the ranking still rules
    asked = result.model_copy(update={"verdict": "No", "spec": result.spec.model_copy(
        update={"expect": "AMD"})})
    assert [c.verdict for c in check_analyses([wrong, right], [asked])] == \
        ["unsupported", "supported"]
    assert verdict_problem("Yes. AMD's margin was higher.", [asked]).startswith(
        "it answers 'Yes'")


def test_an_llm_plan_without_an_analyze_step_gets_the_rules_figure_and_analyze_steps(two):
    from core.agent.deps import AgentDeps, CorpusInfo, fact_source
    from core.agent.roles.planner import PLANNER_FIGURES, make_plan
    from testkit.fakes.chat_model import FakeChatModel

    settings, corpus, ids = two
    llm = FakeChatModel()
    text_step = {"sub_question": "Why did NVIDIA's margin change?", "tool": "filing_search",
                 "keywords": ["margin"], "doc_ids": [ids["nvda"]], "depends_on": [1]}
    llm.enqueue({"steps": [
        {"sub_question": "NVIDIA operating income", "tool": "figure_lookup",
         "metric": "operating_income", "periods": ["FY2023"], "doc_ids": [ids["nvda"]]},
        {"sub_question": "AMD operating income", "tool": "figure_lookup",
         "metric": "operating_income", "periods": ["FY2025"], "doc_ids": [ids["amd-"]]},
        text_step]})
    deps = AgentDeps(settings=settings, retriever=corpus.retriever, llm=llm,
                     corpus=CorpusInfo.from_store(corpus.store),
                     facts=fact_source(corpus.store))
    steps, source, notes, _ = make_plan(COMPARE_Q, deps, [])
    assert '"analyze"' in llm.history[0][0].content and PLANNER_FIGURES.splitlines()[0] in \
        llm.history[0][0].content
    assert source == "llm" and [s.tool for s in steps] == ["compute", "compute", "analyze",
                                                           "filing_search"]
    assert steps[2].depends_on == [0, 1] and steps[3].depends_on == []  # its figure is gone
    assert any("replaced by the offline rule's" in n for n in notes)


def test_segments_in_analyses_the_largest_and_a_segments_own_change(two):
    record, _, answer = _ask(two, "Which of AMD's segments had the largest revenue in fiscal "
                                  "2025?")
    result = record.answer.analyses[0]
    assert result.verdict == "Data Center" and len(result.rows) >= 3
    assert answer.startswith("Data Center had the highest revenue: $16,635 million in fiscal "
                             "2025 [")
    assert all(s.member for s in record.plan if s.tool == "figure_lookup")
    record, _, answer = _ask(two, "Did AMD's Data Center segment revenue grow in fiscal 2025?")
    assert answer.startswith("Yes. AMD's Data Center segment revenue grew ")
    assert "$12,579 million in fiscal 2024 to $16,635 million" in answer.splitlines()[0]
