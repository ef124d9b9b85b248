"""The HTML research note (issue 21): self-contained (no script, nothing fetched, no link
leaving the page), every untrusted text escaped, [n] markers jump to their numbered source,
the plan, each step's evidence and a figure's computation table included."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from core.agent.state import StepRecord
from core.app.report_html import export_html
from core.figures.model import FigureRequest, FigureResult, WorkRow
from core.foundation.config import Settings
from tests.test_report import HOSTILE, A, B, C, Evidence, _record


class Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def _note(tmp_path) -> str:
    settings = Settings(data_dir=tmp_path, _env_file=None)
    evidence = [
        Evidence(id="nv-00001", kind="chunk", text=HOSTILE, label="NVIDIA 10-K · Item 1A · p. 9",
                 doc_id="nv", section="Item 1A", page=9),
        Evidence(id="https://x.example/live", kind="web", text="AMD <b>ships</b>.",
                 url="https://x.example/live", label="Live page <i>x</i>"),
    ]
    record = _record([A, B, C], evidence)
    figure = FigureResult(request=FigureRequest(name="Revenue", formula="revenue"), value=26974.0,
                          display="$26,974 million",
                          rows=[WorkRow(input="Revenue", period="FY2023",
                                        value="$26,974 million", chunk_id="nv-00001",
                                        source="table row")])
    record.answer.figures = [figure]
    record.history = [StepRecord(step=0, sub_question=A.sub_question, tool="filing_search",
                                 query="competition risks", strategy="hybrid",
                                 evidence_ids=["nv-00001"],
                                 finding="Rivals: 2 < 3 <script>x</script>",
                                 coverage="answered")]
    return export_html(record, settings, {"nv": "NVIDIA CORP 10-K FY2023"})


def test_the_html_note_is_self_contained_and_escaped(tmp_path):
    page = _note(tmp_path)
    parser = Tags()
    parser.feed(page)
    tags = {t for t, _ in parser.tags}
    assert not tags & {"script", "img", "iframe", "link", "object", "embed", "svg", "b", "i"}
    hrefs = [a.get("href", "") for t, a in parser.tags if t == "a"]
    assert hrefs and all(h.startswith("#src-") for h in hrefs)  # only jumps inside the note
    assert not any(k.startswith("on") for _, a in parser.tags for k in a)  # no handlers
    assert "https://evil" not in page and "evil.example/" not in page
    assert "javascript:" not in page
    assert "<h1>NVIDIA vs AMD ?</h1>" in page  # the question's markup dropped
    assert "Rivals: 2 &lt; 3" in page  # a bare "<" shown as text
    assert "default-src 'none'" in page  # and the browser is told to fetch nothing


def test_the_html_note_holds_answer_sources_figures_plan_and_steps(tmp_path):
    page = _note(tmp_path)
    assert re.search(r'<a class="cite" href="#src-1">\[1\]</a>', page)
    assert 'id="src-1"' in page and 'id="src-2"' in page
    for heading in ("Answer", "Figures", "Plan", "Research, step by step", "Sources"):
        assert f"<h2>{heading}</h2>" in page, heading
    assert "$26,974 million" in page and "[1] table row" in page  # the figure's table
    assert "Evidence kept: <a class=\"cite\" href=\"#src-1\">[1]</a>" in page
    assert "filings: NVIDIA CORP 10-K FY2023" in page
