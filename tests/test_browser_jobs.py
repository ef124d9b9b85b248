"""Compare and Evaluate in a real browser (harness: ``tests.browser_kit``): each runs as a
background job; a reload while it runs shows its progress again, then its result. First,
every page of a fresh server opens by its own URL inside the entry file.

The web step of the question waits on a slow local Tavily-compatible server, so the job is
still running when the page reloads (no timing is asserted)."""

from __future__ import annotations

import json

import pytest

from tests.browser_kit import (  # noqa: F401  (fixtures: page, server, tavily)
    LONG,
    SAMPLE,
    body,
    nav,
    page,
    select,
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


def _ingest_sample(pg) -> None:
    nav(pg, "Library")
    pg.get_by_role("heading", name="Your corpus is empty").wait_for()
    upload_filings(pg, [SAMPLE])
    pg.get_by_role("button", name="Ingest files").click()
    pg.get_by_text("1 of 1 succeeded").wait_for(timeout=LONG)


def _web_provider(pg, name: str) -> None:
    nav(pg, "Settings")
    pg.locator('[data-testid="stSelectbox"]').filter(has_text="Provider").click()
    pg.get_by_role("option", name=name, exact=True).click()
    pg.get_by_role("button", name="Save settings").click()
    pg.get_by_text("Settings saved to").wait_for()


SIDEBAR_LINE = '[data-testid="stSidebar"] [data-testid="stAlert"]'
SECONDS_OF = """([sel, prefix]) => { const line = [...document.querySelectorAll(sel)]
    .find((e) => e.innerText.includes(prefix));
    const m = line && line.innerText.match(/\\((\\d+) s\\)/); return m ? Number(m[1]) : null; }"""


def _sidebar_seconds(pg, prefix: str) -> list[int]:
    """The seconds the sidebar's activity line starting with ``prefix`` shows: once it
    shows them, and again once they changed, the page untouched meanwhile (the work the
    line names is held by the test until then, so the line cannot go first)."""
    args = [SIDEBAR_LINE, prefix]
    pg.wait_for_function(f"(args) => ({SECONDS_OF})(args) !== null", arg=args, timeout=LONG)
    first = pg.evaluate(SECONDS_OF, args)
    pg.wait_for_function(f"([args, first]) => ![null, first].includes(({SECONDS_OF})(args))",
                         arg=[args, first], timeout=LONG)
    return [first, pg.evaluate(SECONDS_OF, args)]


def test_compare_and_evaluate_survive_a_reload(page, tmp_path, tavily):  # noqa: F811
    pg = page
    # A fresh server: every page opens by its own URL inside the entry (sidebar drawn).
    for path, title in [("settings", "Settings"), ("research", "Research"), ("", "Research"),
                        ("compare", "Compare"), ("runs", "Runs"), ("evaluate", "Evaluate"),
                        ("library", "Library")]:
        pg.goto(f"{pg.base_url}/{path}")
        pg.get_by_role("heading", name=title, exact=True).first.wait_for()
        pg.get_by_text("Deep Filings · research agent over SEC filings").wait_for()
    _ingest_sample(pg)
    _web_provider(pg, "tavily")

    # --- Compare: start, reload while the deep agent waits on the web, see the result ------
    held = tavily.hold()  # the web search answers when the test has seen the reload
    nav(pg, "Compare")
    pg.get_by_label("Question").fill(QUESTION)
    pg.get_by_role("button", name="Compare").click()
    pg.get_by_text("Comparing:").wait_for(timeout=LONG)
    assert "compare=cmp-" in pg.url
    pg.reload()
    pg.get_by_text("Comparing:").wait_for(timeout=LONG)  # re-attached after the reload
    pg.locator('[data-testid="stProgress"]').first.wait_for()
    assert pg.get_by_role("button", name="Cancel").count() == 1
    shot(pg, "30-compare-progress-after-reload", full=False)
    held.set()
    pg.get_by_role("heading", name="Deep agent").wait_for(timeout=LONG)
    settle(pg)
    text = body(pg)
    assert "Baseline RAG" in text and "Comparing:" not in text
    assert "baseline=" in pg.url and "deep=" in pg.url and "compare=" not in pg.url
    shot(pg, "31-compare-result-after-reload")

    # --- Evaluate: an uploaded one-question set, reload while it runs ---------------------
    qset = tmp_path / "one-web-question.jsonl"
    qset.write_text(json.dumps({"id": "web-q", "question": QUESTION,
                                "gold": [{"document": SAMPLE.name, "section": "Item 1A"}]})
                    + "\n")
    held = tavily.hold()  # until the test has watched the sidebar from another page
    nav(pg, "Evaluate")
    select(pg, "Question set", "Upload a set…")
    pg.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(qset))
    pg.get_by_text("1 questions in one-web-question").wait_for()
    pg.get_by_label("Evaluation name (an existing one is resumed)").fill("browser-eval")
    pg.get_by_role("button", name="Run evaluation").click()
    pg.get_by_text("Evaluating browser-eval").first.wait_for(timeout=LONG)
    assert "eval=browser-eval" in pg.url
    pg.reload()
    pg.get_by_text("Evaluating browser-eval").first.wait_for(timeout=LONG)
    pg.locator('[data-testid="stProgress"]').first.wait_for()
    shot(pg, "32-evaluate-progress-after-reload", full=False)
    eval_url = pg.url

    # --- another page meanwhile: the sidebar's line ticks on its own, then goes ----------
    nav(pg, "Library")
    seen = _sidebar_seconds(pg, "Evaluate:")
    assert len(set(seen)) >= 2, seen  # redrawn while the analyst does nothing
    held.set()
    pg.goto(eval_url)
    pg.get_by_role("heading", name="Baseline vs deep agent").wait_for(timeout=LONG)
    settle(pg)
    shot(pg, "33-evaluate-result-after-reload")
    assert "eval=browser-eval" in pg.url
    box = pg.locator('[data-testid="stSelectbox"]').filter(
        has=pg.get_by_text("Evaluation", exact=True)).first
    shown = box.inner_text() + " ".join(i.input_value() for i in box.locator("input").all())
    assert "browser-eval" in shown, shown  # the evaluation on screen is the one that ran
    _web_provider(pg, "snapshot")
    assert pg.outside_requests == [], "the page tried to reach beyond 127.0.0.1"
