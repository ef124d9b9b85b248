"""A figure question in a real browser (harness: ``tests.browser_kit``): NVIDIA's iXBRL
10-K ingested through the Library, the revenue question answered with the figure first, its
computation table and chart, and a source opening the statement with the row highlighted."""

from __future__ import annotations

import gzip
import json
import re
import time

import pytest

from tests.browser_kit import (  # noqa: F401  (fixtures: page, server, tavily)
    LONG,
    NVDA_FIXTURE,
    NVDA_QUESTION,
    answer_done,
    body,
    cards,
    nav,
    page,
    server,
    settle,
    shot,
    tavily,
    upload_filings,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_figure_answer_with_its_computation_table(page, tmp_path):  # noqa: F811
    """NVIDIA's iXBRL 10-K (fiscal 2023): the revenue question is answered with the figure
    first, the computation table and chart under it, and a source that opens the income
    statement with the revenue row highlighted."""
    pg = page
    base = pg.base_url
    filing = tmp_path / "nvda-10k-fy2023.html"
    filing.write_bytes(gzip.decompress(NVDA_FIXTURE.read_bytes()))
    timings: dict[str, float] = {}

    pg.goto(f"{base}/library")
    pg.get_by_role("heading", name="Your corpus is empty").wait_for()
    upload_filings(pg, [filing])
    t0 = time.perf_counter()
    pg.get_by_role("button", name="Ingest files").click()
    pg.get_by_text("1 of 1 succeeded").wait_for(timeout=LONG)
    timings["ingest_s"] = time.perf_counter() - t0

    nav(pg, "Research")
    pg.get_by_label("Question").fill(NVDA_QUESTION)
    pg.get_by_text("Always review the plan").click()  # show the figure steps in review
    t0 = time.perf_counter()
    pg.get_by_role("button", name="Ask").click()
    pg.get_by_role("heading", name="Review the plan").wait_for()
    cards(pg).first.wait_for()
    settle(pg)
    timings["ask_to_plan_s"] = time.perf_counter() - t0
    plan = body(pg)
    assert "Periods" in plan and "Metric" in plan and "Decimals" in plan, plan[-2000:]
    lookup = cards(pg).filter(has=pg.locator('input[aria-label="Periods"]')).first
    assert lookup.locator('input[aria-label="Periods"]').input_value() == "FY2022, FY2023"
    shot(pg, "20-figure-plan")

    t0 = time.perf_counter()
    pg.get_by_role("button", name="Approve and run").click()
    answer_done(pg)
    timings["approve_to_answer_s"] = time.perf_counter() - t0
    text = body(pg)
    first = text.split("Answer", 1)[1]
    assert "$26,974 million" in first and "$26,914 million" in first, first[:1500]
    figures = pg.locator('[class*="_figs_figures"]').first
    figures.wait_for()
    table = figures.locator('[data-testid="stTable"]').first.inner_text()
    assert "Revenue" in table and "FY2023" in table and "FY2022" in table, table
    assert "$26,974 million" in table and re.search(r"\[\d+\]", table), table
    assert figures.locator('[data-testid="stPlotlyChart"]').count() == 1
    answer_y = pg.get_by_role("heading", name="Answer", exact=True).bounding_box()["y"]
    trace = pg.locator('[data-testid="stExpander"] summary').filter(has_text="Research trace")
    assert answer_y < figures.bounding_box()["y"] < trace.first.bounding_box()["y"]
    shot(pg, "21-figure-answer")

    figures.get_by_text(re.compile(r"^\[\d+\] Revenue")).first.click()  # a source pill
    pg.get_by_text("The row the figure was read from").first.wait_for()
    settle(pg)
    assert "highlighted above" in body(pg)
    shot(pg, "22-figure-source-row")

    pg.locator('[data-testid="stExpander"] summary').filter(has_text="Research trace").click()
    pg.get_by_text("Facts looked up").first.wait_for()
    settle(pg)
    shot(pg, "23-figure-step-cards")
    assert pg.outside_requests == [], "the page tried to reach beyond 127.0.0.1"
    print("\nFIGURE TIMINGS " + json.dumps({k: round(v, 2) for k, v in timings.items()}))
