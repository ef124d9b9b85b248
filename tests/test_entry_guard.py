"""``components.entry_guard``: Streamlit routes a fresh server's first run (and AppTest's)
the v1 "pages/ directory" way, so a page opened by its own URL would run without the entry
file (no session defaults, services or sidebar). Every page's first statement is the guard;
these check each page applies it first, and that Streamlit still needs it."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.test_app import TIMEOUT, app_env  # noqa: F401 (app_env is a fixture)

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "pages").glob("*.py"))


def test_every_page_applies_the_guard_before_drawing_anything():
    for page in PAGES:
        lines = page.read_text().splitlines()
        assert "ensure_entry_ran()" in lines, page.name
        before = lines[:lines.index("ensure_entry_ran()")]
        assert not [line for line in before if line.startswith(("st.", "services."))], page.name


@pytest.mark.usefixtures("app_env")
@pytest.mark.parametrize("guarded", [True, False])
def test_the_guard_is_still_needed_for_a_page_routed_the_v1_way(monkeypatch, guarded):
    """AppTest, like a fresh server's first request for /library, runs the page the v1
    way: without the guard the page draws with no entry (no shared sidebar)."""
    if not guarded:
        monkeypatch.setattr("components.entry_guard.ensure_entry_ran", lambda: None)
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=TIMEOUT)
    at.switch_page("pages/library.py")
    at.run()
    assert at.title and at.title[0].value == "Library"
    sidebar_drawn = any(m.label == "Documents" for m in at.sidebar.metric)
    assert sidebar_drawn is guarded
