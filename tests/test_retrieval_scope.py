"""Company and period resolution: which filings a question is about."""

from __future__ import annotations

from core.foundation.types import DocumentMeta
from core.retrieval.names import aliases_for, file_name_words
from core.retrieval.scope import Period, question_periods, resolve_scope


def doc(doc_id: str, company: str = "unknown", file_name: str = "", period: str = "unknown",
        ticker: str = "", period_end: str = "", former: tuple[str, ...] = ()) -> DocumentMeta:
    return DocumentMeta(doc_id=doc_id, file_name=file_name or f"{doc_id}.pdf", company=company,
                        period=period, ticker=ticker, period_end=period_end,
                        former_names=list(former))


CORPUS = [
    doc("mmm18", "3M COMPANY", "3M_2018_10K.pdf", "FY2018", "MMM"),
    doc("mmm22", "3M COMPANY", "3M_2022_10K.pdf", "FY2022", "MMM"),
    doc("jnj22", "Johnson & Johnson", "JOHNSON_JOHNSON_2022_10K.pdf", "FY2022", "JNJ"),
    doc("amzn17", "AMAZON.COM, INC.", "AMAZON_2017_10K.pdf", "FY2017", "AMZN"),
    doc("mgm23", "unknown", "MGMRESORTS_2023Q2_10Q.pdf"),
    doc("blk", "Block, Inc.", "BLOCK_2022_10K.pdf", "FY2022", "SQ"),
    doc("nv1", "NVIDIA CORP", "2023 Q1 NVDA.pdf", "2024-Q1", "NVDA", "2023-04-30"),
    doc("nv3", "NVIDIA CORPORATION", "2023 Q3 NVDA.pdf", "2024-Q3", "NVDA", "2023-10-29"),
    doc("cola", "THE COCA-COLA COMPANY", "COCACOLA_2021_10K.pdf", "FY2021", "KO",
        former=("Coca-Cola Co",)),
]


def ids(question: str) -> list[str] | None:
    return resolve_scope(question, CORPUS).doc_ids


def test_company_names_tickers_initials_and_file_names_resolve():
    assert set(ids("Is 3M a capital-intensive business?")) == {"mmm18", "mmm22"}
    assert ids("How did JnJ's US sales growth compare?") == ["jnj22"]
    assert ids("What did J&J say about talc?") == ["jnj22"]
    assert ids("What is MMM's dividend?") is not None
    assert ids("What is the debt of Coca-Cola?") == ["cola"]
    assert ids("Which region had the highest EBITDAR for MGM?") == ["mgm23"]
    assert ids("Amazon.com's revenue by segment") == ["amzn17"]


def test_generic_words_do_not_name_companies():
    # "com" of AMAZON.COM, "block" as an English word, lower-case tickers and "company".
    assert ids("Compare the company's capital allocation with peers") is None
    assert ids("a block of shares was sold; what happened?") is None
    assert ids("what does the mmm line mean") is None
    assert set(ids("Block's bitcoin revenue in FY2022") or []) == {"blk"}


def test_periods_narrow_to_the_filing_of_that_year_or_quarter():
    assert ids("What is the FY2018 capital expenditure amount for 3M?") == ["mmm18"]
    assert ids("3M's operating margin in fiscal 2022") == ["mmm22"]
    assert ids("3M revenue in FY2019?") == ["mmm18", "mmm22"]  # no FY2019 filing: all of 3M's
    assert ids("NVIDIA's data center revenue in Q3 2023") == ["nv3"]
    assert ids("In NVIDIA's most recent 10-Q, what changed?") == ["nv3"]
    scope = resolve_scope("What is the FY2018 capex for 3M?", CORPUS)
    assert scope.companies == ["3M COMPANY"] and scope.periods == ["FY2018"]
    assert "3M" in scope.reason and "1 of 9 filings" in scope.reason


def test_question_periods():
    periods, latest = question_periods("Q2 of FY2024 vs FY 2023, and 2021; Q3'23; 2022 Q4")
    assert set(periods) == {Period(2024, 2), Period(2023), Period(2021), Period(2023, 3),
                            Period(2022, 4)}
    assert not latest
    assert question_periods("second quarter of fiscal 2023")[0] == [Period(2023, 2)]
    assert question_periods("in the latest quarter")[1]
    assert question_periods("revenue of $2,019 million")[0] == []


def test_aliases_and_file_name_words():
    found = aliases_for("Johnson & Johnson", "JNJ_2022_10K.pdf", "JNJ")
    assert {a.key for a in found if a.strength == "name"} == {"johnsonandjohnson", "johnsonjohnson"}
    assert {a.key for a in found if a.strength == "initials"} >= {"jj", "jnj"}
    assert {a.key for a in found if a.strength == "ticker"} == {"jnj"}
    amazon = {(a.key, a.strength) for a in aliases_for("AMAZON.COM, INC.")}
    assert amazon == {("amazoncom", "name"), ("amazon", "word")}
    assert file_name_words("JOHNSON_JOHNSON_2022Q4_EARNINGS.pdf") == ["johnson", "johnson"]
    assert file_name_words("2023 Q3 AAPL.pdf") == ["aapl"]
    assert file_name_words("nvda-10k-fy2023.html") == ["nvda"]


def test_a_name_written_with_an_ampersand_is_named_whole():
    from core.retrieval.scope import match_companies

    docs = [*CORPUS, doc("pg25", "PROCTER & GAMBLE CO", "pg-10-k-2025.html", "FY2025", "PG")]
    for question, words in [
            ("Was Johnson & Johnson's free cash flow positive?", "Johnson & Johnson"),
            ("Did Procter & Gamble's revenue grow?", "Procter & Gamble"),
            ("Did Procter and Gamble's revenue grow?", "Procter and Gamble")]:
        found = match_companies(question, docs)
        assert list(found) == [words], question  # the whole name, not its first word
    assert ids("Was Johnson & Johnson's free cash flow positive?") == ["jnj22"]
