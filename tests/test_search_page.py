"""The Search page's core (issue 37 item 18): filters read from the corpus, the scope a query
names applied as the CLI applies it (and "search everything"), errors a user can cause said
in words, the query's words marked in a hit with the filing's text escaped first. Wordings
are generated from slots (companies, tickers, case, topics), not one example."""

from __future__ import annotations

import itertools
import re

import pytest

from components.search_view import MARK, marked
from core.app.corpus import Corpus
from core.app.search_page import (
    SearchAsk,
    chosen_docs,
    filter_options,
    query_terms,
    run_search,
    section_key,
    term_spans,
)
from core.foundation.config import Settings
from core.foundation.types import DocumentMeta
from core.store.companies import companies

FILINGS = ("nvda-10k-fy2023.html", "amd-10k-fy2025.htm")
NAMES = {"nvda": ["NVIDIA", "Nvidia", "NVDA", "Nvidia's", "NVIDIA Corporation"],
         "amd": ["AMD", "Advanced Micro Devices", "advanced micro devices", "AMD's"]}
# A one-word name in lower case ("nvidia") is not read as the company: the CLI's scope
# resolver (core.retrieval.scope) keeps it so, and the page applies the scope as it does.
TOPICS = ["export controls", "supply chain risks", "competition", "data center revenue",
          "inventory provisions"]
TEMPLATES = ["{name} {topic}", "What does {name} say about {topic}?", "{topic} at {name}",
             "{topic} ({name})"]


@pytest.fixture(scope="module")
def two(tmp_path_factory, ingested_store):
    from testkit.fakes.embedder import HashEmbedder

    store = ingested_store(tmp_path_factory.mktemp("search") / "store", *FILINGS)
    corpus = Corpus(Settings(data_dir=store, cache_enabled=False, _env_file=None),
                    embedder=HashEmbedder())
    yield corpus
    corpus.close()


def _doc_of(corpus, ticker_prefix: str) -> str:
    return next(d.doc_id for d in corpus.documents() if d.file_name.startswith(ticker_prefix))


@pytest.mark.parametrize("who", list(NAMES))
def test_the_scope_a_query_names_is_applied_and_said(two, who):
    want = _doc_of(two, who)
    for name, topic, template in itertools.product(NAMES[who], TOPICS[:3], TEMPLATES):
        query = template.format(name=name, topic=topic)
        out = run_search(two, SearchAsk(query=query, strategy="keyword", k=5))
        assert not out.error, (query, out.error)
        scope = out.result.scope
        assert scope is not None and scope.doc_ids == [want], (query, scope)
        assert scope.reason and all(h.chunk.doc_id == want for h in out.result.hits), query


def test_search_everything_ignores_the_names_in_the_query(two):
    both = {d.doc_id for d in two.documents()}
    seen: set[str] = set()
    for name in NAMES["nvda"] + NAMES["amd"]:
        out = run_search(two, SearchAsk(query=f"{name} revenue", strategy="keyword", k=40,
                                        everything=True))
        assert not out.error and out.result.scope is None
        seen |= {h.chunk.doc_id for h in out.result.hits}
    assert seen == both


def test_company_form_and_section_filters_narrow_the_hits(two):
    options = filter_options(two.documents(), two.store.sections())
    assert options.forms == ["10-K"] and "Item 1A" in options.sections
    for key, (name, doc_ids) in options.companies.items():
        for section in ("Item 1A", "Item 7"):
            out = run_search(two, SearchAsk(query="revenue risks", companies=[key],
                                            forms=["10-K"], sections=[section], k=8))
            assert not out.error, out.error
            assert out.result.scope is None  # an explicit filter, not the query's names
            assert out.result.hits
            for hit in out.result.hits:
                assert hit.chunk.doc_id in doc_ids and section_key(hit.chunk.section) == section
            assert f"company: {name}" in out.filtered and f"section: {section}" in out.filtered


@pytest.mark.parametrize("strategy", ["hybrid", "vector", "keyword"])
def test_each_strategy_runs_and_says_its_name(two, strategy):
    out = run_search(two, SearchAsk(query="gross margin", strategy=strategy, k=3,
                                    everything=True))
    assert not out.error and out.result.strategy == strategy and len(out.result.hits) == 3


def test_errors_a_user_can_cause_are_said_in_words(two, tmp_path):
    from testkit.fakes.embedder import HashEmbedder

    for blank in ("", "   ", "\n"):
        assert "Type what you are looking for" in run_search(two, SearchAsk(query=blank)).error
    out = run_search(two, SearchAsk(query="risks", forms=["10-Q"]))
    assert "No 10-Q filing" in out.error and "10-K" in out.error and out.result is None
    out = run_search(two, SearchAsk(query="risks", sections=["Item 99"]))
    assert "no section Item 99" in out.error and "clear the section filter" in out.error
    out = run_search(two, SearchAsk(query="risks", companies=["cik:gone"]))
    assert "pick again" in out.error
    empty = Corpus(Settings(data_dir=tmp_path / "empty", cache_enabled=False, _env_file=None),
                   embedder=HashEmbedder())
    try:
        assert "The corpus is empty" in run_search(empty, SearchAsk(query="risks")).error
    finally:
        empty.close()


def _doc(i: int, company: str, form: str) -> DocumentMeta:
    return DocumentMeta(doc_id=f"d{i}", file_name=f"f{i}.htm", company=company,
                        form_type=form, period="FY2024", cik=f"{i % 3:010d}")


def test_filters_offer_each_item_once_whichever_filing_prints_it():
    docs = [_doc(i, f"Filer {i % 3}", form) for i, form in
            enumerate(["10-K", "10-Q", "10-K/A", "10-K", "10-Q", "10-K"])]
    sections = {d.doc_id: (["Item 1A. Risk Factors", "Item 7. Management's Discussion"]
                           if d.form_type.startswith("10-K") else
                           ["Part II — Item 1A. Risk Factors", "Part I — Item 2. MD&A"])
                for d in docs}
    options = filter_options(docs, sections)
    assert options.forms == ["10-K", "10-Q"]  # an amendment counts as its form
    assert list(options.sections) == ["Item 1A", "Item 7", "Item 2"]
    assert options.sections["Item 1A"] == "Item 1A. Risk Factors"
    only_q = filter_options(docs, sections, [d.doc_id for d in docs if d.form_type == "10-Q"])
    assert list(only_q.sections) == ["Item 1A", "Item 2"]
    keys = list(options.companies)
    assert len(keys) == 3
    by_id = {d.doc_id: d for d in docs}
    for key, form in itertools.product(keys, ["10-K", "10-Q"]):
        name, own = options.companies[key]
        want = [i for i in own if by_id[i].form_type.removesuffix("/A") == form]
        ids, problem = chosen_docs(SearchAsk(query="x", companies=[key], forms=[form]),
                                   docs, options)
        if want:
            assert ids == want and not problem
        else:
            assert ids == [] and f"No {form} filing of {name}" in problem
    assert chosen_docs(SearchAsk(query="x"), docs, options) == (None, "")
    _, problem = chosen_docs(SearchAsk(query="x", forms=["8-K"]), docs, options)
    assert "No 8-K filing of the corpus" in problem and "10-K, 10-Q" in problem


WORDS = ["revenue", "export", "competition", "inventory", "Data", "center", "supply"]


@pytest.mark.parametrize("word", WORDS)
def test_query_words_are_marked_as_words_in_any_case_and_number(word):
    text = (f"Our {word.upper()} and {word.lower()}s grew; the {word.capitalize()}'s share "
            f"and pre{word.lower()} and {word.lower()}ful are other words.")
    for query in (word, f"the {word} of NVIDIA", f"{word.lower()}s?", f"What about {word}"):
        terms = query_terms(query)
        assert "the" not in terms and "what" not in terms and "about" not in terms
        found = [text[a:b].lower() for a, b in term_spans(text, terms)
                 if text[a:b].lower().startswith(word.lower())]
        assert found == [word.lower(), word.lower() + "s", word.lower() + "'s"], (query, found)


def test_spans_never_overlap_and_longer_terms_win():
    text = "Data center revenue and data-center revenues; datacenter is not data."
    spans = term_spans(text, query_terms("data center revenue"))
    assert spans == sorted(spans)
    assert all(b <= c for (_, b), (c, _) in itertools.pairwise(spans))
    assert "datacenter" not in [text[a:b].lower() for a, b in spans]


HOSTILE = ["[click](http://evil.test)", "<script>alert(1)</script>", "![x](http://t.test/a.png)",
           "**bold** _it_ `code` # head", ":red[styled] $x$ ~~gone~~", "a | b | c\n---|---"]


@pytest.mark.parametrize("payload", HOSTILE)
def test_marked_text_escapes_the_filing_before_marking(payload):
    text = f"Revenue risk {payload} revenue."
    out = marked(text, term_spans(text, query_terms("revenue risk")))
    inside = re.findall(rf":{MARK}\[(.*?)\]", out)
    assert [w.lower() for w in inside] == ["revenue", "risk", "revenue"]
    rest = re.sub(rf":{MARK}\[.*?\]", "", out)
    assert not re.search(r"(?<!\\)[\[\]()<>*_`#|!$~:]", rest), rest


def test_a_long_hit_is_cut_and_marks_past_the_cut_dropped():
    text = "revenue " * 400
    out = marked(text, term_spans(text, ["revenue"]), limit=100)
    assert out.endswith("…") and out.count(f":{MARK}[") == 13  # 100 chars: 12.5 words


def test_companies_filter_lists_every_filer(two):
    options = filter_options(two.documents(), {})
    assert {name for name, _ in options.companies.values()} == \
        {c.name for c in companies(two.documents())}
