"""Make every page run through the entry file, even when Streamlit routes it the v1 way.

Streamlit decides per process (and AppTest per run) whether the app is a v1
"pages/ directory" app: while a ``pages/`` folder exists, the first script run
of a fresh server (and every AppTest run) is routed the v1 way, and a page such
as ``/library`` or ``/?thread=...`` after a restart would run *without*
``streamlit_app.py``: no session defaults, no services, no sidebar. The entry's
``st.navigation`` clears that flag; a page that finds it still set runs the
entry inline (which routes back to this page), then stops the v1 run. Doing it
in the same run keeps the click or upload that started the run.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

ENTRY = Path(__file__).resolve().parent.parent / "streamlit_app.py"


def ensure_entry_ran() -> None:
    """Run the entry file (and through it this page) when v1 auto-discovery started us."""
    from streamlit.runtime.pages_manager import PagesManager

    if not PagesManager.uses_pages_directory:
        return
    PagesManager.uses_pages_directory = False
    code = compile(ENTRY.read_text(encoding="utf-8"), str(ENTRY), "exec")
    exec(code, {"__name__": "__main__", "__file__": str(ENTRY)})  # noqa: S102
    st.stop()
