"""What the browser tests share: the app served as `make run` starts it (`streamlit run
serve.py`) on a free 127.0.0.1 port with its corpus in a temporary folder and a local
Tavily-compatible server, a headless Debian chromium page on it (every request kept on
127.0.0.1), and the helpers that drive Streamlit's widgets (wait for an idle page, navigate,
upload filings, choose options, take screenshots).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.waiting import CEILING_S, GATE_S

ROOT = Path(__file__).resolve().parent.parent
SERVE = ROOT / "serve.py"  # what `make run` starts: streamlit_app.py behind st.App
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts"
SHOTS = ARTIFACTS / "screenshots"
SHARED = ROOT.parent / "shared" / "filings"
REAL = [SHARED / "nvda-10k-fy2023.html", SHARED / "amd-10k-fy2025.htm"]
SAMPLE = ROOT / "data" / "sample" / "northwind-10k-fy2024.htm"
NVDA_FIXTURE = ROOT / "tests" / "fixtures" / "figures" / "nvda-10k-fy2023.html.gz"
NVDA_QUESTION = ("What was NVIDIA's total revenue in fiscal 2023 and how did it change from "
                 "fiscal 2022?")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
LONG = 600_000  # ms: ingesting two real 10-Ks on a busy 2-core machine
# The app's own state, never time: its run state (the status widget shows half a second
# late) and, where the sidebar's clock is drawn, a run it asked for that has not come yet
# (components.sidebar.TICKER_JS keeps that record).
RUN_STATE = ("document.querySelector('[data-testid=\"stApp\"]')"
             "?.getAttribute('data-test-script-state')")
CLOCK_STILL = "!window.__dfActivityInput?.pending?.()"  # no tick (or click) unanswered
NOTHING_IN_FLIGHT = (f"() => {RUN_STATE} === 'notRunning'"
                     " && !document.querySelector('[data-testid=\"stStatusWidget\"]')"
                     f" && {CLOCK_STILL}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _held_tavily():
    from testkit.fakes.http_base import Response
    from testkit.fakes.tavily_server import FakeTavilyServer

    class HeldTavily(FakeTavilyServer):
        """The fake Tavily, and ``hold()``: the next search waits until the test opens the
        gate it returns (a slow search service whose end the test decides, where a delay
        would race a busy machine)."""

        def __init__(self):
            self._gates: dict[int, threading.Event] = {}
            super().__init__()

        def hold(self) -> threading.Event:
            reply, gate = Response(200, {"results": []}), threading.Event()
            self._gates[id(reply)] = gate
            with self._qlock:
                self._queue.append(reply)
            return gate

        def handle(self, method, path, body):
            reply = super().handle(method, path, body)
            gate = self._gates.get(id(reply))
            if gate is not None:
                gate.wait(GATE_S)
            return reply

        def close(self) -> None:
            for gate in self._gates.values():
                gate.set()
            super().close()

    return HeldTavily()


@pytest.fixture
def tavily():
    with _held_tavily() as server:
        yield server


@contextmanager
def streamlit_server(script: Path, cwd: Path, env: dict[str, str]) -> Iterator[str]:
    """`streamlit run script` on a free 127.0.0.1 port (its log in ``cwd``); yields its
    base URL once it answers, stops it afterwards."""
    port = _free_port()
    config = cwd / ".streamlit" / "config.toml"  # read from the working folder: `make run`'s
    config.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / ".streamlit" / "config.toml", config)
    log_path = cwd / "server.log"
    log = log_path.open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(script), "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true",
         "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"],
        cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + CEILING_S  # a bound on waiting for it to answer
        while True:
            try:
                with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("streamlit did not start:\n" + log_path.read_text()[-3000:])
            time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        log.close()


@pytest.fixture
def server(tmp_path, tavily):
    """`streamlit run serve.py` on a free port with a temporary corpus; yields its base URL."""
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed (apt-get install chromium)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DTR_")}
    env.update(DTR_DATA_DIR=str(tmp_path / "store"), HF_HUB_OFFLINE="1",
               LANGSMITH_TRACING="false", OMP_WAIT_POLICY="PASSIVE",
               TOKENIZERS_PARALLELISM="false", DTR_WEB_PROVIDER="snapshot",
               DTR_TAVILY_API_KEY="tvly-test", DTR_TAVILY_BASE_URL=tavily.url,
               DTR_TAVILY_TIMEOUT_S=str(2 * GATE_S))  # a held search ends when the test says
    with streamlit_server(SERVE, tmp_path, env) as base:
        yield base


@contextmanager
def browser_page(base: str) -> Iterator:
    """A headless Debian chromium page on ``base``; every request beyond 127.0.0.1 is
    refused and listed in ``page.outside_requests``."""
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    outside: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1440, "height": 1000})

        def guard(route):
            host = urlparse(route.request.url).hostname
            if route.request.url.startswith(("data:", "blob:")) or host == "127.0.0.1":
                route.continue_()
            else:
                outside.append(route.request.url)
                route.abort()

        context.route("**/*", guard)
        pg = context.new_page()
        pg.set_default_timeout(120_000)
        pg.base_url = base  # type: ignore[attr-defined]
        pg.outside_requests = outside  # type: ignore[attr-defined]
        try:
            yield pg
        finally:
            context.close()
            browser.close()


@pytest.fixture
def page(server):
    with browser_page(server) as pg:
        yield pg


# --- helpers -----------------------------------------------------------------------------


def shot(pg, name: str, *, full: bool = True) -> Path:
    """Screenshot (the whole page: Streamlit scrolls inside its main block, not the body)."""
    pg.wait_for_timeout(600)
    path = SHOTS / f"{name}.png"
    if not full:
        pg.screenshot(path=str(path))
        return path
    measure = ("Math.max(1000, ...Array.from(document.querySelectorAll('[data-testid]'),"
               " (e) => e.scrollHeight))")
    height = 0
    for _ in range(4):  # grow the viewport until the content stops growing
        new = min(int(pg.evaluate(measure)) + 40, 9000)
        if new <= height:
            break
        height = new
        pg.set_viewport_size({"width": 1440, "height": height})
        pg.wait_for_timeout(600)
    pg.screenshot(path=str(path))
    pg.set_viewport_size({"width": 1440, "height": 1000})
    return path


def settle(pg, timeout_ms: int = LONG) -> None:
    """Wait until the app is idle: no script run in progress, none asked for by the clock's
    record. A caller that clicked waits for what the click shows first (a heading, a
    text): until its run has begun the browser cannot know one is coming."""
    pg.wait_for_function(NOTHING_IN_FLIGHT, timeout=timeout_ms)


def click(pg, target) -> None:
    """Click ``target`` as an analyst does, pointing first: the button goes down, the
    sidebar's clock holds still while it is down, a run already in flight (a tick of the
    clock) comes back, then the button comes up. A click that meets a tick's fragment run
    can be lost (Streamlit); this one never meets one, however busy the machine. (A page
    run may go on meanwhile: a page following a job runs until the job ends.)"""
    target.hover()
    pg.mouse.down()
    try:
        pg.wait_for_function(f"() => {CLOCK_STILL}", timeout=LONG)
    finally:
        pg.mouse.up()


# The Library's filings uploader, by its key: the page holds other uploaders too (the web
# snapshot's saved page and JSON results), and which comes first in the DOM is not fixed.
FILINGS_UPLOADER = '[class*="st-key-lib_uploader_"] [data-testid="stFileUploaderDropzoneInput"]'


def upload_filings(pg, files) -> None:
    """Put ``files`` (paths) into the Library's filings uploader."""
    box = pg.locator(FILINGS_UPLOADER)
    box.wait_for(state="attached", timeout=LONG)
    box.set_input_files([str(f) for f in files])


def body(pg) -> str:
    return pg.locator("body").inner_text()


def nav(pg, title: str) -> None:
    """Open page ``title`` by its sidebar link, pointing at it first as an analyst does
    (``click``: never while the sidebar's activity clock has a tick in flight)."""
    click(pg, pg.get_by_role("link", name=title, exact=True))
    pg.get_by_role("heading", name=title, exact=True).first.wait_for()


def cards(pg):
    """The plan's step cards, in order."""
    return pg.locator('[class*="st-key-plan_"][class*="_card_"]')


def select(pg, label: str, option: str, tries: int = 3) -> None:
    """Choose ``option`` in the selectbox labelled ``label`` once the page is idle; a
    dropdown that a rerun closed before the option showed is opened again."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    box = pg.locator('[data-testid="stSelectbox"]').filter(has_text=label).first
    choice = pg.get_by_role("option", name=option, exact=True)
    for attempt in range(tries):
        settle(pg)
        box.click()
        try:
            choice.wait_for(timeout=10_000)
        except PlaywrightTimeout:
            if attempt == tries - 1:
                raise
            pg.keyboard.press("Escape")
            continue
        choice.click()
        return


def pick(pg, container, label: str, option: str) -> None:
    """Choose ``option`` in the multiselect labelled ``label`` inside ``container``."""
    box = container.locator('[data-testid="stMultiSelect"]').filter(has_text=label).first
    box.locator("input").click()
    pg.get_by_role("option").filter(has_text=option).first.click()
    pg.keyboard.press("Escape")


def companies_box(card):
    """A plan card's "Companies / filings" multiselect, once drawn (after a reload the card
    can be on screen before all its fields are)."""
    box = card.locator('[data-testid="stMultiSelect"]').filter(has_text="Companies / filings")
    box.first.wait_for()
    return box.first


def answer_done(pg) -> None:
    """Wait until the finished run is on screen (answer first, actions below it)."""
    pg.get_by_role("button", name="Export Markdown").first.wait_for(timeout=LONG)
    settle(pg)


def make_pdf_filing(path: Path) -> Path:
    from tests.test_cited_render import PAGES, make_pdf

    path.write_bytes(make_pdf(PAGES))
    return path


# --- the walk-through ------------------------------------------------------------------------
