"""The reading of a question in a real browser (harness: ``tests.browser_kit``): NVIDIA's
FY2023 and AMD's FY2025 iXBRL 10-Ks ingested through the Library, a question typed the way
analysts type it (tickers in lower case, "op margin"), its reading shown first at plan
review, corrected there (another kind of answer and another measure), and the answer that
follows the correction, its reading said under the first line."""

from __future__ import annotations

import pytest

from tests.browser_kit import (  # noqa: F401  (fixtures: page, server, tavily)
    LONG,
    answer_done,
    body,
    nav,
    page,
    select,
    server,
    settle,
    shot,
    tavily,
)
from tests.test_browser_analysis import _ingest

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_reading_is_shown_corrected_at_review_and_the_answer_follows(page, tmp_path):  # noqa: F811
    pg = page
    _ingest(pg, tmp_path)
    nav(pg, "Research")
    pg.get_by_label("Question").fill("whose op margin was higher, nvda or amd?")
    pg.get_by_text("Always review the plan").click()
    pg.get_by_role("button", name="Ask").click()
    pg.get_by_role("heading", name="Review the plan").wait_for(timeout=LONG)
    settle(pg)
    pg.get_by_text("Read as: which is higher · operating margin").first.wait_for()
    assert "'nvda' as NVIDIA CORP (its ticker)" in body(pg)
    pg.get_by_text("Correct the reading").click()
    select(pg, "Kind of answer", "the difference")
    measure = pg.locator('[data-testid="stSelectbox"]').filter(has_text="Measure").first
    measure.click()  # a long list: typed to filter, as an analyst does
    pg.keyboard.type("net profit")
    pg.get_by_role("option", name="net profit margin", exact=True).click()
    pg.get_by_role("button", name="Apply this reading to the plan").click()
    pg.get_by_text("Read as (corrected at review): the difference · net profit margin"
                   ).first.wait_for(timeout=LONG)
    settle(pg)
    shot(pg, "40-research-reading-corrected")
    pg.get_by_role("button", name="Approve and run").click()
    answer_done(pg)
    first = body(pg).split("Answer", 1)[1]
    shot(pg, "41-research-reading-answer")
    assert "net profit margin was 3.7 points higher than" in first, first[:800]
    # the answer's text is drawn by a component (its own DOM): found by its words
    pg.get_by_text("Read as (corrected at review): the difference · net profit margin"
                   ).first.wait_for()
    assert pg.outside_requests == [], "the page tried to reach beyond 127.0.0.1"
