"""End to end in a real browser: Playwright drives Debian's chromium against `streamlit run`.

The server is started by the test on a free 127.0.0.1 port with its corpus in a
temporary folder, no LLM key (offline engine), the real bundled embedder and the
bundled web snapshot; it is stopped afterwards. Every request the page makes is
checked to stay on 127.0.0.1. Screenshots go to test-artifacts/screenshots/
(git-ignored); the two timings the product cares about are printed and saved
to test-artifacts/timings.json.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "streamlit_app.py"
CHROMIUM = Path("/usr/bin/chromium")
SHOTS = ROOT / "test-artifacts" / "screenshots"
COMPANY = "Northwind Semiconductor, Inc."  # the fictional company of data/sample/
QUESTION = (f"Based on {COMPANY}'s 10-K, identify their key risks related to competition. "
            "Then, find recent news from 2024 about AMD's AI chip strategy and explain how it "
            "addresses or exacerbates one of those risks.")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
ROW_PX = 35  # st.data_editor's default row (and header) height

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path):
    """`streamlit run` on a free port with a temporary corpus; yields its base URL."""
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed (apt-get install chromium)")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DTR_")}
    env.update(DTR_DATA_DIR=str(tmp_path / "store"), HF_HUB_OFFLINE="1",
               LANGSMITH_TRACING="false", OMP_WAIT_POLICY="PASSIVE",
               TOKENIZERS_PARALLELISM="false")
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(APP), "--server.address", "127.0.0.1",
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
        context = browser.new_context(viewport={"width": 1440, "height": 1000},
                                      accept_downloads=True)

        def guard(route):
            host = urlparse(route.request.url).hostname
            if route.request.url.startswith(("data:", "blob:")) or host == "127.0.0.1":
                route.continue_()
            else:
                outside.append(route.request.url)
                route.abort()

        context.route("**/*", guard)
        pg = context.new_page()
        pg.set_default_timeout(60_000)
        pg.base_url = server  # type: ignore[attr-defined]
        pg.outside_requests = outside  # type: ignore[attr-defined]
        yield pg
        context.close()
        browser.close()


def shot(pg, name: str) -> Path:
    """Screenshot of the whole page (Streamlit scrolls inside its main block, not the body)."""
    measure = ("Math.max(1000, ...Array.from(document.querySelectorAll('[data-testid]'),"
               " (e) => e.scrollHeight))")
    pg.wait_for_timeout(500)
    height = 0
    for _ in range(4):  # grow the viewport until the content stops growing
        new = min(int(pg.evaluate(measure)) + 40, 12000)
        if new <= height:
            break
        height = new
        pg.set_viewport_size({"width": 1440, "height": height})
        pg.wait_for_timeout(700)  # let charts and the graph redraw at the new size
    path = SHOTS / f"{name}.png"
    pg.screenshot(path=str(path))
    pg.set_viewport_size({"width": 1440, "height": 1000})
    return path


def settle(pg, timeout_ms: int = 120_000) -> None:
    """Wait until the app is idle (no script run in progress: no "Stop" in the toolbar)."""
    pg.wait_for_timeout(300)
    pg.wait_for_function(
        "!document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=timeout_ms)


def grid_rows(pg) -> list[str]:
    """Texts of the plan editor's data rows (from the grid's accessibility table)."""
    rows = pg.locator('[data-testid="stDataFrame"] [role="row"]').all_inner_texts()
    return [r for r in rows[1:] if r.strip() and not r.strip().isdigit()]


def delete_plan_row(pg, index: int) -> None:
    """Select row ``index`` (0-based) by its row marker and press the toolbar's delete."""
    grid = pg.locator('[data-testid="stDataFrame"]').first
    box = grid.bounding_box()
    assert box is not None
    pg.mouse.click(box["x"] + 14, box["y"] + ROW_PX * (index + 1) + ROW_PX / 2)
    pg.get_by_role("button", name="Delete row(s)").click()


def test_walkthrough_in_a_real_browser(page):
    pg = page
    base = pg.base_url
    timings: dict[str, float] = {}

    # --- Library: one click loads the sample filing --------------------------------------
    pg.goto(f"{base}/library")
    pg.get_by_role("button", name="Load the sample filing").click(timeout=180_000)
    pg.get_by_text("1 of 1 succeeded").wait_for(timeout=180_000)
    pg.get_by_role("heading", name="Documents (1)").wait_for()
    shots = [shot(pg, "1-library")]

    # --- Research: ask, review, delete a step, approve ------------------------------------
    pg.get_by_role("link", name="Research").click()
    pg.get_by_label("Question").fill(QUESTION)
    t0 = time.perf_counter()
    pg.get_by_role("button", name="Ask").click()
    pg.get_by_role("heading", name="Review the plan").wait_for()
    pg.wait_for_function(
        "document.querySelectorAll('[data-testid=\"stDataFrame\"] [role=row]').length > 2")
    timings["ask_to_plan_s"] = time.perf_counter() - t0
    assert "thread=" in pg.url, "the paused run is addressable by URL"
    plan = grid_rows(pg)
    assert len(plan) >= 3, plan
    shots.append(shot(pg, "2-plan-review"))

    delete_plan_row(pg, len(plan) - 1)
    pg.wait_for_function(
        f"document.querySelectorAll('[data-testid=\"stDataFrame\"] [role=row]').length"
        f" <= {len(plan)}")
    kept = grid_rows(pg)
    assert len(kept) == len(plan) - 1 and kept == plan[:-1], (plan, kept)

    approve = pg.get_by_role("button", name="Approve and run")
    pg.wait_for_function("(b) => !b.disabled", arg=approve.element_handle())
    t1 = time.perf_counter()
    approve.click()
    pg.get_by_text("Sources", exact=True).first.wait_for(timeout=300_000)
    timings["approve_to_answer_s"] = time.perf_counter() - t1
    pg.get_by_role("button", name="Export Markdown").first.wait_for()  # the run is saved, replayed
    settle(pg)

    cards = pg.locator('[data-testid="stExpander"] summary').filter(has_text="Step ")
    labels = cards.all_inner_texts()
    assert len({lbl.split("·")[0].strip() for lbl in labels}) == len(kept), labels
    assert all(any(d in lbl for d in ("CONTINUE", "REVISE", "FINISH")) for lbl in labels), labels
    assert pg.get_by_text("Policy:").count() >= len(kept)
    main = pg.locator("body").inner_text()
    answer = main[main.rindex("\nAnswer"):main.rindex("Sources")]
    assert "[1]" in answer, answer
    shots.append(shot(pg, "3-research-answer"))

    # --- a citation opens its chunk in document, section and page ------------------------
    pg.get_by_role("radio", name="[1]", exact=True).click()
    pg.get_by_text("cited chunk").first.wait_for()
    settle(pg)
    assert COMPANY.split(",")[0] in pg.locator("body").inner_text()
    shots.append(shot(pg, "4-citation"))

    # --- export --------------------------------------------------------------------------
    with pg.expect_download() as dl:
        pg.get_by_role("button", name="Export Markdown").click()
    markdown = Path(dl.value.path()).read_text(encoding="utf-8")
    assert markdown.startswith(f"# {QUESTION}") and "## Answer" in markdown
    with pg.expect_download() as dl:
        pg.get_by_role("button", name="Export JSON").click()
    record = json.loads(Path(dl.value.path()).read_text(encoding="utf-8"))
    assert record["status"] == "done" and record["events"] and record["answer"]["citations"]
    assert len(record["plan"]) == len(kept)

    # --- Compare -------------------------------------------------------------------------
    pg.get_by_role("button", name="Compare with baseline").click()
    pg.get_by_role("heading", name="Baseline RAG").wait_for(timeout=180_000)
    pg.get_by_role("heading", name="Deep agent").wait_for()
    settle(pg)
    assert pg.get_by_text("LLM calls").count() >= 2
    shots.append(shot(pg, "5-compare"))

    # --- Runs and Settings ----------------------------------------------------------------
    pg.get_by_role("link", name="Runs").click()
    pg.get_by_text("Open a run").wait_for()
    pg.locator('[data-testid="stSelectbox"]').filter(has_text="Open a run").click()
    pg.get_by_role("option").filter(has_text="· deep ·").first.click()
    pg.get_by_text("Policy:").first.wait_for()  # the deep run replayed through the step cards
    shots.append(shot(pg, "6-runs"))
    pg.get_by_role("link", name="Settings").click()
    pg.get_by_role("button", name="Test connection").wait_for()
    shots.append(shot(pg, "7-settings"))

    # --- a paused run survives a browser refresh ------------------------------------------
    pg.get_by_role("link", name="Research").click()
    pg.get_by_role("button", name="New question").click()
    pg.get_by_label("Question").fill("What are Northwind's main supply chain risks?")
    pg.get_by_role("button", name="Ask").click()
    pg.get_by_role("heading", name="Review the plan").wait_for()
    pg.wait_for_function(
        "document.querySelectorAll('[data-testid=\"stDataFrame\"] [role=row]').length > 1")
    paused_url = pg.url
    paused_plan = grid_rows(pg)
    pg.reload()
    pg.get_by_role("heading", name="Review the plan").wait_for()
    pg.wait_for_function(
        "document.querySelectorAll('[data-testid=\"stDataFrame\"] [role=row]').length > 1")
    assert pg.url == paused_url
    assert grid_rows(pg) == paused_plan, "the paused plan is back after the refresh"
    # ... and a running one re-attaches after a refresh (the run goes on in the server)
    pg.get_by_role("button", name="Approve and run").click()
    pg.get_by_text("Step 1").first.wait_for()
    pg.reload()
    pg.get_by_text("Sources", exact=True).first.wait_for(timeout=300_000)
    pg.get_by_role("button", name="Export Markdown").first.wait_for()
    assert "interrupted" not in pg.locator("body").inner_text()

    assert pg.outside_requests == [], "the page tried to reach beyond 127.0.0.1"
    out = ROOT / "test-artifacts" / "timings.json"
    out.write_text(json.dumps({k: round(v, 2) for k, v in timings.items()}, indent=2))
    print("\nTIMINGS " + " ".join(f"{k}={v:.2f}" for k, v in timings.items()))
    print("SCREENSHOTS " + " ".join(str(s.relative_to(ROOT)) for s in shots))
