"""Answer quality of the offline engine: query scoping, sentence choice, de-duplication,
the juxtaposition of earlier findings, web date filters and carried-over revisions.

Hand-made chunks imitate the shape of a real 10-K's risk factors (a summary list, a
heading sentence above each risk, compliance text that says "anti-competition").
"""

from __future__ import annotations

import re

import pytest

from core.agent.deps import AgentDeps
from core.agent.roles.citations import uncited_sentences, validate_citations
from core.agent.roles.connect import LINK_NOTE, is_connect
from core.agent.roles.distill import extract
from core.agent.roles.doc_facts import DocFacts, company_words, cover_facts
from core.agent.roles.rewriter import rewrite, scope_query
from core.agent.roles.sentences import (
    head_terms,
    main_terms,
    near_duplicate,
    summary_sentences,
    terms,
)
from core.agent.roles.synthesize import offline_answer
from core.agent.state import Evidence, PlanStep, StepRecord
from testkit.agent_fakes import DOC, QUESTION, FakeRetriever, FakeWeb, corpus_info, make_chunks
from testkit.fakes.chat_model import FakeChatModel

HEADING = "Competition in our current and target markets could cause us to lose market share " \
    "and revenue."
RISK_TEXTS = [  # first-stage order puts the distractors first
    ("Item 1A. Risk Factors", "For example, we may face increased compliance costs as a result "
     "of changes in anti-competition legislation, and increased focus from regulators on "
     "cybersecurity vulnerabilities and risks."),
    ("Item 1A. Risk Factors", "Additional risks not presently known to us may also harm our "
     "business. Any one of the following risks could harm our business and results."),
    ("Item 1A. Risk Factors", f"Risk Factors Summary\n\n• {HEADING}\n\n• Dependency on "
     "third-party suppliers reduces our control over product quantity and quality."),
    ("Item 1A. Risk Factors", "We may fail to sell any meaningful standalone software. We may "
     f"incur significant costs for these offerings.\n\n{HEADING}"),
    ("Item 1A. Risk Factors", "Our target markets remain competitive, and competition may "
     "intensify with new entrants and consolidations. Our competitors' products may be cheaper "
     "or provide better functionality than ours."),
]


@pytest.fixture
def deps(settings):
    info = corpus_info()
    info.facts = {DOC.doc_id: DocFacts(ticker="ACME", period_end="2023-12-30")}
    return AgentDeps(settings=settings, retriever=FakeRetriever(), corpus=info, web=FakeWeb())


# --- 1. the retrieval query leaves out what the filters enforce ------------------------

def test_scope_query_drops_company_ticker_year_form_and_section_words(deps):
    step = PlanStep(sub_question="q", doc_ids=["doc1"], section="Item 1A. Risk Factors")
    query, dropped = scope_query("Acme's 2023 10-K ACME risks competition", step, deps)
    assert query == "competition"
    assert set(dropped) == {"Acme's", "2023", "10-K", "ACME", "risks"}
    # a year other than the filing's stays; "operating" is not the title's "operations"
    step7 = PlanStep(sub_question="q", doc_ids=["doc1"], section="Item 7. Results of Operations")
    assert scope_query("Acme fiscal 2023 operating expenses 2022", step7, deps)[0] == \
        "operating expenses 2022"


def test_scope_query_keeps_web_queries_unfiltered_steps_and_something_to_search(deps):
    web = PlanStep(sub_question="q", tool="web_search", doc_ids=["doc1"])
    assert scope_query("Acme 2023 10-K risks", web, deps) == ("Acme 2023 10-K risks", [])
    loose = PlanStep(sub_question="q")
    assert scope_query("Acme 2023 competition", loose, deps) == ("Acme 2023 competition", [])
    # the analyst's document scope counts as a filter too
    assert scope_query("Acme 2023 competition", loose, deps, ["doc1"])[0] == "competition"
    step = PlanStep(sub_question="q", doc_ids=["doc1"], section="Item 1A. Risk Factors")
    assert scope_query("Acme 10-K risks", step, deps)[0] == "risks"  # section word kept
    assert scope_query("Acme 2023 10-K", step, deps) == ("Acme 2023 10-K", [])


def test_scope_query_matches_a_plain_word_company_name_only_as_written(settings):
    from core.agent.deps import CorpusInfo
    from core.foundation.types import DocumentMeta

    gm = DocumentMeta(doc_id="gm", file_name="gm.htm", company="General Motors Co",
                      period="FY2023")
    deps = AgentDeps(settings=settings, retriever=None, corpus=CorpusInfo(documents=[gm]))
    step = PlanStep(sub_question="q", doc_ids=["gm"])
    assert scope_query("General Motors' general and administrative expenses 2023", step,
                       deps)[0] == "general and administrative expenses"
    assert scope_query("General's truck sales", step, deps)[0] == "truck sales"


def test_rewriter_scopes_both_the_offline_and_the_llm_query(deps):
    step = PlanStep(sub_question="Acme's competition risks?", doc_ids=["doc1"],
                    keywords=["Acme", "2023", "10-K", "competition", "vendors"])
    query, _, why, source, _ = rewrite(step, [], deps)
    # the sub-question as written, its keywords it lacks, minus what the filters enforce
    assert (query, source) == ("competition risks vendors", "offline") and "Acme" in why
    llm = FakeChatModel()
    llm.enqueue({"query": "Acme 10-K competition pricing", "strategy": "vector",
                 "justification": "conceptual"})
    deps.llm = llm
    query, strategy, _, source, call = rewrite(step, [], deps)
    assert (query, strategy, source, call.usage.calls) == ("competition pricing", "vector",
                                                            "llm", 1)
    assert "leave out their company name" in llm.history[0][0].content


def test_cover_facts_read_ticker_and_period_end():
    nvda = ("FORM 10-K\n\nFor the fiscal year ended January 29, 2023\n\nNVIDIA CORPORATION\n"
            "Title of each class | Trading Symbol(s) | Name of each exchange\n"
            "Common Stock, $0.001 par value per share | NVDA | The Nasdaq Global Select Market")
    assert cover_facts(nvda) == DocFacts(ticker="NVDA", period_end="2023-01-29")
    assert cover_facts(nvda).after_period() == "2023-01-30"
    other = "For the fiscal year ended December 28, 2024 ... traded under the symbol NWSC."
    assert cover_facts(other) == DocFacts(ticker="NWSC", period_end="2024-12-28")
    assert cover_facts("no cover here") == DocFacts()
    assert company_words("NVIDIA CORP") == ["NVIDIA"]
    assert company_words("Northwind Semiconductor, Inc.") == ["Northwind", "Semiconductor"]


# --- 2. the finding is the sentence that answers the sub-question ----------------------

def test_text_helpers_fold_plurals_heads_compounds_and_summaries():
    assert terms("risks") == terms("risk") == {"risk"}
    assert terms("competitors compete competition") == {"compet"}
    assert "compet" in terms("anti-competition laws")
    assert "compet" not in main_terms("anti-competition laws")
    assert "compet" in head_terms(HEADING)
    assert "compet" not in head_terms("We comply with many laws and rules in many places, "
                                      "including competition law.")
    assert summary_sentences(RISK_TEXTS[3][1]) == {HEADING}
    assert summary_sentences(HEADING) == set()  # one block alone is no summary
    assert near_duplicate(f"• {HEADING}", HEADING)
    assert not near_duplicate(HEADING, RISK_TEXTS[4][1])


def _risk_hits():
    retriever = FakeRetriever(make_chunks(RISK_TEXTS))
    hits = [h.model_copy(update={"rank": i}) for i, h in enumerate(
        sorted(retriever.search("x risk competition", k=10).hits,
               key=lambda h: h.chunk.index), start=1)]
    return hits


def test_offline_distiller_leads_with_the_risk_heading_not_a_compound_or_boilerplate():
    hits = _risk_hits()
    ignore = terms("Item 1A. Risk Factors Acme 2023 10-K")  # what the filters enforce
    query = "risks competition Based on Acme's 2023 10-K, identify their key risks related " \
        "to competition."
    kept, coverage, _ = extract(query, hits, ignore, prefer_summaries=True)
    sentences = [e.sentence for e in kept]
    assert sentences[0] == HEADING and coverage in ("answered", "partial")
    assert sentences.count(HEADING) == 1  # in the summary list and above its section: once
    assert not any("Additional risks" in s or "Any one of" in s for s in sentences)
    anti = [i for i, s in enumerate(sentences) if "anti-competition" in s]
    assert not anti or anti[0] == len(sentences) - 1  # only ever after every real match
    assert all("compet" in terms(s) for s in sentences)
    for i, a in enumerate(sentences):
        assert not any(near_duplicate(a, b) for b in sentences[i + 1:])


# --- 3. the offline answer says each sentence once -------------------------------------

def test_offline_answer_drops_near_identical_sentences_across_evidence():
    same = "AI poses emerging ethical issues and presents risks that could affect its adoption."
    recs = [StepRecord(step=0, sub_question="Risks of AI?", tool="filing_search", query="q",
                       evidence_ids=["doc1-00001", "doc1-00002"], coverage="answered",
                       context=f"- {same} [doc1-00001]\n- {same} [doc1-00002]\n"
                               "- Concerns about responsible use may harm us. [doc1-00002]"),
            StepRecord(step=1, sub_question="More risks?", tool="filing_search", query="q",
                       evidence_ids=["doc1-00002"], coverage="partial",
                       context=f"- {same.upper()} [doc1-00002]")]
    ev = {1: Evidence(id="doc1-00001", kind="chunk", text=same, label="A"),
          2: Evidence(id="doc1-00002", kind="chunk", label="B",
                      text=f"{same} Concerns about responsible use may harm us.")}
    text, not_found = offline_answer("q", recs, ev, None)
    assert text.lower().count(same.lower().rstrip(".")) == 1
    assert "B says “Concerns about responsible use may harm us” [2]" in text
    assert not_found == ["More risks?"]  # nothing new left to say for it


# --- 4. "explain how X bears on Y": the earlier findings, juxtaposed and cited ----------

def test_connect_clauses_are_recognised():
    assert is_connect("Explain how this new strategy directly addresses or exacerbates one of "
                      "NVIDIA's stated risks.")
    assert is_connect("How does the acquisition affect Acme's margins?")
    assert not is_connect("Find recent news about AMD's AI chip strategy.")
    assert not is_connect("Explain the revenue growth in fiscal 2023.")


def _connect_records():
    risk = "We face intense competition from larger chip vendors in the accelerator market."
    news = "Rival Semi said it will launch a new AI accelerator every year."
    recs = [
        StepRecord(step=0, sub_question="Identify Acme's key risks related to competition.",
                   tool="filing_search", query="q", evidence_ids=["doc1-00001"],
                   coverage="answered", context=f"- {risk} [doc1-00001]"),
        StepRecord(step=1, sub_question="Find recent news (from 2024) about Rival's AI "
                   "accelerator strategy.", tool="web_search", query="q",
                   evidence_ids=["https://news.example/rival-ai-roadmap"], coverage="answered",
                   context=f"- {news} [https://news.example/rival-ai-roadmap]"),
        StepRecord(step=2, sub_question="Explain how this new strategy exacerbates one of "
                   "Acme's stated risks.", tool="filing_search", query="q",
                   evidence_ids=["doc1-00002"], coverage="none",
                   context="- Our supply chain depends on a single foundry. [doc1-00002]"),
    ]
    ev = {1: Evidence(id="doc1-00001", kind="chunk", text=risk, doc_id="doc1", label="A"),
          2: Evidence(id="https://news.example/rival-ai-roadmap", kind="web", text=news,
                      date="2024-06-03", label="N", url="https://news.example/rival-ai-roadmap"),
          3: Evidence(id="doc1-00002", kind="chunk", text="s", doc_id="doc1", label="B")}
    return recs, ev


def test_offline_answer_juxtaposes_the_web_finding_and_the_stated_risk():
    recs, ev = _connect_records()
    text, not_found = offline_answer(QUESTION, recs, ev, None, corpus_info())
    assert ("Rival's 2024 moves — “Rival Semi said it will launch a new AI accelerator every "
            "year” [2]. Beside it, Acme's filing states: “We face intense competition "
            "from larger chip vendors in the accelerator market” [1].") in text
    assert LINK_NOTE in text and not_found == []
    assert "single foundry" not in text  # the clause's own unrelated hit is not the answer
    check = validate_citations(text, ev)
    assert check.invalid == [] and check.text == text
    assert set(uncited_sentences(text)) <= {r.sub_question for r in recs}  # the headers


def test_connect_clause_without_earlier_findings_stays_extractive():
    recs, ev = _connect_records()
    text, not_found = offline_answer(QUESTION, recs[2:], ev, None, corpus_info())
    assert LINK_NOTE not in text and not_found == [recs[2].sub_question]


def test_graph_reflects_the_connect_step_as_a_juxtaposition(settings):
    from testkit.agent_fakes import make_service

    record = make_service(settings).ask(QUESTION)
    reflected = [e for e in record.events if e.type == "step_reflected"]
    assert reflected[2].finding.startswith("Juxtaposed (offline): Rival's 2024 moves")
    assert reflected[2].coverage == record.history[2].coverage  # not raised by the link
    link = next(p for p in record.answer.text.split("\n\n") if LINK_NOTE in p)
    kinds = {record.evidence[int(n) - 1].kind for n in re.findall(r"\[(\d+)\]", link)}
    assert kinds == {"chunk", "web"} and record.answer.invalid_markers == []
