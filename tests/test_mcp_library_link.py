"""A citation's ``library_url`` opens the cited chunk in the dashboard's Library: the link a
client receives, followed in the app (AppTest, through the entry file), shows that chunk's
filing and section with the chunk in focus."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from components import keys
from components.navigation import url_paths
from tests.test_app import APP, TIMEOUT, app_env, ok  # noqa: F401  (app_env: a fixture)
from tests.test_mcp_kit import FILINGS, call, make_server
from tests.test_mcp_kit import ok as structured


def test_a_citations_library_link_opens_its_chunk_in_the_library(app_env,  # noqa: F811
                                                                ingested_store):
    from streamlit.testing.v1 import AppTest

    store = ingested_store(app_env / "store", *FILINGS)
    srv, service = make_server(store)
    try:
        figure = structured(call(srv, "figure", {"company": "AMD", "metric": "net income"}))
    finally:
        service.close()
    cite = figure["citations"][0]
    link = urlsplit(cite["library_url"])
    assert link.path.strip("/") in url_paths()  # a page of the dashboard: the Library
    at = ok(AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    at.query_params["chunk"] = parse_qs(link.query)["chunk"][0]
    ok(at.switch_page(f"app_pages/{link.path.strip('/')}.py").run())
    assert at.session_state[keys.LIB_FOCUS_CHUNK] == cite["chunk_id"]
    assert at.session_state[keys.LIB_BROWSE_DOC] == cite["doc_id"]
    assert at.session_state[keys.LIB_BROWSE_SECTION] == cite["section"]
