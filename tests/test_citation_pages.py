"""One citation, one page everywhere: the printed page number when the filing prints one,
else the PDF page said as such, from ``core.foundation.pages.page_ref`` in the citation
label, Sources, the Library, the search hits, Compare's evidence and the HTML export."""

from __future__ import annotations

import itertools

import pytest

from components.compare_view import evidence_frame
from components.evidence import _where
from components.library import chunk_label
from core.agent.events import HitView
from core.agent.roles.retrieval import hit_to_evidence
from core.agent.state import Answer, Evidence
from core.app.cited import CitedPassage
from core.app.report_html import render_html
from core.app.runs import RunRecord
from core.foundation.pages import label_for, page_ref
from core.foundation.types import Chunk, DocumentMeta, Hit

PAGES = [(54, "53"), (12, "10"), (88, "F-7"), (3, "iii"), (120, "118")]


def _label(chunk: Chunk) -> str:
    """The Library's collapsed label as read (Markdown escapes dropped)."""
    return chunk_label(chunk).replace("\\", "")


def _chunk(page: int, label: str | None) -> Chunk:
    return Chunk(chunk_id=f"d1-{page:05d}", doc_id="d1", index=page, text="Revenue grew.",
                 section="Item 7", page=page, page_label=label, start=0, end=13)


def _doc() -> DocumentMeta:
    return DocumentMeta(doc_id="d1", file_name="acme.pdf", company="Acme Tool Co",
                        form_type="10-K", period="FY2024")


@pytest.mark.parametrize(("page", "label"), PAGES)
def test_every_view_names_the_printed_page(page, label):
    chunk = _chunk(page, label)
    hit = Hit(chunk=chunk, document=_doc(), rank=1, score=0.5)
    printed, short = f"page {label}", f"p. {label}"
    assert hit.citation_label.endswith(f", {short}")
    assert CitedPassage(n=1, kind="chunk", evidence_id=chunk.chunk_id, section="Item 7",
                        page=page, page_label=label).where == f"Item 7 · {printed}"
    assert f"· {short} —" in _label(chunk)
    view = HitView.from_hit(hit)
    assert view.page_label == label and _where(view) == f"Item 7 · {short}"
    ev = hit_to_evidence(hit).model_copy(update={"page_label": label})
    assert evidence_frame([ev]).iloc[0]["where"] == f"Item 7 · {short}"
    record = RunRecord(question="q", evidence=[ev], answer=Answer(text="Revenue grew. [1]"))
    html = render_html(record)
    assert f"Item 7, {printed}" in html and f"page {page}<" not in html
    for shown in (hit.citation_label, _label(chunk), _where(view), html):
        assert f"p. {page}" not in shown.replace(f"p. {label}", "")


@pytest.mark.parametrize("page", [5, 54, 231])
def test_without_a_printed_number_the_pdf_page_is_said_as_such(page):
    chunk = _chunk(page, None)
    hit = Hit(chunk=chunk, document=_doc(), rank=1, score=0.5)
    assert hit.citation_label.endswith(f", PDF p. {page}")
    assert f"PDF p. {page}" in _label(chunk)
    assert CitedPassage(n=1, kind="chunk", evidence_id="x", page=page).where == \
        f"PDF page {page}"
    ev = Evidence(id="d1-1", kind="chunk", text="t", page=page, section="Item 8")
    html = render_html(RunRecord(question="q", evidence=[ev], answer=Answer(text="t [1]")))
    assert f"Item 8, PDF page {page}" in html


def test_a_later_page_of_the_chunk_is_numbered_from_its_first():
    for (page, label), later in itertools.product([(54, "53"), (90, "F-7")], [0, 1, 2]):
        got = label_for(page + later, page, label)
        prefix = "F-" if label.startswith("F-") else ""
        assert got == f"{prefix}{int(label.removeprefix('F-')) + later}"
    assert label_for(10, 9, "iii") is None and page_ref(10, None) == "PDF page 10"
    assert page_ref(None, None) == ""


class _Store:
    """Facts and the chunks they were read from (the corpus store's two reads)."""

    def __init__(self, facts, chunks):
        self._facts, self._chunks = facts, {c.chunk_id: c for c in chunks}

    def facts(self, doc_ids=None, *, metric=None, fiscal_years=None, concept=None,
              statement=None):
        return [f for f in self._facts if fiscal_years is None or f.fiscal_year in fiscal_years]

    def get_chunks(self, ids):
        return [self._chunks[i] for i in ids if i in self._chunks]

    def documents(self):
        return [_doc()]


def _revenue_fact(chunk: Chunk, page: int):
    """A revenue fact printed in ``chunk``, on ``page``."""
    from core.foundation.types import Fact

    return Fact(fact_id="f1", doc_id="d1", source="table", label="Total revenue",
                metric="revenue", statement="income", period_type="duration", fiscal_year=2024,
                fiscal_period="FY", months=12, end="2024-12-31", value=26_974e6, unit="USD",
                scale=6, chunk_id=chunk.chunk_id, page=page,
                row="Total revenue | $26,974 | $26,914")


@pytest.mark.parametrize(("page", "label", "later"), [(54, "53", 0), (40, "38", 1),
                                                       (90, "F-7", 0), (12, "10", 2)])
def test_a_figure_s_facts_carry_the_printed_page_of_their_chunk(page, label, later):
    from components.figure_step import facts_frame
    from core.agent.events import FactView
    from core.figures.compute import lookup
    chunk = _chunk(page, label)
    fact = _revenue_fact(chunk, page + later)
    found = lookup(_Store([fact], [chunk]), "revenue", "FY2024")
    assert found.fact.page_label == label_for(page + later, page, label)
    view = FactView.from_fact(found.fact)
    expected = page_ref(page + later, label_for(page + later, page, label), short=True)
    assert facts_frame([view]).iloc[0]["page"] == expected
    assert expected.startswith("p. ") and "PDF" not in expected


@pytest.mark.parametrize(("page", "label", "later"), [(54, "53", 1), (40, "38", 2),
                                                       (90, "F-7", 1), (12, "10", 0)])
def test_a_figure_s_source_names_the_page_its_row_is_printed_on(page, label, later):
    """Sources, the exports and the peer table name one page for a figure's citation: the
    evidence made from the fact's chunk moves its printed number with the fact's page (it
    said the chunk's first page, 'page 53', beside the peer table's 'p. 54')."""
    from types import SimpleNamespace

    from core.agent.figure_steps import fact_evidence
    from core.figures.model import FigureInput
    chunk = _chunk(page, label)
    fact = _revenue_fact(chunk, page + later)
    deps = SimpleNamespace(facts=_Store([fact], [chunk]),
                           corpus=SimpleNamespace(doc=lambda _d: _doc()))
    inp = FigureInput(ref="revenue[FY2024]", label="Revenue, FY2024", metric="revenue",
                      period="FY2024", fact=fact)
    ev = fact_evidence([chunk.chunk_id], [inp], deps)[chunk.chunk_id]
    expected = label_for(page + later, page, label)
    assert (ev.page, ev.page_label) == (page + later, expected)
    from core.app.cited import resolve_citation

    spanning = chunk.model_copy(update={"page_end": page + 2})
    deps.facts = _Store([fact], [spanning])
    deps.facts.get_document = lambda _d: _doc()
    deps.facts.chunks = lambda _d, _s: [spanning]
    record = RunRecord(question="q", evidence=[ev], answer=Answer(text="Revenue. [1]"))
    shown = resolve_citation(deps.facts, None, {"n": 1, "evidence_id": ev.id, "kind": "chunk"},
                             record=record).where
    grid = page_ref(fact.page, label_for(fact.page, chunk.page, chunk.page_label), short=True)
    assert shown == f"Item 7 · {grid.replace('p.', 'page')}"
    html = render_html(RunRecord(question="q", evidence=[ev],
                                 answer=Answer(text="Revenue was $26,974 million. [1]")))
    assert f"page {expected}" in html and (later == 0 or f"page {label}<" not in html)


@pytest.mark.parametrize(("page", "label"), PAGES)
def test_the_peer_table_and_the_work_rows_name_the_page_sources_names(page, label):
    """AMD's FY2023 net income: Sources 'page 58', the peer table '[3] p. 61' (the PDF page
    said as a printed one); the computation table did the same. Both now say what Sources
    says, shortened."""
    from components.analysis_view import evidence_pages, source_cell
    from components.figures_view import source_cell as work_cell
    from core.analysis.model import PeerRow
    from core.figures.compute import _row
    from core.figures.model import FigureInput
    from core.foundation.types import Fact

    chunk = _chunk(page, label)
    ev = hit_to_evidence(Hit(chunk=chunk, document=_doc(), rank=1, score=0.5))
    sources = CitedPassage(n=3, kind="stored", evidence_id=ev.id, page=ev.page,
                           page_label=ev.page_label).where.replace("page", "p.")
    row = PeerRow(label="AMD", value=3.8, chunk_ids=[chunk.chunk_id])
    assert source_cell(row, {chunk.chunk_id: 3}, evidence_pages([ev])) == f"[3] {sources}"
    fact = Fact(fact_id="f1", doc_id="d1", source="xbrl", label="Net income",
                concept="us-gaap:NetIncomeLoss", metric="net_income", statement="income",
                period_type="duration", fiscal_year=2023, fiscal_period="FY", months=12,
                end="2023-12-30", value=854e6, unit="USD", scale=6, chunk_id=chunk.chunk_id,
                page=page, page_label=label)
    work = _row(FigureInput(ref="net_income[FY2023]", label="Net income, FY2023",
                            metric="net_income", period="FY2023", value=854e6, fact=fact))
    assert work_cell(work, {chunk.chunk_id: 3}) == f"[3] {sources} · XBRL us-gaap:NetIncomeLoss"
    assert f"p. {page}" not in sources.replace(f"p. {label}", "")


@pytest.mark.parametrize(("page", "label", "more"), [(54, "53", 1), (12, "10", 2),
                                                      (88, "F-7", 1), (54, None, 1),
                                                      (3, "iii", 1), (40, "38", 0)])
def test_the_library_names_every_page_a_chunk_spans(page, label, more):
    """A figure's row on the chunk's second page is cited at that page ('page 54'); the
    Library, opening the chunk, said only its first ('p. 53'). It names the span, so the
    page cited lies inside what the Library says."""
    chunk = _chunk(page, label).model_copy(update={"page_end": page + more})
    shown = _label(chunk)
    last = label_for(page + more, page, label)
    if more and label and last:
        assert f"· pp. {label}\u2013{last} " in shown, shown
    elif more and not label:
        assert f"· PDF pp. {page}\u2013{page + more} " in shown, shown
    else:  # one page, or a printed number that does not count ('iii')
        assert f"· {page_ref(page, label, short=True)} " in shown, shown
