"""The walk-through in a real browser: Playwright drives Debian's chromium against the app as
`make run` starts it (`streamlit run serve.py`).

The server runs on a free 127.0.0.1 port with its corpus in a temporary folder, no LLM
key (offline engine), the real bundled embedder, the bundled web snapshot, and a local
Tavily-compatible server (used only for the cancel step, where its reply is slow). By
default the filings are the project's sample filing and a small PDF filing made here (a
few minutes in all); with E2E_REAL_FILINGS=1 they are NVIDIA's and AMD's 10-Ks from
../shared/filings (the timings the project reports are measured on them), and the PDF
is uploaded after the timed pair so a cited page is still shown as filed. Every request the page
makes must stay on 127.0.0.1. Screenshots of each step go to test-artifacts/screenshots/,
timings to test-artifacts/timings.json (printed, never asserted).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest

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

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def tavily():
    from testkit.fakes.tavily_server import FakeTavilyServer

    with FakeTavilyServer() as server:
        yield server


@pytest.fixture
def server(tmp_path, tavily):
    """`streamlit run serve.py` on a free port with a temporary corpus; yields its base URL."""
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed (apt-get install chromium)")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DTR_")}
    env.update(DTR_DATA_DIR=str(tmp_path / "store"), HF_HUB_OFFLINE="1",
               LANGSMITH_TRACING="false", OMP_WAIT_POLICY="PASSIVE",
               TOKENIZERS_PARALLELISM="false", DTR_WEB_PROVIDER="snapshot",
               DTR_TAVILY_API_KEY="tvly-test", DTR_TAVILY_BASE_URL=tavily.url)
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(SERVE), "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true",
         "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"],
        cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("streamlit did not start:\n"
                                   + (tmp_path / "server.log").read_text()[-3000:])
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
def page(server):
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
        pg.base_url = server  # type: ignore[attr-defined]
        pg.outside_requests = outside  # type: ignore[attr-defined]
        yield pg
        context.close()
        browser.close()


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


def settle(pg, timeout_ms: int = 300_000) -> None:
    """Wait until the app is idle (no script run in progress)."""
    pg.wait_for_timeout(400)
    pg.wait_for_function(
        "!document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=timeout_ms)


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
    pg.get_by_role("link", name=title, exact=True).click()
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


def test_walkthrough_in_a_real_browser(page, tmp_path, tavily):
    pg = page
    base = pg.base_url
    timings: dict[str, float] = {}
    shots: list[Path] = []
    real = os.environ.get("E2E_REAL_FILINGS") == "1"
    if real and not all(p.is_file() for p in REAL):
        pytest.skip(f"E2E_REAL_FILINGS=1 needs {', '.join(str(p) for p in REAL)}")
    pdf = make_pdf_filing(tmp_path / "acme-widgets-10k.pdf")
    files = REAL if real else [SAMPLE, pdf]  # a fresh clone: the sample and the PDF at once
    first_company, second_company = ("NVIDIA", "ADVANCED MICRO DEVICES") if real else (
        "Northwind", "acme-widgets")
    question = (
        "Based on NVIDIA's 2023 10-K filing, identify their key risks related to competition. "
        "Then, find recent news (post-filing, from 2024) about AMD's AI chip strategy and "
        "explain how this new strategy directly addresses or exacerbates one of NVIDIA's "
        "stated risks.") if real else (
        "Based on Northwind Semiconductor's 10-K, identify their key risks related to "
        "competition. Then, find recent news from 2024 about AMD's AI chip strategy and explain "
        "how it addresses or exacerbates one of those risks.")

    # --- 1. upload -> ready, with progress, while other pages stay usable ----------------
    pg.goto(f"{base}/library")
    pg.get_by_role("heading", name="Your corpus is empty").wait_for()
    upload_filings(pg, files)
    t0 = time.perf_counter()
    pg.get_by_role("button", name="Ingest files").click()
    pg.get_by_role("heading", name="Ingesting").wait_for()
    pg.get_by_text("file(s) ingested ·").first.wait_for()
    shots.append(shot(pg, "01-ingest-progress", full=False))
    if real:  # big filings: still ingesting; the Research page opens meanwhile (timed)
        t1 = time.perf_counter()
        pg.get_by_role("link", name="Research", exact=True).click()
        pg.get_by_label("Question").wait_for(timeout=LONG)
        timings["research_page_while_ingesting_s"] = time.perf_counter() - t1
        if pg.get_by_text("Filings are being ingested").count():
            timings["research_page_said_ingesting"] = 1.0
        shots.append(shot(pg, "02-research-while-ingesting", full=False))
    else:
        nav(pg, "Research")
    nav(pg, "Library")
    pg.get_by_text(f"{len(files)} of {len(files)} succeeded").wait_for(timeout=LONG)
    timings["upload_to_ready_s"] = time.perf_counter() - t0
    pg.get_by_role("heading", name=f"Documents ({len(files)})").wait_for()
    assert "demo article(s) written for this project" in body(pg)  # the web snapshot
    shots.append(shot(pg, "03-library"))

    # --- 2. ask -> plan on screen; the plan as step cards -----------------------------------
    nav(pg, "Research")
    pg.get_by_label("Question").fill(question)
    t0 = time.perf_counter()
    pg.get_by_role("button", name="Ask").click()
    pg.get_by_role("heading", name="Review the plan").wait_for()
    cards(pg).first.wait_for()
    timings["ask_to_plan_s"] = time.perf_counter() - t0
    settle(pg)
    assert "thread=" in pg.url, "the paused run is addressable by URL"
    n_steps = cards(pg).count()
    assert n_steps >= 3, body(pg)
    shots.append(shot(pg, "04-plan-cards"))

    # --- 3. edit a step's company scope in its card; refresh mid-edit ------------------------
    first = cards(pg).first
    pick(pg, first, "Companies / filings", second_company)
    first.get_by_text("edited", exact=True).wait_for()
    settle(pg)
    assert "Edited by the analyst" in first.inner_text()
    scope = companies_box(first).inner_text()
    assert second_company.split()[0].upper() in scope.upper(), scope
    shots.append(shot(pg, "05-step-edited"))
    edited_url = pg.url
    pg.reload()
    pg.get_by_text("were restored").wait_for()
    assert pg.url == edited_url
    first = cards(pg).first
    first.get_by_text("edited", exact=True).wait_for()
    scope = companies_box(first).inner_text()
    assert second_company.split()[0].upper() in scope.upper(), scope
    shots.append(shot(pg, "06-refresh-keeps-the-edit"))

    # --- 4. approve -> answer, first on the page --------------------------------------------
    approve = pg.get_by_role("button", name="Approve and run")
    t0 = time.perf_counter()
    approve.click()
    answer_done(pg)
    timings["approve_to_answer_s"] = time.perf_counter() - t0
    answer_y = pg.get_by_role("heading", name="Answer", exact=True).bounding_box()["y"]
    trace = pg.locator('[data-testid="stExpander"] summary').filter(has_text="Research trace")
    assert answer_y < trace.first.bounding_box()["y"], "the answer comes before the trace"
    assert "Reflection" not in body(pg)  # the trace is collapsed
    assert "demo article, URL unverified" in body(pg)  # news from the bundled snapshot
    shots.append(shot(pg, "07-answer-first"))
    run_url = pg.url

    # --- 5. hover a citation, click it: the passage opens beside the answer ----------------
    marker = pg.locator("button.cite").first
    marker.hover()
    tip = pg.locator(".df-answer .tip")
    tip.wait_for(state="visible")
    assert first_company.split()[0].upper() in tip.inner_text().upper() or "[" in tip.inner_text()
    shots.append(shot(pg, "08-citation-hover", full=False))
    marker.click()
    pg.get_by_text("The answer says:").first.wait_for()
    settle(pg)
    assert pg.get_by_role("button", name="✕").count() >= 1
    shots.append(shot(pg, "09-citation-passage"))
    pg.get_by_text("In the filing", exact=True).first.click()
    pg.get_by_text("the cited passage is marked").first.wait_for()
    settle(pg)
    shots.append(shot(pg, "10-citation-in-the-section"))

    # --- 6. a PDF filing: the cited page rendered with the passage marked --------------------
    if real:  # uploaded after the timed pair
        nav(pg, "Library")
        upload_filings(pg, [pdf])
        pg.get_by_role("button", name="Ingest files").click()
        pg.get_by_text("1 of 1 succeeded").wait_for(timeout=LONG)
    nav(pg, "Research")
    if pg.get_by_role("button", name="New question").count():
        pg.get_by_role("button", name="New question").click()
    pg.get_by_label("Question").fill("What does Acme say about larger rivals such as Zenith?")
    pick(pg, pg.locator("body"), "Limit to filings", "acme-widgets")
    pg.get_by_role("button", name="Ask").click()
    pg.get_by_role("heading", name="Review the plan").wait_for()
    settle(pg)
    pg.get_by_role("button", name="Approve and run").click()
    answer_done(pg)
    pg.locator("button.cite").first.click()
    pg.get_by_text("The answer says:").first.wait_for()
    pg.get_by_text("In the filing", exact=True).first.click()
    pg.get_by_text("PDF page").first.wait_for()
    # The page image is drawn after its caption: wait for it (slow under load), then check.
    pg.locator('[data-testid="stImage"] img').first.wait_for(timeout=LONG)
    settle(pg)
    assert pg.locator('[data-testid="stImage"] img').count() >= 1
    assert "is marked" in body(pg)
    shots.append(shot(pg, "11-pdf-page-marked"))

    # --- 7. cancel a running research ------------------------------------------------------
    nav(pg, "Settings")
    pg.locator('[data-testid="stSelectbox"]').filter(has_text="Provider").click()
    pg.get_by_role("option", name="tavily", exact=True).click()
    pg.get_by_role("button", name="Save settings").click()
    pg.get_by_text("Settings saved to").wait_for()
    shots.append(shot(pg, "12-settings-saved"))
    tavily.slow(10).slow(10)  # the web step waits on a slow search service
    nav(pg, "Research")
    if pg.get_by_role("button", name="New question").count():
        pg.get_by_role("button", name="New question").click()
    pg.get_by_label("Question").fill(question)
    pg.get_by_role("button", name="Ask").click()
    pg.get_by_role("heading", name="Review the plan").wait_for()
    settle(pg)
    pg.get_by_role("button", name="Approve and run").click()
    cancel = pg.get_by_role("button", name="Cancel the run")
    cancel.wait_for()
    pg.get_by_text("Researching").first.wait_for()
    cancel.click()
    pg.get_by_text("Cancelled by the analyst").first.wait_for(timeout=LONG)
    settle(pg)
    shots.append(shot(pg, "13-run-cancelled"))
    nav(pg, "Settings")
    pg.locator('[data-testid="stSelectbox"]').filter(has_text="Provider").click()
    pg.get_by_role("option", name="snapshot", exact=True).click()
    pg.get_by_role("button", name="Save settings").click()
    pg.get_by_text("Settings saved to").wait_for()

    # --- 8. find a run by search; open it from its link --------------------------------------
    nav(pg, "Runs")
    pg.get_by_label("Search runs").fill("Zenith")
    pg.keyboard.press("Enter")
    pg.get_by_text(re.compile(r"^1 of 3 run\(s\)$")).wait_for()
    settle(pg)
    shots.append(shot(pg, "14-runs-search"))
    pg.get_by_label("Search runs").fill("")
    pg.keyboard.press("Enter")
    pg.get_by_text(re.compile(r"^3 of 3 run\(s\)$")).wait_for()
    pick(pg, pg.locator("body"), "Status", "cancelled")  # the table is a canvas: filter
    pg.get_by_text(re.compile(r"^1 of 3 run\(s\)$")).wait_for()
    settle(pg)
    assert "Cancelled by the analyst" in body(pg), body(pg)[-1500:]
    pg.goto(run_url)  # the walk-through run, by its link
    answer_done(pg)
    for _ in range(90):  # the Library builds the baseline's pieces right after its ingest
        if "Compare's baseline pieces" not in body(pg):
            break
        pg.wait_for_timeout(2000)
        pg.goto(run_url)
        answer_done(pg)

    # --- 9. Compare: verdicts per sub-question, no first-run setup (issue 20) ----------------
    t0 = time.perf_counter()
    pg.get_by_role("button", name="Compare with baseline").click()
    pg.get_by_role("heading", name="Sub-question by sub-question").wait_for(timeout=LONG)
    pg.get_by_role("heading", name="Deep agent").wait_for(timeout=LONG)
    timings["compare_first_s"] = time.perf_counter() - t0
    settle(pg)
    text = body(pg)
    assert "First-run setup" not in text and "covers" in text  # its pieces were ready
    shots.append(shot(pg, "15-compare-verdicts"))
    saved = pg.get_by_text(re.compile(r"^Both runs are saved")).first.inner_text()
    t0 = time.perf_counter()
    pg.get_by_role("button", name="Compare", exact=True).click()
    pg.wait_for_function(  # a new baseline run replaces the first one on screen
        "(before) => [...document.querySelectorAll('[data-testid=\"stCaptionContainer\"]')]"
        ".some((e) => e.innerText.startsWith('Both runs are saved') && e.innerText !== before)",
        arg=saved, timeout=LONG)
    pg.get_by_role("heading", name="Sub-question by sub-question").wait_for(timeout=LONG)
    settle(pg)
    timings["compare_again_s"] = time.perf_counter() - t0
    assert "First-run setup" not in body(pg)

    assert pg.outside_requests == [], "the page tried to reach beyond 127.0.0.1"
    ARTIFACTS.mkdir(exist_ok=True)
    out = {"filings": [p.name for p in files], **{k: round(v, 2) for k, v in timings.items()}}
    (ARTIFACTS / "timings.json").write_text(json.dumps(out, indent=2))
    print("\nTIMINGS " + json.dumps(out))
    print("SCREENSHOTS " + " ".join(str(s.relative_to(ROOT)) for s in shots))
