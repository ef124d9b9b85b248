"""Company identity in a real browser (issue 21): two filers with a 10-K and a 10-Q each, the
10-Q of one printing its name differently and no CIK. Each company appears under one name in
the filing pickers, and a question about one company's 10-Q is answered from that 10-Q only.
Harness of tests/browser_kit.py (chromium, `streamlit run serve.py`, offline engine, the
real bundled embedder); screenshots in test-artifacts/screenshots/."""

from __future__ import annotations

import pytest

from testkit.filings import two_company_corpus
from tests.browser_kit import (  # noqa: F401  (fixtures)
    LONG,
    answer_done,
    body,
    nav,
    page,
    server,
    settle,
    shot,
    tavily,
    upload_filings,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_one_name_per_filer_and_a_10q_question_cites_the_10q(page, tmp_path):  # noqa: F811
    pg, base = page, page.base_url
    files = []
    for filing in two_company_corpus():
        path = tmp_path / filing.file_name
        path.write_bytes(filing.html())
        files.append(path)
    pg.goto(f"{base}/library")
    pg.get_by_role("heading", name="Your corpus is empty").wait_for()
    upload_filings(pg, files)
    pg.get_by_role("button", name="Ingest files").click()
    pg.get_by_text("4 of 4 succeeded").wait_for(timeout=LONG)

    nav(pg, "Research")
    box = pg.locator('[data-testid="stMultiSelect"]').filter(has_text="Limit to filings")
    box.first.locator("input").click()
    options = [o.inner_text() for o in pg.get_by_role("option").all()
               if o.inner_text() != "Select all"]
    shot(pg, "30-one-name-per-filer", full=False)
    pg.keyboard.press("Escape")
    assert len(options) == 4, options
    northwind = [o for o in options if "northwind" in o.lower()]
    assert len(northwind) == 2 and all(o.startswith("Northwind Instruments, Inc.") for o in
                                       northwind), options  # the 10-K's capitals are an alias
    assert not any(o.startswith("NORTHWIND") for o in options), options

    pg.get_by_label("Question").fill("What does Northwind say about competition in its 10-Q?")
    settle(pg)
    pg.get_by_role("button", name="Ask").click()
    approve = pg.get_by_role("button", name="Approve and run")
    answer = pg.get_by_role("button", name="Export Markdown")
    approve.or_(answer).first.wait_for(timeout=LONG)
    if approve.count():
        approve.click()
    answer_done(pg)
    text = body(pg)
    sources = text[text.index("Sources"):].split("Open a citation")[0]
    shot(pg, "31-10q-question-cites-the-10q")
    assert "10-Q" in sources, sources
    assert "10-K" not in sources and "Southgate" not in sources.title(), sources
    assert pg.outside_requests == []
