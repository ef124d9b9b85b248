"""Plan steps name their company, and the plan editor reads the question typed into an added
step (issue 37, item 13).

* A look-up never runs without a company: a figure asked of no company over filings of two
  companies is one look-up per company, each naming it; an LLM's look-up with no filings
  takes those of the companies the question names, one per company.
* In the editor an added look-up takes its metric, periods and filings from the question
  typed into it (``core.reading``), metrics are offered by their catalogue labels, an added
  filing step defaults to the company its text names, and the section choices are those of
  that step's filings only.

The wordings are made from slots (companies as written, metrics, periods) on the two real
iXBRL 10-Ks (NVIDIA FY2023, AMD FY2025)."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from streamlit.testing.v1 import AppTest

from core.agent.roles.planner import make_plan
from core.app.plan_draft import StepDraft, read_into
from core.app.research import ResearchService
from core.foundation.config import Settings
from testkit.fakes.chat_model import FakeChatModel

COMPANIES = {"nvda": ["NVIDIA", "Nvidia", "NVDA"], "amd-": ["AMD", "Advanced Micro Devices"]}
YEARS = {"nvda": "2023", "amd-": "2025"}
METRICS = {"revenue": "revenue", "operating income": "operating_income",
           "net income": "net_income", "cash from operations": "operating_cash_flow"}
TEMPLATES = ["What was {co}'s {m} in fiscal {y}?", "Look up {co} {m} for FY{y}",
             "{co} {m} FY{y}"]


@pytest.fixture(scope="module")
def svc(tmp_path_factory, ingested_store):
    from core.app.corpus import Corpus
    from testkit.fakes.embedder import HashEmbedder

    store = ingested_store(tmp_path_factory.mktemp("editor") / "store",
                           "nvda-10k-fy2023.html", "amd-10k-fy2025.htm")
    settings = Settings(data_dir=store, cache_enabled=False, _env_file=None)
    service = ResearchService.from_corpus(settings, Corpus(settings, embedder=HashEmbedder()))
    service.refresh_corpus()
    return service


def _ids(svc, key: str) -> list[str]:
    return [d.doc_id for d in svc.deps.corpus.documents if d.file_name.startswith(key)]


def _cases():
    for k, ((key, names), (words, metric)) in enumerate(itertools.product(
            COMPANIES.items(), METRICS.items())):
        for j, name in enumerate(names):
            template = TEMPLATES[(k + j) % len(TEMPLATES)]
            yield key, template.format(co=name, m=words, y=YEARS[key]), metric


CASES = list(_cases())


@pytest.mark.parametrize(("key", "question", "metric"), CASES, ids=[c[1] for c in CASES])
def test_an_added_look_up_reads_the_question_typed_into_it(svc, key, question, metric):
    docs = svc.deps.corpus.documents
    draft = read_into(StepDraft(tool="figure_lookup", sub_question=question), docs,
                      svc.deps.facts)
    assert (draft.metric, draft.periods) == (metric, [f"FY{YEARS[key]}"]), question
    assert draft.doc_ids == _ids(svc, key)
    # a new question replaces what the last one filled; the analyst's own choice stays
    other = "amd-" if key == "nvda" else "nvda"
    draft.sub_question = f"What was {COMPANIES[other][0]}'s revenue in fiscal {YEARS[other]}?"
    again = read_into(draft, docs, svc.deps.facts)
    assert (again.metric, again.doc_ids) == ("revenue", _ids(svc, other))
    mine = again.model_copy(update={"metric": "capex", "sub_question": question})
    assert read_into(mine, docs, svc.deps.facts).metric == "capex"


def test_a_proposed_step_is_never_rewritten_by_reading(svc):
    draft = StepDraft(tool="figure_lookup", sub_question="What was AMD's revenue in 2025?",
                      metric="net_income", origin={"metric": "net_income"})
    assert read_into(draft, svc.deps.corpus.documents, svc.deps.facts) is draft


@pytest.mark.parametrize("words", ["cash from operations", "operating income", "revenue"])
def test_a_figure_of_no_company_is_looked_up_for_each_company_in_scope(svc, words):
    scope = _ids(svc, "nvda") + _ids(svc, "amd-")
    steps, _, _, _ = make_plan(f"What was {words} in the latest fiscal year, and what drove "
                               "it?", svc.deps, scope)
    figures = [s for s in steps if s.tool in ("figure_lookup", "compute")]
    assert len(figures) >= 2
    for s in figures:
        owners = {d.company for d in svc.deps.corpus.documents if d.doc_id in s.doc_ids}
        assert len(owners) == 1, (s.sub_question, s.doc_ids)
        assert any(n.lower() in s.sub_question.lower() for n in ("NVIDIA", "Advanced Micro",
                                                                 "AMD")), s.sub_question


def test_an_llm_look_up_with_no_filings_is_read_for_each_company_named(svc):
    llm = FakeChatModel()
    llm.enqueue({"steps": [{"sub_question": "Look up cash from operations for the latest "
                            "fiscal year.", "justification": "j", "tool": "figure_lookup",
                            "keywords": [], "section": None, "doc_ids": [],
                            "metric": "operating_cash_flow", "periods": ["FY2025"]}]})
    deps = replace(svc.deps, llm=llm)
    steps, source, notes, _ = make_plan("How do NVIDIA and AMD describe their liquidity?",
                                        deps, [])
    lookups = [s for s in steps if s.tool == "figure_lookup"]
    assert source == "llm" and len(lookups) == 2
    assert sorted(s.doc_ids for s in lookups) == sorted([_ids(svc, "nvda"), _ids(svc, "amd-")])
    assert any("named no company" in n for n in notes)
    assert all(("NVIDIA" in s.sub_question) != ("AMD" in s.sub_question)
               for s in lookups)


# --- the editor (AppTest) ------------------------------------------------------------

NVDA_ID, AMD_ID = "6f56e2bf21f6c016", "247b08e661e15f3c"


def _editor_app():
    import streamlit as st

    from components.plan_form import PlanForm
    from core.foundation.types import DocumentMeta

    ss = st.session_state
    ss.setdefault("drafts", [])
    docs = [DocumentMeta(doc_id="6f56e2bf21f6c016", file_name="nvda-10k-fy2023.html",
                         company="NVIDIA CORP", form_type="10-K", period="FY2023",
                         ticker="NVDA"),
            DocumentMeta(doc_id="247b08e661e15f3c", file_name="amd-10k-fy2025.htm",
                         company="ADVANCED MICRO DEVICES, INC.", form_type="10-K",
                         period="FY2025", ticker="AMD")]
    sections = {"6f56e2bf21f6c016": ["Item 1A. Risk Factors", "Item 7. NVIDIA MD&A"],
                "247b08e661e15f3c": ["Item 1A. Risk Factors", "Item 7. AMD MD&A"]}
    PlanForm(ss["drafts"], key="pf", documents=docs, sections=sections,
             save=lambda drafts: None, dependencies=True).render({})


def _widget(at, kind: str, label: str, n: int = -1):
    return [w for w in getattr(at, kind) if w.label == label][n]


@pytest.mark.parametrize(("name", "words", "metric", "doc"), [
    ("NVIDIA", "cash from operations", "operating_cash_flow", NVDA_ID),
    ("amd", "net income", "net_income", AMD_ID)])
def test_the_editor_fills_an_added_look_up_from_its_question(name, words, metric, doc):
    from core.metrics import get_metric

    label = get_metric(metric).label
    at = AppTest.from_function(_editor_app, default_timeout=120).run()
    next(b for b in at.button if b.label == "Add a figure look-up").click().run()
    _widget(at, "text_area", "Sub-question").input(
        f"What was {name}'s {words} in fiscal 2024?").run()
    assert not at.exception, at.exception
    draft = at.session_state["drafts"][0]
    assert (draft.metric, draft.periods, draft.doc_ids) == (metric, ["FY2024"], [doc])
    metric_box = _widget(at, "selectbox", "Metric")
    assert metric_box.value == metric
    assert label in metric_box.options  # the catalogue's label, no snake_case key
    assert not [o for o in metric_box.options if "_" in o]
    assert _widget(at, "multiselect", "Companies / filings").value == [doc]


@pytest.mark.parametrize(("name", "doc", "own"), [("NVIDIA", NVDA_ID, "Item 7. NVIDIA MD&A"),
                                                  ("AMD", AMD_ID, "Item 7. AMD MD&A")])
def test_an_added_filing_step_defaults_to_the_company_it_names(name, doc, own):
    at = AppTest.from_function(_editor_app, default_timeout=120).run()
    next(b for b in at.button if b.label == "Add a filing step").click().run()
    section = _widget(at, "selectbox", "Section")
    assert len(section.options) == 4  # every filing's sections, none named yet
    _widget(at, "text_area", "Sub-question").input(
        f"How does {name} describe its competition?").run()
    assert not at.exception, at.exception
    assert _widget(at, "multiselect", "Companies / filings").value == [doc]
    options = _widget(at, "selectbox", "Section").options
    assert own in options and len(options) == 3  # (any section) and this filing's two
