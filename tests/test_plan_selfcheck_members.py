"""The self-check knows a named segment's figures (issue 37, item 2).

A run that answered "Did NVIDIA's revenue grow ...?" from total revenue also quotes the
filing's segment lines ("Data Center revenue ... $15.01 billion, up 41%"). Those figures are
the segment's, not the total's: checked against the segment's own facts and the changes
between them, a right figure survives and a wrong one is removed, over generated sentences
(segments x wordings x right / wrong figures). The segment figures below are the ones NVIDIA
printed in its fiscal 2023 10-K (Market Platform Highlights)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.agent.roles.answer import knowledge
from core.agent.roles.selfcheck import check_answer
from core.agent.state import Evidence
from core.app.research import ResearchService
from core.foundation.config import Settings

FIXTURE = Path(__file__).parent / "fixtures" / "figures" / "nvda-10k-fy2023.html.gz"
QUESTION = "Did NVIDIA's revenue grow in fiscal 2023, and what drove Data Center?"

# segment: (FY2023 revenue in $ billions as printed, change from FY2022 in % as printed)
SEGMENTS = {"Data Center": ("15.01", 41), "Gaming": ("9.07", -27),
            "Professional Visualization": ("1.54", -27), "Automotive": ("903 million", 60)}
WORDINGS = [
    "{seg} revenue for fiscal year 2023 was ${amount}, {way} {pct}% from a year ago [{n}].",
    "NVIDIA's {seg} segment revenue was ${amount} in fiscal 2023, {way} {pct}% [{n}].",
    "In fiscal 2023, revenue from {seg} was ${amount}, {way} {pct}% year over year [{n}].",
]


@pytest.fixture(scope="module")
def run(tmp_path_factory, ingested_store):
    from core.app.corpus import Corpus
    from testkit.fakes.embedder import HashEmbedder

    store = ingested_store(tmp_path_factory.mktemp("nvda-check") / "store", FIXTURE.stem)
    settings = Settings(data_dir=store, cache_enabled=False, _env_file=None)
    service = ResearchService.from_corpus(settings, Corpus(settings, embedder=HashEmbedder()))
    record = service.ask(QUESTION)
    return service, record


def _segment_evidence(service, record, segment: str) -> dict[int, Evidence]:
    """The run's evidence, and last the chunk holding the segment's FY2023 revenue fact."""
    from core.figures.segments_asked import members_in_scope

    facts = service.deps.facts
    doc = record.plan[0].doc_ids[0]
    chunk_id = next(f.chunk_id for m, fs in members_in_scope(facts, [doc]) if m.name == segment
                    for f in fs if f.metric == "revenue" and f.fiscal_year == 2023
                    and f.chunk_id)
    chunk = facts.get_chunks([chunk_id])[0]
    numbered = {n: e for n, e in enumerate(record.evidence, start=1)}
    numbered[len(numbered) + 1] = Evidence(id=chunk.chunk_id, kind="chunk", text=chunk.text,
                                           doc_id=chunk.doc_id, page=chunk.page)
    return numbered


def test_the_verdict_rests_on_total_revenue(run):
    _, record = run
    analysis = next(r.analysis for r in record.history if r.analysis is not None)
    assert analysis.spec.name == "revenue"
    assert record.answer.text.startswith("Yes. NVIDIA's revenue grew 0.2% in fiscal 2023")


def test_the_segment_line_the_text_step_found_is_kept_in_the_answer(run):
    _, record = run
    text_step = next(r for r in record.history if r.figure is None and r.analysis is None)
    assert "Data Center" in record.plan[text_step.step].sub_question
    driver = next(e for e in record.evidence if "hyperscaler and cloud usage" in e.text)
    assert driver.id in text_step.evidence_ids
    n = record.evidence.index(driver) + 1
    assert f"[{n}]" in record.answer.text  # the driver's passage is cited in the answer
    segment_lines = [c for c in record.answer.checks if "Data Center revenue" in c.sentence
                     and "41%" in c.sentence]
    assert segment_lines and all(c.kept for c in segment_lines)
    assert not [c for c in record.answer.checks if not c.kept]


CASES = [(seg, k, right) for seg in SEGMENTS for k in range(len(WORDINGS))
         for right in (True, False)]


@pytest.mark.parametrize(("segment", "k", "right"), CASES,
                         ids=[f"{s}-{k}-{'right' if r else 'wrong'}" for s, k, r in CASES])
def test_a_segments_figures_are_checked_against_its_own_facts(run, segment, k, right):
    service, record = run
    amount, pct = SEGMENTS[segment]
    amount = amount if " " in amount else f"{amount} billion"
    if not right:
        pct = pct + 16  # a change no two of the segment's years make
    numbered = _segment_evidence(service, record, segment)
    sentence = WORDINGS[k].format(seg=segment, amount=amount, way="up" if pct > 0 else "down",
                                  pct=abs(pct), n=len(numbered))
    know = knowledge(record.history)
    checks, _ = check_answer(sentence, numbered, service.deps, figures=know)
    assert len(checks) == 1
    if right:
        assert checks[0].verdict == "supported", checks[0].reason
        assert segment in checks[0].reason or "cited text" in checks[0].reason
    else:
        assert checks[0].verdict == "unsupported"
        assert f"{segment} revenue" in checks[0].reason and str(abs(pct)) in checks[0].reason


def test_without_the_fact_store_a_segment_line_is_left_to_the_text_rule(run):
    _, record = run
    numbered = {n: e for n, e in enumerate(record.evidence, start=1)}
    n = next(n for n, e in numbered.items() if "up 41%" in e.text)
    know = knowledge(record.history)
    checks, _ = check_answer(f"Data Center revenue for fiscal year 2023 was $15.01 billion, "
                             f"up 41% from fiscal year 2022 [{n}].", numbered, figures=know)
    assert checks[0].verdict == "supported", checks[0].reason
    checks, _ = check_answer(f"NVIDIA's revenue for fiscal year 2023 was $15.01 billion, up "
                             f"41% [{n}].", numbered, figures=know)
    assert checks[0].verdict == "unsupported"  # the total's figure is still checked
