"""Run exports carry the answer's analyses: the verdict line, what decided it and the peer
table (missing subjects kept) in Markdown and HTML, the whole records in JSON.

Records: fixture ``AnalysisResult``s from real facts (``tests.analysis_fixtures``)."""

from __future__ import annotations

import pytest

from core.agent.state import Answer, Evidence
from core.analysis.model import PeerRow
from core.app.report_html import render_html
from core.app.runs import RunRecord, export_json, export_markdown
from core.foundation.config import Settings
from tests.analysis_fixtures import (
    COMPARE_QUESTION,
    operating_margin_comparison,
    prepared,
    ranking_with_a_missing_company,
)
from tests.test_figures_compute import FactStore

HOSTILE = "Evil | Co <script>x()</script> ![p](http://evil.test/p.png)"


@pytest.fixture(scope="module")
def record():
    metas, facts, chunks = prepared()
    store = FactStore(facts, metas)
    compare = operating_margin_comparison(store, metas)
    ranking = ranking_with_a_missing_company(store, metas)
    ranking.rows.append(PeerRow(label=HOSTILE, missing="no filing loaded"))
    by_id = {c.chunk_id: c for c in chunks}
    cited = list(dict.fromkeys(c for r in compare.rows for c in r.chunk_ids))
    evidence = [Evidence(id=c, kind="chunk", text=by_id[c].text, page=by_id[c].page,
                         label=f"10-K · Item 8 · page {by_id[c].page}") for c in cited]
    answer = Answer(text=compare.lead + " [1][2]", evidence=evidence,
                    analyses=[compare, ranking])
    return RunRecord(question=COMPARE_QUESTION, evidence=evidence, answer=answer)


def test_the_markdown_report_has_the_verdict_and_the_peer_table(record, tmp_path):
    text = export_markdown(record, Settings(_env_file=None, data_dir=tmp_path))
    section = text.split("## Analysis", 1)[1].split("## Sources", 1)[0]
    assert "### Comparison · operating margin — verdict: NVIDIA" in section
    assert "**NVIDIA had the higher operating margin: 15.66% in fiscal 2023" in section
    assert "Decided by: 15.66% &gt; 10.66%" in section
    assert "| 1 | NVIDIA | FY2023 | 2023-01-29 | 15.66% | operating income FY2023 / revenue " \
           "FY2023 = 4,224 / 26,974 (USD millions) = 15.66% | [1] |" in section
    assert "| 2 | AMD | FY2025 | 2025-12-27 | 10.66% |" in section
    assert "### Ranking · operating margin — not decided" in section
    assert "|  | Intel | FY2025 |  | not found | no FY2025 operating income in the filings " \
           "loaded |  |" in section
    assert "- note: Fiscal years end in different months" in section
    # a hostile subject name cannot break the table or load anything
    row = next(line for line in section.splitlines() if "Evil" in line)
    assert "Evil \\| Co" in row and "<script" not in row and "http://evil" not in row
    assert row.count(" | ") == 6


def test_the_html_note_has_the_verdict_and_a_table_whose_sources_jump(record):
    page = render_html(record)
    body = page.split("<h2>Analysis</h2>", 1)[1].split("<h2>Sources</h2>", 1)[0]
    assert "<h3>Comparison · operating margin — verdict: NVIDIA</h3>" in body
    assert "<p><strong>NVIDIA had the higher operating margin: 15.66%" in body
    assert "<td>NVIDIA</td><td>FY2023</td><td>2023-01-29</td><td>15.66%</td>" in body
    assert '<td><a class="cite" href="#src-2">[2]</a></td>' in body
    assert "<td>Intel</td><td>FY2025</td><td></td><td>not found</td>" in body
    assert "<script" not in page and "evil.test" not in page


def test_the_json_export_carries_the_analyses_whole(record, tmp_path):
    again = RunRecord.model_validate_json(export_json(record, Settings(_env_file=None,
                                                                        data_dir=tmp_path)))
    assert again.answer.analyses == record.answer.analyses
    assert again.answer.analyses[1].rows[2].missing.startswith("no FY2025 operating income")
