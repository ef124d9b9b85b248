"""Search and Peers in a real browser (harness: ``tests.browser_kit``), on the real NVIDIA
(FY2023) and AMD (FY2025) 10-Ks ingested with the bundled MiniLM: a search whose query names
a company says its scope, marks the query's words and opens a hit in its filing in the
Library; the peer grid draws, a clicked figure shows its source and opens it in the
Library, the CSV downloads; a 1440 px screenshot of the grid is kept for the note."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from components.peer_grid import column_width
from tests.browser_kit import (
    ARTIFACTS,
    CHROMIUM,
    LONG,
    ROOT,
    SERVE,
    browser_page,
    nav,
    settle,
    shot,
    streamlit_server,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
FILINGS = ("nvda-10k-fy2023.html", "amd-10k-fy2025.htm")
NOTE_SHOT = ROOT.parent / "tmp" / "h37" / "peer_grid.png"  # for the coordinator's note
HEADER_PX, ROW_PX = 35, 35  # the grid's rows
COMPANY_PX, YEAR_PX, METRIC_PX = (column_width(n) for n in (
    "company", "fiscal year", "Revenue (USD millions)"))  # its first columns


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The two 10-Ks ingested once with the real embedder (the app's own)."""
    from core.app.corpus import Corpus
    from core.foundation.config import Settings

    store = tmp_path_factory.mktemp("search-peers") / "store"
    corpus = Corpus(Settings(data_dir=store, cache_enabled=False, _env_file=None))
    try:
        for name in FILINGS:
            data = gzip.decompress((ROOT / "tests" / "fixtures" / "figures" / f"{name}.gz")
                                   .read_bytes())
            corpus.ingest_bytes(data, name)
    finally:
        corpus.close()
    return store


@pytest.fixture
def page(tmp_path, built):
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is not installed (apt-get install chromium)")
    shutil.copytree(built, tmp_path / "store")
    env = {k: v for k, v in os.environ.items() if not k.startswith("DTR_")}
    env.update(DTR_DATA_DIR=str(tmp_path / "store"), HF_HUB_OFFLINE="1",
               LANGSMITH_TRACING="false", OMP_WAIT_POLICY="PASSIVE",
               TOKENIZERS_PARALLELISM="false", DTR_WEB_PROVIDER="snapshot")
    with streamlit_server(SERVE, tmp_path, env) as base, browser_page(base) as pg:
        yield pg


def _query(pg, text: str) -> None:
    box = pg.get_by_label("Search the filings")
    box.fill(text)
    box.press("Enter")


def test_search_says_its_scope_marks_the_words_and_opens_a_hit_in_the_library(page):
    pg = page
    pg.goto(f"{pg.base_url}/search")
    pg.get_by_label("Search the filings").wait_for()
    settle(pg)
    _query(pg, "NVIDIA export controls")
    scope = pg.get_by_text("Searched only the filings the query names")
    scope.wait_for(timeout=LONG)
    settle(pg)
    assert "NVIDIA CORP" in scope.inner_text()
    marks = [m.lower() for m in pg.locator('[class*="stMarkdownColoredBackground"]')
             .all_inner_texts()]
    assert marks and set(marks) <= {"nvidia", "nvidia's", "export", "exports", "exported",
                                    "control", "controls"}, marks
    hits = pg.locator('[class*="st-key-search_hit_"]')
    assert hits.count() >= 3
    assert all("NVIDIA CORP" in t for t in hits.all_inner_texts())
    shot(pg, "40-search-scoped")

    pg.get_by_role("button", name="Search every filing instead").click()
    scope.wait_for(state="detached")
    settle(pg)
    assert pg.get_by_role("checkbox", name="Search every filing").is_checked()

    first = hits.first
    markdown = first.locator('[data-testid="stMarkdownContainer"]')
    before = markdown.first.inner_text()  # the NVIDIA query's first hit
    _query(pg, "AMD data center segment revenue")
    pg.wait_for_function(  # the new query's first hit on screen (state, not time)
        "([sel, old]) => { const m = document.querySelector(sel);"
        " return m && m.innerText !== old }",
        arg=['[class*="st-key-search_hit_1"] [data-testid="stMarkdownContainer"]', before])
    settle(pg)
    heading = markdown.first.inner_text()  # "1. COMPANY · 10-K · FY2025 · section · p. 40"
    section = heading.split(" · ")[3]
    words = " ".join(markdown.last.inner_text().split()[:8])  # the hit's text
    first.get_by_role("button", name="Open in the Library").click()
    focus = pg.get_by_text("cited chunk")
    focus.wait_for(timeout=LONG)
    settle(pg)
    assert "chunk=" in pg.url and "/library" in pg.url
    box = " ".join(pg.locator('[class*="st-key-lib_focus_box"]').first.inner_text().split())
    assert pg.url.split("chunk=")[1] in box and section in box, (section, box[:300])
    assert words in box, (words, box[:300])
    shot(pg, "41-search-hit-in-library")


def test_peer_grid_draws_cites_a_clicked_figure_and_downloads(page):
    pg = page
    pg.goto(f"{pg.base_url}/peers")
    pg.get_by_text("figures found for 2 companies").wait_for(timeout=LONG)
    settle(pg)
    grid = pg.locator('[data-testid="stDataFrame"]').first
    grid.locator("th").first.wait_for(state="attached")  # the grid's accessible table
    heads = grid.locator("th").evaluate_all("els => els.map(e => e.textContent)")
    assert heads[:3] == ["company", "fiscal year", "Revenue (USD millions)"], heads
    box = grid.bounding_box()
    pg.mouse.click(box["x"] + COMPANY_PX + YEAR_PX + METRIC_PX / 2,
                   box["y"] + HEADER_PX + ROW_PX / 2)  # NVIDIA's FY2023 revenue
    cited = pg.locator('[class*="st-key-peer_cited"]').filter(
        has_text="NVIDIA CORP · Revenue · FY2023")
    cited.wait_for()
    settle(pg)
    text = cited.inner_text()
    assert "$26,974 million" in text and "nvda-10k-fy2023.html, p. " in text, text
    assert "XBRL us-gaap:Revenues" in text
    pg.set_viewport_size({"width": 1440, "height": 1000})
    path = shot(pg, "42-peer-grid")
    NOTE_SHOT.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, NOTE_SHOT)

    with pg.expect_download() as download:
        pg.get_by_role("button", name="Download CSV").click()
    csv_text = Path(download.value.path()).read_text(encoding="utf-8-sig")
    assert csv_text.startswith("company,fiscal year,Revenue (USD millions)")
    assert "NVIDIA CORP,FY2023,26974" in csv_text and "missing because" in csv_text

    # warm: away and back, the grid drawn again from the cache of this corpus version
    nav(pg, "Library")
    settle(pg)
    t0 = time.perf_counter()
    nav(pg, "Peers")
    pg.get_by_text("figures found for 2 companies").wait_for()
    grid.locator("th").first.wait_for(state="attached")
    warm_s = time.perf_counter() - t0
    settle(pg)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "peer_grid_timing.json").write_text(json.dumps(
        {"warm_nav_to_grid_s": round(warm_s, 3), "load": os.getloadavg()}))

    cited = pg.locator('[class*="st-key-peer_cited"]').filter(
        has=pg.get_by_role("button", name="Open in the Library"))
    box = grid.bounding_box()
    pg.mouse.click(box["x"] + COMPANY_PX + YEAR_PX + METRIC_PX / 2,
                   box["y"] + HEADER_PX + ROW_PX / 2)
    cited.wait_for()
    cited.get_by_role("button", name="Open in the Library").first.click()
    pg.get_by_text("cited chunk").wait_for(timeout=LONG)
    assert "chunk=" in pg.url and "/library" in pg.url
