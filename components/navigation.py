"""The app's pages, declared once: the entry file routes them with ``st.navigation``.

Page scripts live in ``app_pages/``, not in a folder named ``pages/``: Streamlit
auto-discovers ``pages/`` and routes a fresh server's first request (and every
AppTest run) the legacy way, without the entry file, so there would be no session
defaults, services or sidebar. Each page's URL is its file name (``/library``,
``/runs``, ...); Research, the default page, is the root URL (``serve.py`` redirects
``/research`` there). Links and ``st.switch_page`` name a
page by its path relative to the entry file (e.g. ``"app_pages/library.py"``).
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

ROOT = Path(__file__).resolve().parent.parent
FOLDER = "app_pages"

SECTIONS: dict[str, list[tuple[str, str]]] = {
    "Research": [("research.py", "Research"), ("search.py", "Search"), ("compare.py", "Compare"),
                 ("runs.py", "Runs"), ("evaluate.py", "Evaluate")],
    "Corpus": [("library.py", "Library"), ("peers.py", "Peers"), ("settings.py", "Settings")],
}
DEFAULT = "research.py"


def url_paths() -> list[str]:
    """Each page's name in a URL (``research``, ``compare``, ...): its file name without
    ``.py``. Streamlit serves the default page (Research) at the root, not at its name."""
    return [Path(name).stem for entries in SECTIONS.values() for name, _ in entries]


def pages() -> dict[str, list[st.Page]]:
    """The navigation's sections of ``st.Page`` objects (Research the default)."""
    return {section: [st.Page(ROOT / FOLDER / name, title=title, default=name == DEFAULT)
                      for name, title in entries]
            for section, entries in SECTIONS.items()}
