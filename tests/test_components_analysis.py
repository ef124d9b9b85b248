"""The analyses under an answer: verdict line, peer table (period and end date, figure,
inputs, source [n]), bar chart, missing rows kept, sources opened like citations.

The records are fixtures built from real facts (``tests.analysis_fixtures``: NVIDIA's FY2023
and AMD's FY2025 iXBRL 10-Ks read by the ingest pipeline, looked up by the figures layer);
only the combining step is written out, as ``core.analysis.model`` describes it.
"""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from components.analysis_view import (
    all_sources,
    analysis_sources,
    as_analyses,
    chart_figure,
    charted,
    evidence_pages,
    peer_frame,
    verdict_line,
)
from components.figures_view import evidence_numbers
from components.run_screen import answer_analyses, with_figure_sources
from core.agent.state import Answer, Evidence
from core.analysis.model import AnalysisResult
from core.app.cited import CitedPassage
from core.foundation.pages import page_ref
from tests.analysis_fixtures import (
    operating_margin_comparison,
    prepared,
    ranking_with_a_missing_company,
)
from tests.test_figures_compute import FactStore


@pytest.fixture(scope="module")
def real():
    metas, facts, chunks = prepared()
    store = FactStore(facts, metas)
    return (operating_margin_comparison(store, metas),
            ranking_with_a_missing_company(store, metas), {c.chunk_id: c for c in chunks})


def evidence_of(result: AnalysisResult, chunks) -> list[Evidence]:
    """The answer's numbered evidence: a risk passage first, then the statements cited."""
    cited = [cid for r in result.rows for cid in r.chunk_ids]
    first = next(c for c in chunks.values() if c.section.startswith("Item 1A"))
    return [Evidence(id=first.chunk_id, kind="chunk", text=first.text, label="risk"),
            *(Evidence(id=c, kind="chunk", text=chunks[c].text, page=chunks[c].page,
                       page_label=chunks[c].page_label, label=f"statement {c}")
              for c in dict.fromkeys(cited))]


def test_the_peer_table_keeps_period_end_figure_inputs_and_numbered_sources(real):
    compare, _, chunks = real
    evidence = evidence_of(compare, chunks)
    numbers = evidence_numbers([e.id for e in evidence])
    frame = peer_frame(compare, numbers, evidence_pages(evidence))
    assert list(frame.columns) == ["#", "subject", "period", "ends", "figure", "source",
                                   "inputs"]
    rows = frame.to_dict("records")
    assert [(r["#"], r["subject"], r["period"], r["ends"], r["figure"]) for r in rows] == [
        (1, "NVIDIA", "FY2023", "2023-01-29", "15.66%"),
        (2, "AMD", "FY2025", "2025-12-27", "10.66%")]
    assert rows[0]["inputs"].startswith("operating income FY2023 / revenue FY2023 = 4,224 / "
                                        "26,974")
    first, second = (chunks[r.chunk_ids[0]] for r in compare.rows)
    assert rows[0]["source"] == f"[2] {page_ref(first.page, first.page_label, short=True)}"
    assert rows[1]["source"] == f"[3] {page_ref(second.page, second.page_label, short=True)}"
    pairs = enumerate(zip(rows, evidence[1:], strict=False), start=2)
    assert all(r["source"] == f"[{n}] " + CitedPassage(  # as Sources says it, shortened
        n=n, kind="chunk", evidence_id=e.id, page=e.page, page_label=e.page_label).where
        .replace("page", "p.") for n, (r, e) in pairs)
    # a chunk the answer's evidence does not hold is said so, not numbered
    alone = peer_frame(compare, {}, {})
    assert alone["source"].tolist()[0].endswith("(not in the answer's evidence)")


def test_a_company_without_the_figure_is_listed_never_dropped(real):
    _, ranking, _ = real
    frame = peer_frame(ranking, {}, {})
    assert frame["subject"].tolist() == ["NVIDIA", "AMD", "Intel"]
    intel = frame.to_dict("records")[2]
    assert intel["figure"] == "not found" and "no FY2025 operating income" in intel["inputs"]
    bars, lost = charted(ranking)
    assert [r.label for r in bars] == ["NVIDIA", "AMD"] and [r.label for r in lost] == ["Intel"]
    assert not ranking.decided
    assert verdict_line(ranking).startswith("Could not decide")


def test_the_chart_draws_each_figure_the_winner_darker(real):
    compare, ranking, _ = real
    fig = chart_figure(compare)
    bar = fig.data[0]
    assert list(bar.x) == ["NVIDIA", "AMD"] and list(bar.y) == [15.66, 10.66]
    assert list(bar.text) == ["15.66%", "10.66%"]
    assert bar.marker.color[0] != bar.marker.color[1]
    assert fig.layout.yaxis.title.text == "%" and fig.layout.title.text == "Operating margin"
    undecided = chart_figure(ranking)  # no verdict: no bar is singled out
    assert len(set(undecided.data[0].marker.color)) == 1


def test_sources_open_the_chunk_with_the_fact_row(real):
    compare, _, chunks = real
    evidence = evidence_of(compare, chunks)
    numbers = evidence_numbers([e.id for e in evidence])
    sources = analysis_sources(compare, numbers)
    assert [(s.n, s.label) for s in sources] == [(2, "NVIDIA · FY2023"), (3, "AMD · FY2025")]
    assert sources[0].row.startswith("Income from operations | 4,224")
    assert sources[0].row.split(" | ")[0] in chunks[compare.rows[0].chunk_ids[0]].text
    # the answer's text cites only [1]: the table's sources join the citations
    cited = with_figure_sources([{"n": 1, "evidence_id": evidence[0].id, "kind": "chunk",
                                  "label": "risk"}], [], evidence, [compare])
    assert [c["n"] for c in cited] == [1, 2, 3]
    assert all_sources([compare], {}) == []


def test_analyses_come_from_the_event_or_the_record(real):
    compare, _, _ = real
    record = type("R", (), {"answer": Answer(text="x", analyses=[compare])})()
    assert answer_analyses(record)[0].verdict == "NVIDIA"
    event = type("E", (), {"analyses": [compare.model_dump(mode="json")]})()
    assert answer_analyses(None, event)[0] == compare
    assert as_analyses(None) == []


# --- drawn -------------------------------------------------------------------------------

def _answer_app(compare_json: str, ranking_json: str, evidence_json: str):
    from components.analysis_view import evidence_pages
    from components.answer import opened_row, render_answer
    from components.citation_panel import render_citation_panel
    from core.agent.state import Evidence
    from core.analysis.model import AnalysisResult
    from core.app.cited import CitedPassage

    compare = AnalysisResult.model_validate_json(compare_json)
    ranking = AnalysisResult.model_validate_json(ranking_json)
    evidence = [Evidence.model_validate(e) for e in __import__("json").loads(evidence_json)]
    passages = {n: CitedPassage(n=n, kind="chunk", evidence_id=e.id, text=e.text, claim="",
                                source=e.label, section="Item 8", page=e.page)
                for n, e in enumerate(evidence, start=1)}
    citations = [{"n": n, "evidence_id": e.id, "kind": "chunk", "label": e.label}
                 for n, e in enumerate(evidence, start=1)]

    def panel(p):
        render_citation_panel(p, key=f"t_p{p.n}", row=opened_row("t", p.n))

    render_answer(compare.lead + " [2][3]", citations, key="t", passages=passages,
                  panel=panel, analyses=[compare, ranking],
                  evidence_ids=[e.id for e in evidence],
                  evidence_pages=evidence_pages(evidence))


def _app(real) -> AppTest:
    import json

    compare, ranking, chunks = real
    evidence = evidence_of(compare, chunks)
    return AppTest.from_function(_answer_app, default_timeout=120, args=(
        compare.model_dump_json(), ranking.model_dump_json(),
        json.dumps([e.model_dump(mode="json") for e in evidence]))).run()


def test_the_verdict_line_table_and_chart_are_under_the_answer(real):
    at = _app(real)
    assert not at.exception, at.exception
    markdown = [m.value for m in at.markdown]
    assert ("**NVIDIA had the higher operating margin\\: 15\\.66% in fiscal 2023 against "
            "AMD's 10\\.66% in fiscal 2025\\.**") in markdown
    assert any(c.value == "Decided by: 15\\.66% \\> 10\\.66%" for c in at.caption)
    assert any("Fiscal years end in different months" in c.value for c in at.caption)
    tables = [d.value for d in at.dataframe]
    assert tables[0]["subject"].tolist() == ["NVIDIA", "AMD"]
    assert tables[1]["figure"].tolist() == ["15.66%", "10.66%", "not found"]
    assert len(at.get("plotly_chart")) == 2  # each ranking has two figures to chart
    warnings = [w.value for w in at.warning]
    assert [w for w in warnings if "Intel" in w] == [
        "Not charted: Intel \\(no FY2025 operating income in the filings loaded\\) — not "
        "guessed."]
    for md in at.markdown:
        assert not md.proto.allow_html


def test_a_peer_row_source_opens_its_chunk_with_the_row_highlighted(real):
    at = _app(real)
    source = next(p for p in at.pills if p.label.startswith("Open a source (the chunk"))
    assert source.options == ["[2] NVIDIA · FY2023", "[3] AMD · FY2025"]
    source.set_value(1).run()
    assert not at.exception, at.exception
    assert at.session_state["t_pick"] == 3
    marked = [m.value for m in at.markdown if ":orange-background[" in m.value]
    assert marked and ":orange-background[Operating income \\| 3,694" in marked[0]


def test_two_companies_figures_are_never_charted_as_one_series(real):
    """The computation under a comparison: NVIDIA's FY2023 and AMD's FY2025 operating income
    are two companies' figures, not one metric over two periods."""
    from components.figures_view import by_company, multi_period, series_frame

    compare, _, _ = real
    assert multi_period(series_frame(compare.figures)) == ["operating_income", "revenue"]
    groups = by_company(compare.figures)
    assert [c for c, _ in groups] == ["NVIDIA CORP", "ADVANCED MICRO DEVICES, INC."]
    assert all(multi_period(series_frame(g)) == [] for _, g in groups)


def _card_app(compare_json: str):
    from components.run_view import RunView
    from core.agent import events as ev
    from core.agent.analysis_steps import AnalysisDone
    from core.analysis.model import AnalysisResult

    result = AnalysisResult.model_validate_json(compare_json)
    view = RunView(key="v", offline=True)
    view.add_all([ev.StepStarted(node="start_step", step=2, tool="analyze", depends_on=[0, 1],
                                 sub_question="Which had the higher operating margin?"),
                  AnalysisDone(node="analyze", step=2, result=result),
                  ev.PolicyDecided(node="policy", step=2, decision="FINISH", reason="done")])


def test_an_analyze_step_card_shows_its_verdict_table_and_chart(real):
    compare, _, _ = real
    at = AppTest.from_function(_card_app, default_timeout=120,
                               args=(compare.model_dump_json(),)).run()
    assert not at.exception, at.exception
    assert at.status[0].label.startswith("Step 3 · analysis") and "FINISH" in at.status[0].label
    assert any(m.value.startswith("**NVIDIA had the higher operating margin")
               for m in at.markdown)
    peers = [d.value for d in at.dataframe if "subject" in d.value.columns]
    assert [p["subject"].tolist() for p in peers] == [["NVIDIA", "AMD"]]
    assert len(at.get("plotly_chart")) >= 1
    assert not [t for t in at.tabs if t.label.startswith("Evidence")]  # no search
