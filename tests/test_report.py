"""Issue 11, item 10: the Markdown export records the analyst's plan edits, labels demo web
articles, and strips active content (images, HTML, links) that evidence carried."""

from __future__ import annotations

import pytest

from core.agent.events import PlanApproved, PlanProposed
from core.agent.state import Answer, Evidence, PlanStep
from core.app.report import inert, plan_edits
from core.app.runs import RunRecord, export_markdown
from core.foundation.config import Settings

A = PlanStep(sub_question="What are NVIDIA's competition risks?", section="Item 1A",
             doc_ids=["nv"], keywords=["competition"])
B = PlanStep(sub_question="AMD AI chip news in 2024", tool="web_search")
C = PlanStep(sub_question="How does AMD's strategy bear on those risks?", doc_ids=["nv"])

HOSTILE = ("AMD ships MI300X. ![logo](https://evil.example/x.png) <img src=x onerror=alert(1)>"
           " <script>steal()</script><b>bold</b> [read more](javascript:alert(1)) see "
           "https://evil.example/track?id=1 or www.evil.example <https://evil.example/a>\n"
           "[ref]: https://evil.example/ref")


@pytest.mark.parametrize("text,kept,gone", [
    ("![chart](https://e.x/c.png)", "(image: chart removed)", "e.x/c.png"),
    ("<img src='https://e.x/p.gif'>", "", "<img"),
    ("<iframe src=https://e.x></iframe>ok", "ok", "iframe"),
    ("[click](javascript:alert(1))", "click", "javascript"),
    ("go to https://e.x/a?b=1 now", "(link to e.x removed)", "https://"),
    ("a < b and c > d", "a &lt; b and c &gt; d", "<"),
])
def test_inert_strips_active_content(text, kept, gone):
    out = inert(text)
    assert kept in out and gone not in out


def _record(plan_after, evidence, edited=True) -> RunRecord:
    events = [PlanProposed(node="planner", plan=[A, B, C], source="offline"),
              PlanApproved(node="review", plan=plan_after, edited=edited)]
    return RunRecord(question="NVIDIA vs AMD <b>?</b>", plan=plan_after, events=events,
                     evidence=evidence, answer=Answer(text=f"Risk [1]. News [2]. {HOSTILE}"))


def test_the_export_records_each_edit_of_the_plan():
    edited_a = A.model_copy(update={"doc_ids": ["nv", "amd"], "section": None})
    mine = PlanStep(sub_question="What did analysts say?", tool="web_search")
    lines = plan_edits(_record([B, edited_a, mine], []).events,
                       {"nv": "NVIDIA CORP 10-K FY2023", "amd": "AMD 10-K FY2025"})
    assert lines == [
        "step 1: moved from step 2, otherwise as proposed",
        "step 2 (was step 1): edited: filings NVIDIA CORP 10-K FY2023 → NVIDIA CORP 10-K "
        "FY2023, AMD 10-K FY2025; section Item 1A → any",
        "step 3: edited: sub-question was “How does AMD's strategy bear on those risks?”; "
        "tool filing search → web search; filings NVIDIA CORP 10-K FY2023 → every filing",
    ]
    assert plan_edits(_record([A, B, C], [], edited=False).events) == []
    assert plan_edits(_record([A, B], []).events) == [
        "removed: proposed step 3 “How does AMD's strategy bear on those risks?”"]


def test_the_export_says_the_plan_was_edited_and_strips_active_content(tmp_path):
    settings = Settings(data_dir=tmp_path, _env_file=None)
    evidence = [
        Evidence(id="nv-00001", kind="chunk", text=HOSTILE, label="NVIDIA 10-K · Item 1A · p. 9",
                 doc_id="nv"),
        Evidence(id="https://www.reuters.com/technology/amd-forecasts-first-quarter-revenue-"
                 "below-estimates-2024-01-30/", kind="web", text="AMD lifts forecast.",
                 url="https://www.reuters.com/technology/amd-forecasts-first-quarter-revenue-"
                 "below-estimates-2024-01-30/", label="AMD lifts (Reuters · demo article)"),
        Evidence(id="https://x.example/live", kind="web", text="Live [x](https://x.example)",
                 url="https://x.example/live", label="Live page"),
    ]
    md = export_markdown(_record([A.model_copy(update={"doc_ids": []}), B, C], evidence),
                         settings, {"nv": "NVIDIA CORP 10-K FY2023"})
    assert "The analyst edited the proposed plan before the run:" in md
    assert "- step 1: edited: filings NVIDIA CORP 10-K FY2023 → every filing" in md
    assert "1. NVIDIA's competition risks" not in md and "The plan as run:" in md
    for active in ("![", "<img", "<script", "<b>", "](", "javascript:", "https://evil",
                   "www.evil", "[ref]:"):
        assert active not in md, active
    assert "(image: logo removed)" in md and "read more" in md
    assert "(link to evil.example removed)" in md
    sources = md.split("## Sources", 1)[1].splitlines()
    demo, live = [line for line in sources if line.startswith(("2. ", "3. "))]
    assert demo.endswith("— demo article written for this project; URL unverified")
    assert "`https://www.reuters.com/technology/" in demo  # the URL shown as inert code
    assert "unverified" not in live and "`https://x.example/live`" in live


def test_an_unedited_plan_is_recorded_as_approved_as_proposed(tmp_path):
    md = export_markdown(_record([A, B, C], [], edited=False), Settings(data_dir=tmp_path,
                                                                       _env_file=None))
    assert "Approved by the analyst as proposed." in md and "edited" not in md
