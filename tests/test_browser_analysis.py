"""Analyses on screen in a real browser (harness: ``tests.browser_kit``): NVIDIA's FY2023
and AMD's FY2025 iXBRL 10-Ks ingested through the Library, their figures shown there by
company with a chart, and a comparison's verdict line, peer table and chart under the answer
on the Research and Compare pages, a peer row's source opening the statement it is read from.

``test_research_asks_a_comparison`` asks the question live (the offline engine's analysis
agent, /work/wt/contract31.md), its plan reviewed with the analyze step's settings on screen;
``test_analysis_on_screen_in_a_browser`` opens a run record saved with a fixture
``AnalysisResult`` built from the same filings' real facts (``tests.analysis_fixtures``: only
the combining step written out), so the screens are tested apart from the agent.
``E2E_ANALYSIS_AGENT=0`` skips the live one.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import time

import pytest

from tests.analysis_fixtures import AMD, COMPARE_QUESTION, NVDA
from tests.browser_kit import (  # noqa: F401  (fixtures: page, server, tavily)
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
AGENT = os.environ.get("E2E_ANALYSIS_AGENT", "1") != "0"
AGENT_REASON = ("E2E_ANALYSIS_AGENT=0: the live comparison needs the analysis agent filling "
                "Answer.analyses (/work/wt/contract31.md, helper C item 4)")
ANALYSIS = '[class*="st-key-"][class*="_an_analysis_0"]'


def _filings(tmp_path):
    out = []
    for src in (NVDA, AMD):
        path = tmp_path / src.name.removesuffix(".gz")
        path.write_bytes(gzip.decompress(src.read_bytes()))
        out.append(path)
    return out


def _ingest(pg, tmp_path) -> float:
    pg.goto(f"{pg.base_url}/library")
    pg.get_by_role("heading", name="Your corpus is empty").wait_for()
    upload_filings(pg, _filings(tmp_path))
    t0 = time.perf_counter()
    pg.get_by_role("button", name="Ingest files").click()
    pg.get_by_text("2 of 2 succeeded").wait_for(timeout=LONG)
    settle(pg)
    return time.perf_counter() - t0


@pytest.fixture
def seeded(tmp_path):
    """A finished deep run (and a baseline run) of the comparison question, saved in the
    server's data folder before it starts: the answer cites both income statements and
    states the fixture analysis (real facts, the combining step written out)."""
    from core.agent import events as ev
    from core.agent.state import Answer, Citation, Evidence, StopReason
    from core.app.runs import RunRecord, save_run
    from core.foundation.config import Settings
    from tests.analysis_fixtures import operating_margin_comparison, prepared
    from tests.test_figures_compute import FactStore

    metas, facts, chunks = prepared()
    compare = operating_margin_comparison(FactStore(facts, metas), metas)
    by_id = {c.chunk_id: c for c in chunks}
    names = {m.doc_id: f"{m.company} {m.form_type} {m.period}" for m in metas}
    cited = list(dict.fromkeys(c for r in compare.rows for c in r.chunk_ids))
    evidence = [Evidence(id=c, kind="chunk", text=by_id[c].text, doc_id=by_id[c].doc_id,
                         section=by_id[c].section, page=by_id[c].page,
                         label=f"{names[by_id[c].doc_id]} · {by_id[c].section} · page "
                               f"{by_id[c].page}") for c in cited]
    citations = [Citation(n=n, evidence_id=e.id, kind="chunk", label=e.label)
                 for n, e in enumerate(evidence, start=1)]
    text = compare.lead.removesuffix(".") + " [1][2]."
    answer = Answer(text=text, citations=citations, evidence=evidence, source="offline",
                    figures=compare.figures, analyses=[compare])
    done = ev.AnswerReady(node="synthesize", answer=text,
                          citations=[c.model_dump() for c in citations], stop_reason="completed",
                          stop_message="", source="offline",
                          figures=[f.model_dump(mode="json") for f in compare.figures])
    settings = Settings(_env_file=None, data_dir=tmp_path / "store")
    deep = RunRecord(question=COMPARE_QUESTION, evidence=evidence, answer=answer,
                     events=[done], stop_reason=StopReason(code="completed", message="done"),
                     wall_s=0.4)
    base_text = "Operating income was $4,224 million on revenue of $26,974 million [1]."
    base = RunRecord(kind="baseline", question=COMPARE_QUESTION, evidence=evidence[:1],
                     answer=Answer(text=base_text, citations=citations[:1],
                                   evidence=evidence[:1]), wall_s=0.2)
    save_run(deep, settings)
    save_run(base, settings)
    return {"deep": deep.id, "baseline": base.id, "compare": compare}


def grid(table) -> list[list[str]]:
    """An ``st.dataframe``'s visible rows (header first) as text: the grid draws on a canvas
    and keeps an accessible table of the cells in view beside it."""
    table.locator('[role="gridcell"]').first.wait_for(state="attached")
    return [[c.text_content() or "" for c in row.locator(
        '[role="columnheader"], [role="gridcell"]').all()]
        for row in table.locator('[role="row"]').all()]


def _check_analysis(pg, box, *, subjects=("NVIDIA", "AMD")) -> tuple[str, list[list[str]]]:
    """The verdict line, the peer table (both companies, their periods) and the chart."""
    box.wait_for(timeout=LONG)
    box.locator('[data-testid="stPlotlyChart"]').first.wait_for(timeout=LONG)
    settle(pg)
    text = box.inner_text()
    first = next(line for line in text.splitlines() if "had the higher" in line)
    assert all(s in first for s in subjects) and "operating margin" in first, text[:800]
    tables = box.locator('[data-testid="stDataFrame"]')
    assert tables.count() == 1
    rows = grid(tables.first)
    assert rows[0][:6] == ["#", "subject", "period", "ends", "figure", "source"], rows
    assert [r[1] for r in rows[1:]] == list(subjects), rows
    assert all(re.fullmatch(r"FY20\d\d", r[2]) and re.fullmatch(r"\d+\.\d+%", r[4])
               and re.match(r"\[\d\] (?:PDF )?p\. \d+", r[5]) for r in rows[1:]), rows
    chart = box.locator('[data-testid="stPlotlyChart"]')
    assert chart.count() == 1
    bars = chart.first.locator(".bars .point")
    assert bars.count() == len(subjects)
    return text, rows


def test_analysis_on_screen_in_a_browser(seeded, page, tmp_path):  # noqa: F811
    pg = page
    base = pg.base_url
    timings = {"ingest_s": _ingest(pg, tmp_path)}

    # --- the Library: a company's figures by period, with sources and a chart ----------
    figures = pg.get_by_role("heading", name="Figures", exact=True)
    figures.scroll_into_view_if_needed()
    pg.locator('[data-testid="stSelectbox"]').filter(has_text="Figures of").click()
    pg.get_by_role("option").filter(has_text="NVIDIA CORP (company").first.click()
    settle(pg)
    income = pg.get_by_role("tab", name="Income statement")
    income.wait_for()
    panel = pg.locator('[role="tabpanel"]').filter(has=pg.locator(
        '[class*="st-key-lib_fig_income_table"]')).first
    panel.locator('[data-testid="stPlotlyChart"]').first.wait_for()
    assert "Revenue by period" in panel.inner_text() or panel.locator(
        ".gtitle").first.text_content() == "Revenue by period"
    assert pg.get_by_role("tab", name="Segments").count() == 1
    rows = grid(panel.locator('[class*="st-key-lib_fig_income_table"]'))
    assert rows[0] == ["metric", "FY2023", "FY2022", "FY2021", "source (latest)"], rows[0]
    assert rows[1][:4] == ["Revenue", "$26,974 million", "$26,914 million",
                           "$16,675 million"], rows[1]
    assert re.match(r"p\. \d+ · XBRL us-gaap:Revenues", rows[1][4]), rows[1]
    pg.locator('[class*="st-key-lib_fig_income_table"]').scroll_into_view_if_needed()
    shot(pg, "30-library-figures")
    panel.get_by_text(re.compile(r"^Revenue · p\. \d+")).first.click()  # open the fact's row
    pg.locator('[class*="st-key-lib_focus_box"]').wait_for()
    settle(pg)
    focus = pg.locator('[class*="st-key-lib_focus_box"]')
    cells = [c for row in grid(focus.locator('[data-testid="stDataFrame"]').first) for c in row]
    assert any("26,974" in c for c in cells), cells  # the statement drawn as a grid
    assert "The cited row is marked." in focus.inner_text()
    shot(pg, "31-library-figure-source")

    # --- Research: the run's answer with its verdict line, peer table and chart --------
    pg.goto(f"{base}/?thread={seeded['deep']}")
    answer_done(pg)
    box = pg.locator(ANALYSIS).first
    text, rows = _check_analysis(pg, box)
    assert "Fiscal years end in different months" in text
    assert "Decided by: 15.66% > 10.66%" in text
    assert rows[1][:6] == ["1", "NVIDIA", "FY2023", "2023-01-29", "15.66%", rows[1][5]]
    assert rows[2][:5] == ["2", "AMD", "FY2025", "2025-12-27", "10.66%"]
    answer_y = pg.get_by_role("heading", name="Answer", exact=True).bounding_box()["y"]
    trace = pg.locator('[data-testid="stExpander"] summary').filter(has_text="Research trace")
    assert answer_y < box.bounding_box()["y"] < trace.first.bounding_box()["y"]
    shot(pg, "32-research-analysis")
    box.get_by_text(re.compile(r"^\[2\] AMD · FY2025")).first.click()  # a peer row's source
    pg.get_by_text("The row the figure was read from").first.wait_for()
    settle(pg)
    assert "Operating income | 3,694" in body(pg) or "3,694" in body(pg)
    shot(pg, "33-research-analysis-source")

    # --- Compare: the deep side shows the same analysis ---------------------------------
    pg.goto(f"{base}/compare?baseline={seeded['baseline']}&deep={seeded['deep']}")
    pg.get_by_role("heading", name="Side by side").wait_for(timeout=LONG)
    settle(pg)
    _check_analysis(pg, pg.locator('[class*="st-key-cmp_deep_cite_an_analysis_0"]').first)
    shot(pg, "34-compare-analysis")
    assert pg.outside_requests == [], "the page tried to reach beyond 127.0.0.1"
    print("\nANALYSIS TIMINGS " + json.dumps({k: round(v, 2) for k, v in timings.items()}))


@pytest.mark.skipif(not AGENT, reason=AGENT_REASON)
def test_research_asks_a_comparison(page, tmp_path):  # noqa: F811
    """Asked live on the Research page, its plan reviewed (the analyze step's settings on
    screen) and approved as proposed: the verdict line, the peer table and the chart."""
    pg = page
    _ingest(pg, tmp_path)
    nav(pg, "Research")
    pg.get_by_label("Question").fill(COMPARE_QUESTION)
    pg.get_by_text("Always review the plan").click()
    pg.get_by_role("button", name="Ask").click()
    pg.get_by_role("heading", name="Review the plan").wait_for(timeout=LONG)
    settle(pg)
    shot(pg, "35-research-comparison-plan")
    def chosen(label: str) -> str:
        box = pg.locator('[data-testid="stSelectbox"]').filter(has_text=label).last
        return box.inner_text() + " " + " ".join(i.input_value() for i in
                                                 box.locator("input").all())

    assert "Compare: which is higher / lower" in chosen("Analysis")
    assert "the higher figure first" in chosen("Winner")
    assert pg.locator('input[aria-label="Measure"]').first.input_value() == "operating margin"
    pg.get_by_role("button", name="Approve and run").click()
    answer_done(pg)
    _, rows = _check_analysis(pg, pg.locator(ANALYSIS).first)
    assert [r[2] for r in rows[1:]] == ["FY2023", "FY2025"], rows
    first = body(pg).split("Answer", 1)[1]
    assert re.search(r"NVIDIA had the higher operating margin", first), first[:600]
    assert "edited by the analyst" not in body(pg)  # approved as proposed, settings kept
    shot(pg, "36-research-comparison-asked")
    assert pg.outside_requests == [], "the page tried to reach beyond 127.0.0.1"
