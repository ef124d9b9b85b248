"""The Search page through the entry file (AppTest): the scope a query names said with a way
to search everything, hits with company, section, page, score and the query's words marked,
filters, errors a user can act on, and a hit opened in its filing in the Library. Real
NVIDIA and AMD 10-Ks ingested (hash embedder stands in for MiniLM)."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from components import keys
from components import search_view as view
from tests.test_app import APP, TIMEOUT, app_env, ok, texts  # noqa: F401 (app_env: fixture)

pytestmark = pytest.mark.usefixtures("app_env")
FILINGS = ("nvda-10k-fy2023.html", "amd-10k-fy2025.htm")
NAMES = {"NVIDIA CORP": ["NVIDIA", "NVDA"],
         "ADVANCED MICRO DEVICES, INC.": ["AMD", "Advanced Micro Devices"]}


@pytest.fixture
def loaded(app_env, ingested_store):  # noqa: F811
    ingested_store(app_env / "store", *FILINGS)
    return app_env


def _search(at: AppTest | None = None) -> AppTest:
    at = at or ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    return ok(at.switch_page("app_pages/search.py").run())


def _hits(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if re.match(r"\*\*\d+\.\*\* ", m.value)]


def test_empty_corpus_says_where_to_add_filings():
    at = _search()
    assert "The corpus is empty" in texts(at) and not at.text_input


@pytest.mark.parametrize("company", list(NAMES))
def test_a_query_naming_a_company_searches_its_filings_and_says_so(loaded, company):
    at = _search()
    for name, topic in zip(NAMES[company], ["export controls", "competition risks"],
                           strict=True):
        ok(at.text_input(key=view.SEARCH_QUERY).input(f"{name} {topic}").run())
        said = " ".join(i.value for i in at.info)
        assert "Searched only the filings the query names" in said, said
        assert company.split()[0] in said.replace("\\", "")
        hits = _hits(at)
        assert hits and all(company.split()[0] in h.replace("\\", "") for h in hits)
        assert all(re.search(r"p\\?\. \d+", h) and "score" in h for h in hits)
        body = "\n".join(m.value for m in at.markdown)
        assert f":{view.MARK}[" in body  # the query's words marked in the text
    ok(at.button(key="search_all").click().run())
    assert at.checkbox(key=view.SEARCH_ALL).value is True
    assert "Searched only" not in " ".join(i.value for i in at.info)
    names = {h.replace("\\", "").split(" · ")[0].split("** ", 1)[1] for h in _hits(at)}
    assert names  # every filing searched: hits may come from either company


def test_company_and_form_filters_and_their_messages(loaded):
    at = _search()
    ok(at.text_input(key=view.SEARCH_QUERY).input("revenue").run())
    options = at.multiselect(key=view.SEARCH_COMPANIES).options
    assert len(options) == 2
    for choice in options:
        ok(at.multiselect(key=view.SEARCH_COMPANIES).set_value([choice]).run())
        hits = _hits(at)
        assert hits and len({h.split(" · ")[0].split("** ", 1)[1] for h in hits}) == 1
        assert "company: " in texts(at)
    ok(at.multiselect(key=view.SEARCH_FORMS).select("10-K").run())
    assert _hits(at)
    ok(at.text_input(key=view.SEARCH_QUERY).input("").run())
    ok(at.button(key="search_go").click().run())
    assert "Type what you are looking for" in " ".join(w.value for w in at.warning)


def test_a_hit_opens_in_its_filing_in_the_library(loaded):
    at = _search()
    ok(at.text_input(key=view.SEARCH_QUERY).input("NVIDIA export controls").run())
    outcome = at.session_state[view.SEARCH_DONE][2]
    first = outcome.result.hits[0].chunk
    opened = [b for b in at.button if b.label == "Open in the Library"]
    assert len(opened) == len(outcome.result.hits)
    ok(opened[0].click().run())
    assert at.title[0].value == "Library"
    chunk = at.query_params["chunk"]
    assert (chunk[0] if isinstance(chunk, list) else chunk) == first.chunk_id
    assert at.session_state[keys.LIB_FOCUS_CHUNK] == first.chunk_id
    assert at.session_state[keys.LIB_BROWSE_DOC] == first.doc_id
    assert at.session_state[keys.LIB_BROWSE_SECTION] == first.section
    assert any(first.chunk_id in c.value for c in at.caption)  # the chunk is on screen
