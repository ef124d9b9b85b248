"""The sidebar's activity clock (``components.sidebar.draw_ticker``) in a real browser, on a
small app of its own: it reruns its fragment while the app is idle, and never while a run
the analyst started is in flight, so a value that run sets is not set back by a tick that
left the browser before the run answered (what ``st.fragment(run_every=...)`` did: a
figure's opened source closed again now and then)."""

from __future__ import annotations

import os
import re

import pytest

from tests.browser_kit import CHROMIUM, ROOT, browser_page, settle, streamlit_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

APP = f'''
import sys
import time

sys.path.insert(0, {str(ROOT)!r})
import streamlit as st

from components.sidebar import draw_ticker

st.session_state.setdefault("ticks", 0)


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
st.caption(f"picked {{st.session_state.get('pick')}} with {{st.session_state.get('row')}}")
'''


def _shows(pg, text: str, timeout_s: float = 60) -> None:
    """Wait until the page shows ``text``; fail with what it shows instead."""
    for _ in range(int(timeout_s * 5)):
        if text in pg.locator("body").inner_text():
            return
        pg.wait_for_timeout(200)
    raise AssertionError(f"{text!r} not shown: {pg.locator('body').inner_text()!r}")


def _click(pg, target) -> None:
    """Point at ``target``, then click it, as an analyst does: the clock holds still once
    the mouse moves, so no tick is in flight when the click lands."""
    target.hover()
    pg.wait_for_timeout(150)
    target.click()


def _ticks(pg) -> int:
    return int(re.search(r"ticks (\d+)", pg.locator("body").inner_text()).group(1))


def test_the_clock_ticks_when_idle_and_never_undoes_a_run(tmp_path):
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed (apt-get install chromium)")
    script = tmp_path / "clock_app.py"
    script.write_text(APP)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DTR_")}
    env.update(HF_HUB_OFFLINE="1")
    with streamlit_server(script, tmp_path, env) as base, browser_page(base) as pg:
        pg.goto(base)
        _shows(pg, "picked None with None")
        settle(pg)
        first = _ticks(pg)
        pg.wait_for_timeout(2500)
        assert _ticks(pg) > first  # idle: the fragment reruns on its own
        for _ in range(3):
            _click(pg, pg.get_by_role("button", name="Open B"))
            _shows(pg, "picked B with row of B")
            settle(pg)
            pg.wait_for_timeout(1500)  # ticks meanwhile
            _click(pg, pg.get_by_role("button", name="Redraw"))
            pg.wait_for_timeout(300)
            settle(pg)
            text = pg.locator("body").inner_text()
            assert "picked B with row of B" in text, text  # neither set back nor cleared
            _click(pg, pg.locator('[data-testid="stButtonGroup"] button').filter(
                has_text=re.compile(r"^A$")))  # the analyst's own choice
            _shows(pg, "picked A with None")
            settle(pg)
        assert pg.outside_requests == []
