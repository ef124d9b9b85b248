"""Issue 21's dashboard items in a real browser (harness: ``tests.browser_kit``): the
sidebar status ticking during an ingest and a run, a citation opening the Library at its
chunk (in view), a PDF page opened large, Compare's one-line verdict, Evaluate's sample
corpus kept apart, the HTML note opening in the browser, and no 404 on a walk through
every page. Screenshots go to test-artifacts/screenshots/4x-*.png (no timing asserted).

The web step of the first question waits on a slow local Tavily-compatible server, so
the run is still running while the sidebar is read twice."""

from __future__ import annotations

import pytest

from tests.browser_kit import (  # noqa: F401  (fixtures: page, server, tavily)
    LONG,
    SAMPLE,
    answer_done,
    body,
    make_pdf_filing,
    nav,
    page,
    pick,
    server,
    settle,
    shot,
    tavily,
    upload_filings,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

QUESTION = ("Based on Northwind's 10-K, what risk does consolidation and vertical integration "
            "among its competitors pose? Then find 2024 news about AMD's AI chip strategy and "
            "explain how it exacerbates that risk.")
PAGES = [("settings", "Settings"), ("research", "Research"), ("", "Research"),
         ("compare", "Compare"), ("runs", "Runs"), ("evaluate", "Evaluate"),
         ("library", "Library")]
SIDEBAR_INFO = "[data-testid='stSidebar'] [data-testid='stAlertContentInfo']"


def _sidebar_lines(pg) -> str:
    return " | ".join(pg.locator(SIDEBAR_INFO).all_inner_texts())


def _wait_sidebar_changes(pg, contains: str) -> tuple[str, str]:
    """The sidebar's activity text once it names ``contains``, and again after it changed
    while the page itself was not rerun by the analyst."""
    pg.locator(SIDEBAR_INFO).filter(has_text=contains).first.wait_for(timeout=LONG)
    before = _sidebar_lines(pg)
    pg.wait_for_function(
        """([sel, before]) => { const t = Array.from(document.querySelectorAll(sel),
            (e) => e.innerText).join(' | '); return t !== before && t.length > 0; }""",
        arg=[SIDEBAR_INFO, before], timeout=LONG)
    return before, _sidebar_lines(pg)


def _walk(pg) -> None:
    for path, title in PAGES:
        pg.goto(f"{pg.base_url}/{path}")
        pg.get_by_role("heading", name=title, exact=True).first.wait_for(timeout=LONG)
        settle(pg)


def test_no_404_on_a_walk_through_every_page(page):  # noqa: F811
    """Each page opened by its URL: no response is a 404 and the console logs no error
    (``make run``'s server, serve.py, points the client at the root; see test_serve.py)."""
    missing: list[str] = []
    errors: list[str] = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    _walk(page)
    assert missing == [], missing
    assert errors == [], errors


def _provider(pg, name: str) -> None:
    nav(pg, "Settings")
    pg.locator('[data-testid="stSelectbox"]').filter(has_text="Provider").click()
    pg.get_by_role("option", name=name, exact=True).click()
    pg.get_by_role("button", name="Save settings").click()
    pg.get_by_text("Settings saved to").wait_for()


def _ask(pg, question: str, scope: str = "") -> None:
    nav(pg, "Research")
    if pg.get_by_role("button", name="New question").count():
        pg.get_by_role("button", name="New question").click()
    pg.get_by_label("Question").fill(question)
    if scope:
        pick(pg, pg.locator("body"), "Limit to filings", scope)
    pg.get_by_text("Always review the plan").click()
    pg.get_by_role("button", name="Ask").click()
    pg.get_by_role("heading", name="Review the plan").wait_for()
    settle(pg)
    pg.get_by_role("button", name="Approve and run").click()


def _open_filing_view(pg) -> None:
    pg.get_by_text("The answer says:").first.wait_for()
    pg.get_by_text("In the filing", exact=True).first.click()


def test_issue21_dashboard_in_a_real_browser(page, tmp_path, tavily):  # noqa: F811
    pg = page
    missing: list[str] = []
    pg.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)

    # --- 1. every page by its own URL ----------------------------------------------------
    _walk(pg)

    # --- 2. ingest: the sidebar says what it does, and ticks ------------------------------
    pdf = make_pdf_filing(tmp_path / "acme-widgets-10k.pdf")
    upload_filings(pg, [SAMPLE, pdf])
    pg.get_by_role("button", name="Ingest files").click()
    before, after = _wait_sidebar_changes(pg, "Ingesting:")
    assert "waiting" not in before.lower() or "waiting" not in after.lower(), (before, after)
    shot(pg, "40-sidebar-ingest-ticking", full=False)
    pg.get_by_text("2 of 2 succeeded").wait_for(timeout=LONG)

    # --- 3. a run: the sidebar counts up while it runs -----------------------------------
    _provider(pg, "tavily")
    held = [tavily.hold(), tavily.hold()]  # the run goes on until the test saw the sidebar
    _ask(pg, QUESTION)
    before, after = _wait_sidebar_changes(pg, "Researching")
    assert before != after and "Researching" in after, (before, after)
    shot(pg, "41-sidebar-run-ticking", full=False)
    for gate in held:
        gate.set()
    answer_done(pg)
    run_url = pg.url
    assert "run time" in body(pg)

    # --- 4. a citation opens the Library at its chunk, in view ---------------------------
    pg.locator("button.cite").first.click()
    _open_filing_view(pg)
    pg.get_by_role("button", name="Open the whole section in the Library").first.click()
    pg.get_by_role("heading", name="Library", exact=True).wait_for()
    focus = pg.locator(".st-key-lib_focus_box")
    focus.wait_for(timeout=LONG)
    assert "chunk=" in pg.url
    pg.wait_for_function(
        """() => { const e = document.querySelector('.st-key-lib_focus_box');
            if (!e) return false; const r = e.getBoundingClientRect();
            return r.top >= 0 && r.top < window.innerHeight - 40; }""", timeout=30_000)
    assert "cited chunk" in focus.inner_text()
    shot(pg, "42-citation-opens-library-at-chunk", full=False)

    # --- 5. a PDF page opens large -------------------------------------------------------
    _provider(pg, "snapshot")
    _ask(pg, "What does Acme say about larger rivals such as Zenith?", scope="acme-widgets")
    answer_done(pg)
    pg.locator("button.cite").first.click()
    _open_filing_view(pg)
    pg.locator('[data-testid="stImage"] img').first.wait_for(timeout=LONG)
    settle(pg)
    pg.get_by_role("button", name="Open the page large").first.click()
    dialog = pg.get_by_role("dialog")
    dialog.locator("img").first.wait_for(timeout=LONG)
    width = dialog.locator("img").first.bounding_box()["width"]
    side = pg.locator('[data-testid="stImage"] img').first.bounding_box()["width"]
    assert width > side * 1.5, (width, side)  # larger than the side column's
    shot(pg, "43-pdf-page-large", full=False)
    pg.keyboard.press("Escape")

    # --- 6. Compare ends with a one-line verdict ------------------------------------------
    pg.goto(run_url)
    answer_done(pg)
    pg.get_by_role("button", name="Compare with baseline").click()
    pg.get_by_role("heading", name="Verdict").wait_for(timeout=LONG)
    settle(pg)
    verdict = pg.get_by_text("Verdict:").first.inner_text()
    assert "sub-question" in verdict and "filing passage" in verdict, verdict
    assert "Configure an LLM" not in body(pg).split("How the answers differ", 1)[1].split(
        "Side by side", 1)[0]
    pg.get_by_role("heading", name="Verdict").scroll_into_view_if_needed()
    shot(pg, "44-compare-verdict", full=False)

    # --- 7. Evaluate: the sample goes into its own corpus -------------------------------
    nav(pg, "Evaluate")
    pg.get_by_text("Sample corpus (kept apart from yours)").click()
    pg.get_by_role("button", name="Load the sample filing into the sample corpus").click()
    pg.get_by_text("1 filing(s). Your own corpus is not touched.").wait_for(timeout=LONG)
    settle(pg)
    shot(pg, "45-evaluate-sample-corpus", full=False)
    nav(pg, "Library")
    pg.get_by_role("heading", name="Documents (2)").wait_for()  # still the analyst's two

    # --- 8. the HTML note opens in the browser -----------------------------------------
    pg.goto(run_url)
    answer_done(pg)
    with pg.expect_download() as got:
        pg.get_by_role("button", name="Export HTML").click()
    note = (tmp_path / "note.html")
    got.value.save_as(note)
    viewer = pg.context.new_page()
    viewer.set_content(note.read_text())
    viewer.get_by_role("heading", name="Sources").wait_for()
    assert viewer.locator("a.cite").count() >= 1
    viewer.locator("a.cite").first.click()  # jumps to its source, inside the note
    shot(viewer, "46-html-note")
    viewer.close()

    assert missing == [], missing  # no 404 anywhere in the walk
    assert pg.outside_requests == [], "the page tried to reach beyond 127.0.0.1"
