"""Pages are routed by ``st.navigation`` from ``app_pages/`` (``components.navigation``):
no folder Streamlit auto-discovers, no private Streamlit flag, no page re-running the entry
file. A page opened by its own URL still runs inside the entry (session defaults, services,
the shared sidebar), and the URLs users know keep their paths."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components import navigation
from tests.test_app import TIMEOUT, app_env, texts  # noqa: F401 (app_env is a fixture)

ROOT = Path(__file__).resolve().parent.parent
URLS = ["research", "search", "compare", "runs", "evaluate", "library", "peers", "settings"]


def test_no_auto_discovered_pages_folder_and_no_private_streamlit_hooks():
    assert not (ROOT / "pages").exists()  # Streamlit would route a fresh server the v1 way
    for path in [ROOT / "streamlit_app.py", *(ROOT / "app_pages").glob("*.py"),
                 *(ROOT / "components").glob("*.py")]:
        text = path.read_text(encoding="utf-8")
        assert "PagesManager" not in text and "exec(" not in text, path.name


def test_every_page_file_is_in_the_navigation_with_the_url_users_know():
    declared = [name for entries in navigation.SECTIONS.values() for name, _ in entries]
    on_disk = sorted(p.name for p in (ROOT / navigation.FOLDER).glob("*.py"))
    assert sorted(declared) == on_disk

    def app():  # st.Page needs a script run
        import streamlit as st

        from components import navigation

        for section in navigation.pages().values():
            for page in section:
                st.text(f"{page.title}|{page._url_path}|{page.url_path}")

    at = AppTest.from_function(app, default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    rows = [t.value.split("|") for t in at.text]
    assert [r[1] for r in rows] == URLS  # /research, /compare, ... as before the move
    assert [r[0] for r in rows if r[2] == ""] == ["Research"]  # the default, also at "/"


@pytest.mark.usefixtures("app_env")
@pytest.mark.parametrize("page,title", [("app_pages/library.py", "Library"),
                                        ("app_pages/settings.py", "Settings")])
def test_a_page_opened_by_its_url_runs_inside_the_entry(page, title):
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=TIMEOUT)
    at.switch_page(page)  # like a fresh server's first request for /library
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title and at.title[0].value == title
    assert any(m.label == "Documents" for m in at.sidebar.metric)  # the shared sidebar
    assert "Deep Filings" in texts(at)
