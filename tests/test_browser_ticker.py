"""The sidebar's activity clock (``components.sidebar.draw_ticker``) in a real browser, on a
small app of its own: it reruns its fragment while the app is idle, and never while a run
the analyst started is in flight, so a value that run sets is not set back by a tick that
left the browser before the run answered (what ``st.fragment(run_every=...)`` did: a
figure's opened source closed again now and then; and what this clock did on a busy
machine while it knew a run had started only from the status the server sends back).

Every wait is on the page's own state (the app's run state, the clock's pending ask, the
counters the app shows), never on time: a busy machine makes it slower, not different.
"""

from __future__ import annotations

import os
import re

import pytest

from tests.browser_kit import (
    CHROMIUM,
    NOTHING_IN_FLIGHT,
    ROOT,
    browser_page,
    click,
    streamlit_server,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CEILING = 120_000  # ms: a bound on waiting for a state, never a measure of time

APP = f'''
import sys
import time

sys.path.insert(0, {str(ROOT)!r})
import streamlit as st

from components.sidebar import draw_ticker

st.session_state.setdefault("ticks", 0)
st.session_state.setdefault("runs", 0)
st.session_state.runs += 1  # the page's runs (a tick reruns the fragment only)


@st.fragment
def clock():
    st.session_state.ticks += 1
    st.caption(f"ticks {{st.session_state.ticks}}")
    draw_ticker(0.2, key="clock", quiet=0.3)


clock()


def opened():  # as a figure's source opens its citation with the fact's row
    st.session_state["pick"] = "B"
    st.session_state["row"] = "row of B"


st.button("Open B", on_click=opened)
st.button("Redraw")
time.sleep(1.5)  # a slow run (many ticks' worth) before it draws the value it set
st.pills("Pick", ["A", "B"], key="pick", on_change=lambda: st.session_state.pop("row", None))
st.caption(f"run {{st.session_state.runs}}: picked {{st.session_state.get('pick')}} with "
           f"{{st.session_state.get('row')}}")
'''

# Idle: the app is not running, no run asked for (a click, a tick) is unanswered and no
# mouse button is down (the clock's own record: components.sidebar.TICKER_JS).
IDLE = f"() => ({NOTHING_IN_FLIGHT})() && !window.__dfActivityInput?.held?.()"
SHOWS = "(text) => document.body.innerText.includes(text)"
TICKS_AT_LEAST = ("(n) => { const m = document.body.innerText.match(/ticks (\\d+)/);"
                  " return !!m && Number(m[1]) >= n; }")


def _until(pg, predicate: str, arg=None, what: str = "") -> None:
    """Wait until ``predicate`` holds on the page; fail with what the page shows."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        pg.wait_for_function(predicate, arg=arg, timeout=CEILING)
    except PlaywrightTimeout:
        raise AssertionError(f"{what or predicate} never came: "
                             f"{pg.locator('body').inner_text()!r}") from None


def _shown(pg, text: str) -> None:
    """Wait until the page shows ``text`` and nothing is in flight."""
    _until(pg, SHOWS, text, repr(text))
    _until(pg, IDLE, what="an idle page")


def _ticks(pg) -> int:
    return int(re.search(r"ticks (\d+)", pg.locator("body").inner_text()).group(1))


def _runs(pg) -> int:
    return int(re.search(r"run (\d+):", pg.locator("body").inner_text()).group(1))


def test_the_clock_ticks_when_idle_and_never_undoes_a_run(tmp_path):
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed (apt-get install chromium)")
    script = tmp_path / "clock_app.py"
    script.write_text(APP)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DTR_")}
    env.update(HF_HUB_OFFLINE="1")
    with streamlit_server(script, tmp_path, env) as base, browser_page(base) as pg:
        pg.goto(base)
        _shown(pg, "picked None with None")
        _until(pg, TICKS_AT_LEAST, _ticks(pg) + 2, "ticks while idle")  # it reruns on its own
        for _ in range(3):
            runs = _runs(pg)
            click(pg, pg.get_by_role("button", name="Open B"))
            _shown(pg, f"run {runs + 1}: picked B with row of B")
            _until(pg, TICKS_AT_LEAST, _ticks(pg) + 3, "ticks after the run")
            click(pg, pg.get_by_role("button", name="Redraw"))
            _shown(pg, f"run {runs + 2}: ")
            text = pg.locator("body").inner_text()
            assert f"run {runs + 2}: picked B with row of B" in text, text  # not set back
            click(pg, pg.locator('[data-testid="stButtonGroup"] button').filter(
                has_text=re.compile(r"^A$")))  # the analyst's own choice
            _shown(pg, f"run {runs + 3}: picked A with None")
        assert pg.outside_requests == []
