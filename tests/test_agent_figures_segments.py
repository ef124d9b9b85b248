"""Segment questions through the agent, offline, on NVIDIA's real FY2023 10-K: the plan's
look-up steps carry the member, a share of the total is computed from the segment's and
the total's look-ups, the answer opens with the figure, and a member edited at review is
looked up in its place."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.app.research import ResearchService
from core.foundation.config import Settings

FIXTURE = Path(__file__).parent / "fixtures" / "figures" / "nvda-10k-fy2023.html.gz"


@pytest.fixture(scope="module")
def nvda(tmp_path_factory, ingested_store):
    from core.app.corpus import Corpus
    from testkit.fakes.embedder import HashEmbedder

    store = ingested_store(tmp_path_factory.mktemp("nvda-seg") / "store", FIXTURE.stem)
    settings = Settings(data_dir=store, cache_enabled=False, _env_file=None)
    return ResearchService.from_corpus(settings, Corpus(settings, embedder=HashEmbedder()))


def test_a_segment_figure_is_one_member_look_up(nvda):
    record = nvda.ask("What was NVIDIA's Graphics segment operating income in fiscal 2023?")
    assert [(s.tool, s.metric, s.member, s.periods) for s in record.plan] == \
        [("figure_lookup", "operating_income", "Graphics", ["FY2023"])]
    first = record.answer.text.splitlines()[0]
    assert first == "NVIDIA's Graphics segment operating income in FY2023 was $4,552 million [1]."
    cited = record.evidence[0]
    assert "Graphics" in cited.text and "4,552" in cited.text
    assert record.total_usage.calls == 0


def test_a_share_of_the_total_looks_up_both_and_computes(nvda):
    record = nvda.ask("What percentage of NVIDIA's fiscal 2023 revenue came from its Data "
                      "Center market platform?")
    steps = [(s.tool, s.metric, s.member) for s in record.plan]
    assert steps[:3] == [("figure_lookup", "revenue", "Data Center"),
                         ("figure_lookup", "revenue", None), ("compute", None, None)]
    assert record.plan[2].formula == "revenue{Data Center}[FY2023] / revenue[FY2023]"
    assert record.plan[2].depends_on == [0, 1]
    first = record.answer.text.splitlines()[0]
    assert first.startswith("NVIDIA's Data Center share of revenue in FY2023 was 55.6% [")
    assert record.answer.figures[0].value == 55.6


def test_a_member_edited_at_review_is_looked_up(nvda):
    thread_id, plan, _ = nvda.start("What was NVIDIA's Gaming revenue in fiscal 2023?")
    assert plan[0].member == "Gaming"
    edited = [s.model_dump() for s in plan]
    edited[0].update(member="Automotive", sub_question="Look up the revenue of Automotive.")
    record = nvda.resume(thread_id, edited).run()
    assert record.answer.figures[0].value == 903
    assert record.answer.text.startswith("NVIDIA's Automotive revenue in FY2023 was $903 "
                                         "million")
