"""A question naming a form or period is scoped to that filing, and a step about one company
never cites another company's filing: two companies with a 10-K and a 10-Q each, ingested
for real (hash embedder), searched by the real Retriever, answered by the offline engine."""

from __future__ import annotations

import pytest

from core.app.corpus import Corpus
from core.app.research import ResearchService
from core.foundation.types import DocumentMeta
from core.retrieval.scope import Period, question_forms, question_periods, resolve_scope
from testkit.filings import two_company_corpus


@pytest.fixture
def corpus(settings, hash_embedder):
    corpus = Corpus(settings, embedder=hash_embedder)
    for filing in two_company_corpus():
        corpus.ingest_bytes(filing.html(), filing.file_name)
    yield corpus
    corpus.close()


def _files(corpus: Corpus) -> dict[str, str]:
    return {d.doc_id: d.file_name for d in corpus.documents()}


def scoped(corpus: Corpus, question: str) -> list[str]:
    names = _files(corpus)
    return sorted(names[i] for i in resolve_scope(question, corpus.documents()).doc_ids or [])


def test_each_company_is_listed_once_under_one_name(corpus):
    docs = corpus.documents()
    assert len({d.company for d in docs}) == 2
    northwind = [d for d in docs if d.file_name.startswith("nwi")]
    assert {d.company for d in northwind} == {"Northwind Instruments, Inc."}
    assert northwind[0].printed_name == "NORTHWIND INSTRUMENTS INC"  # still an alias
    assert [d.cik for d in northwind] == ["0000111111", ""]  # the 10-Q prints no CIK


def test_forms_and_fiscal_quarters_pick_the_filing(corpus):
    assert scoped(corpus, "What does Northwind say about competition in its 10-Q?") == [
        "nwi-20240428.htm"]
    assert scoped(corpus, "Southgate's annual report: risk factors") == ["sgl-20231231.htm"]
    # Q1 of Northwind's fiscal 2025 ended in April 2024: known from its 10-K's year end.
    assert scoped(corpus, "Northwind's competition in Q1 FY2025") == ["nwi-20240428.htm"]
    assert scoped(corpus, "How did Southgate's revenue change in Q1 FY2024?") == [
        "sgl-20240331.htm"]
    assert scoped(corpus, "NWI's latest 10-Q") == ["nwi-20240428.htm"]  # ticker of the 10-K
    both = scoped(corpus, "Compare Northwind's and Southgate's 10-K risk factors")
    assert both == ["nwi-20240128.htm", "sgl-20231231.htm"]
    scope = resolve_scope("Southgate's 10-Q for FY2030", corpus.documents())
    assert "no filing matches FY2030" in scope.reason  # said, and all of theirs kept


def test_an_annual_report_is_not_taken_for_a_fiscal_quarter():
    docs = [DocumentMeta(doc_id="k", file_name="a.htm", company="NVIDIA CORP", form_type="10-K",
                         period="FY2024", period_end="2024-01-28"),
            DocumentMeta(doc_id="q", file_name="b.pdf", company="NVIDIA CORPORATION",
                         form_type="10-Q", period="2023-04-30", period_end="2023-04-30"),
            DocumentMeta(doc_id="k23", file_name="c.htm", company="NVIDIA CORP",
                         form_type="10-K", period="FY2023", period_end="2023-01-29")]
    assert resolve_scope("NVIDIA's Q1 FY2024 revenue", docs).doc_ids == ["q"]
    assert resolve_scope("NVIDIA's revenue in its latest 10-K", docs).doc_ids == ["k"]


def test_question_forms_and_fiscal_flag():
    assert question_forms("its latest 10-Q and the 10K; the annual report") == ["10-Q", "10-K"]
    periods, _ = question_periods("Q1 FY2024 and Q2 2023")
    assert [(p, p.fiscal) for p in periods] == [(Period(2024, 1), True), (Period(2023, 2), False)]
    assert str(periods[0]) == "Q1 FY2024"


def _steps_cite_their_filings(corpus: Corpus, question: str, expected: list[list[str]]):
    names = _files(corpus)
    record = ResearchService.from_corpus(corpus.settings, corpus, web=None).ask(question)
    assert record.status == "done"
    for attempt in record.history:
        cited = {names[e.split("-")[0]] for e in attempt.evidence_ids}
        assert cited <= set(expected[attempt.step]), (attempt.step, cited)
    used = {names[record.evidence[c.n - 1].doc_id] for c in record.answer.citations}
    assert used and used <= {f for files in expected for f in files}
    return record


def test_a_one_company_step_cites_only_that_companys_filing(corpus):
    record = _steps_cite_their_filings(
        corpus,
        "What competition risks does Northwind describe in its 10-Q? Then, how does Southgate "
        "describe competition in its annual report?",
        [["nwi-20240428.htm"], ["sgl-20231231.htm"]])
    assert [len(s.doc_ids) for s in record.plan] == [1, 1]
    _steps_cite_their_filings(corpus, "What new competition did Northwind report in Q1 FY2025?",
                              [["nwi-20240428.htm"]])


def test_a_step_naming_its_latest_10q_reads_that_companys_10q(corpus):
    record = _steps_cite_their_filings(
        corpus,
        "Based on Northwind's 10-K, identify their key competition risks. Then, explain how "
        "its latest 10-Q describes competition this quarter.",
        [["nwi-20240128.htm"], ["nwi-20240428.htm"]])
    assert "the filing this step names" in record.plan[1].justification


def test_a_step_naming_a_filing_that_is_not_there_keeps_its_referents_filings(corpus):
    from core.retrieval.scope import filings_named

    docs = corpus.documents()
    tenk = [d.doc_id for d in docs if d.file_name == "nwi-20240128.htm"]
    assert filings_named("how did it change in FY2031?", tenk, docs) == ([], "")
    picked, how = filings_named("and in its latest 10-Q?", tenk, docs)
    assert [d.file_name for d in docs if d.doc_id in picked] == ["nwi-20240428.htm"]
