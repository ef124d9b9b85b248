"""Adjacent citation markers in exports (issue 38 item 17): "[2][3]" was read as a
Markdown reference link and left as a bare "2" in the Markdown and HTML exports. Answers
built from slots (two to four markers side by side, at a sentence's end or inside it,
beside a real reference-style link that must still be made inert)."""

from __future__ import annotations

import itertools
import re

import pytest

from core.agent.state import Answer
from core.app.report import inert, render_markdown
from core.app.report_html import render_html
from core.app.runs import RunRecord

CLAIMS = ["Revenue rose 5%", "Operating margin fell to 21.3%", "Data Center grew 41%"]


@pytest.mark.parametrize(("claim", "count", "first", "inside"), itertools.product(
    CLAIMS, [2, 3, 4], [1, 2, 5], [False, True]))
def test_adjacent_markers_survive_both_exports(claim, count, first, inside):
    markers = "".join(f"[{n}]" for n in range(first, first + count))
    text = f"{claim} {markers}, then it stayed." if inside else f"{claim} {markers}."
    text += " See [the site][1] too."  # a reference-style link: made inert
    record = RunRecord(question="q", answer=Answer(text=text))
    md = render_markdown(record)
    page = re.sub(r"<[^>]+>", "", render_html(record))
    for out in (md, page, inert(text)):
        assert f"{claim} {markers}" in out, out[:600]
        assert "[the site][1]" not in out and "See the site too." in out
