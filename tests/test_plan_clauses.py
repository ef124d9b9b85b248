"""A segment binds only to the measure of its own clause (issue 37, item 1).

"Did NVIDIA's revenue grow in fiscal 2023, and what drove Data Center?" asks the yes / no of
total revenue; Data Center belongs to the second clause, a text step. The wordings are made
from slots (companies x measures x segments x clause orders x templates) on the two real
iXBRL 10-Ks; a segment named in the measure's own clause still binds (the control)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from core.agent.roles.planner import make_plan
from core.app.research import ResearchService
from core.foundation.config import Settings

FIXTURES = Path(__file__).parent / "fixtures" / "figures"

COMPANIES = {"nvda": ("NVIDIA", "2023", ["Data Center", "Gaming"]),
             "amd-": ("AMD", "2025", ["Data Center", "Embedded"])}
MEASURES = ["revenue", "operating income"]
YES_NO = ["Did {co}'s {m} grow in fiscal {y}", "Did {co}'s {m} increase in fiscal {y}",
          "Has {co}'s {m} declined in fiscal {y}"]
TEXT = ["what drove {seg}", "what drove its {seg} segment", "why did {seg} change",
        "how does {co} describe {seg}", "what happened in {seg}"]


@pytest.fixture(scope="module")
def deps(tmp_path_factory, ingested_store):
    from core.app.corpus import Corpus
    from testkit.fakes.embedder import HashEmbedder

    store = ingested_store(tmp_path_factory.mktemp("clauses") / "store",
                           "nvda-10k-fy2023.html", "amd-10k-fy2025.htm")
    settings = Settings(data_dir=store, cache_enabled=False, _env_file=None)
    service = ResearchService.from_corpus(settings, Corpus(settings, embedder=HashEmbedder()))
    service.refresh_corpus()
    return service.deps


def _wordings():
    for key, (co, year, segments) in COMPANIES.items():
        for i, (m, seg, first) in enumerate(itertools.product(MEASURES, segments,
                                                              (True, False))):
            ask = YES_NO[i % len(YES_NO)].format(co=co, m=m, y=year)
            why = TEXT[(i + len(key)) % len(TEXT)].format(co=co, seg=seg)
            if first:
                q = f"{ask}, and {why}?"
            else:
                q = f"{why[0].upper()}{why[1:]}, and {ask[0].lower()}{ask[1:]}?"
            yield key, co, m, seg, q


WORDINGS = list(_wordings())


def test_the_wordings_cover_every_slot():
    assert len(WORDINGS) == 16
    assert {w[3] for w in WORDINGS} == {"Data Center", "Gaming", "Embedded"}
    assert sum(w[4].startswith(("Did", "Has")) for w in WORDINGS) == 8
    assert {t.split()[1] for t in TEXT} <= {w[4].split()[1].lower().rstrip(",")
                                            for w in WORDINGS} | {"drove", "did", "does"}


@pytest.mark.parametrize(("key", "co", "measure", "segment", "question"), WORDINGS,
                         ids=[w[4] for w in WORDINGS])
def test_a_segment_of_another_clause_never_binds_to_the_measure(deps, key, co, measure,
                                                               segment, question):
    steps, _, notes, _ = make_plan(question, deps, [])
    verdict = [s for s in steps if s.tool == "analyze"]
    assert verdict, (question, [(s.tool, s.sub_question) for s in steps])
    spec = verdict[0].analysis
    assert spec.kind == "verdict" and segment not in spec.name, spec
    assert measure in spec.name
    figures = [s for s in steps if s.tool in ("compute", "figure_lookup")]
    assert figures and all(s.member is None and "{" not in (s.formula or "")
                           for s in figures), [(s.formula, s.member) for s in figures]
    text = [s for s in steps if s.tool == "filing_search"]
    assert len(text) == 1 and segment in text[0].sub_question
    # the text step is scoped to the company and carries no keyword of the yes / no clause
    ids = {d.doc_id for d in deps.corpus.documents if d.file_name.startswith(key)}
    assert set(text[0].doc_ids) == ids
    assert not {"grow", "increase", "declined", "fiscal"} & {k.lower() for k in
                                                             text[0].keywords}


@pytest.mark.parametrize(("co", "year", "region"), [
    ("NVIDIA", "2023", "Taiwan"), ("NVIDIA", "2023", "United States"),
    ("AMD", "2025", "United States"), ("AMD", "2025", "Singapore")])
def test_a_region_of_another_clause_is_a_text_step(deps, co, year, region):
    for question in (f"Did {co}'s revenue grow in fiscal {year}, and what happened in "
                     f"{region}?",
                     f"Why did sales in {region} change, and did {co}'s revenue grow in "
                     f"fiscal {year}?"):
        steps, _, _, _ = make_plan(question, deps, [])
        spec = next(s.analysis for s in steps if s.tool == "analyze")
        assert spec.name == "revenue", (question, spec)
        assert all(s.member is None and "{" not in (s.formula or "") for s in steps)
        text = [s for s in steps if s.tool == "filing_search"]
        assert len(text) == 1 and region in text[0].sub_question, question


@pytest.mark.parametrize(("co", "year", "segment"),
                         [("NVIDIA", "2023", "Data Center"), ("NVIDIA", "2023", "Gaming"),
                          ("AMD", "2025", "Data Center"), ("AMD", "2025", "Embedded"),
                          ("AMD", "2025", "Client")])
def test_a_segment_in_the_measures_own_clause_still_binds(deps, co, year, segment):
    for question in (f"Did {co}'s {segment} revenue grow in fiscal {year}, and why?",
                     f"What drove the change, and did {co}'s {segment} revenue grow in "
                     f"fiscal {year}?"):
        steps, _, _, _ = make_plan(question, deps, [])
        spec = next(s.analysis for s in steps if s.tool == "analyze")
        assert segment in spec.name, (question, spec)
        assert any(segment in (s.formula or "") or s.member == segment for s in steps)


@pytest.mark.parametrize("written", ["AMD's", "amd's", "Advanced Micro Devices'"])
@pytest.mark.parametrize("member", ["Client", "Gaming"])
def test_a_member_named_after_its_company_is_never_read_as_a_brand(deps, written, member):
    """"Client" begins AMD's "Client and Gaming" segment, so alone it reads as AMD's brand;
    after AMD is named it is AMD's Client product line, never AMD again."""
    from core.reading.read import normalise

    text, matches = normalise(f"What was {written} {member} revenue in fiscal 2025?",
                              deps.corpus.documents, deps.facts)
    assert f" {member} revenue" in text and "Advanced Micro Devices revenue" not in text
    assert not [m for m in matches if m.words == member]
