"""End to end on a real iXBRL 10-K (NVIDIA FY2023, EDGAR): facts extracted at ingest,
figure questions read, looked up and stated, with no LLM.

Needs the facts extractor (``core.ingest.facts``) and its fixture
(``tests/fixtures/figures/nvda-10k-fy2023.html.gz``), both from the facts work (issue 18).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("core.ingest.facts")

from core.figures.compute import answer_figure  # noqa: E402
from core.figures.question import parse_figure_question  # noqa: E402
from core.figures.statement import figure_sentence  # noqa: E402
from tests.analysis_fixtures import prepared  # noqa: E402
from tests.test_figures_compute import FactStore  # noqa: E402

FIXTURE = Path(__file__).parent / "fixtures" / "figures" / "nvda-10k-fy2023.html.gz"
if not FIXTURE.exists():
    pytest.skip("the NVIDIA iXBRL fixture is not here yet", allow_module_level=True)


@pytest.fixture(scope="module")
def nvidia():
    """NVIDIA's 10-K through the ingest pipeline (read once a session: analysis_fixtures)."""
    metas, facts, chunks = prepared()
    meta = next(m for m in metas if m.file_name == FIXTURE.stem)
    facts = [f for f in facts if f.doc_id == meta.doc_id]
    return FactStore(facts, [meta]), [meta], {c.chunk_id: c for c in chunks
                                              if c.doc_id == meta.doc_id}


def _answer(question, nvidia):
    store, docs, chunks = nvidia
    request = parse_figure_question(question, docs)
    assert request is not None
    return request, answer_figure(request, store), chunks


def test_revenue_and_its_change(nvidia):
    marks: dict[str, str] = {}
    request, result, chunks = _answer("What was NVIDIA's total revenue in fiscal 2023 and how "
                                      "did it change from fiscal 2022?", nvidia)
    assert request.formula == "revenue[FY2023]" and request.periods == ["FY2022", "FY2023"]
    assert result.value == 26974 and result.inputs[0].fact.source == "xbrl"
    text = figure_sentence(result, "NVIDIA", lambda c: marks.setdefault(c, f"[{len(marks)+1}]"))
    assert text == ("NVIDIA's revenue was $26,974 million in FY2023, about flat from $26,914 "
                    "million in FY2022 (+0.2%) [1].")
    cited = chunks[result.inputs[0].fact.chunk_id]
    assert "26,974" in cited.text


def test_capex_positive_and_a_ratio(nvidia):
    _, capex, _ = _answer("What was NVIDIA's capital expenditure in fiscal 2023, in USD "
                          "millions?", nvidia)
    assert capex.value == 1833
    _, ratio, _ = _answer("What is NVIDIA's FY2023 current ratio? Round to two decimal "
                          "places.", nvidia)
    assert ratio.value == round(23073 / 6563, 2)
    _, tax, _ = _answer("What was NVIDIA's effective tax rate in fiscal 2023?", nvidia)
    assert tax.display == "-4.5%"       # an income tax benefit of $187 million
    _, turnover, _ = _answer("What is NVIDIA's FY2023 fixed asset turnover?", nvidia)
    assert turnover.value == round(26974 / ((2778 + 3807) / 2), 2)
