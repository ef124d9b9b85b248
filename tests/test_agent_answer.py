"""The offline answer is an extractive brief (issue 10, item 4 / helper C item 1), on a
two-company corpus: per part, the best line of each kept source, figures with their period,
line item and unit, and a banner saying it is extractive."""

from __future__ import annotations

import re

from core.agent.roles.brief import BANNER, PER_PART, readable_row
from core.agent.roles.citations import validate_citations
from core.agent.roles.synthesize import offline_answer
from core.agent.state import Evidence, StepRecord
from tests.answer_fakes import question_service

ROW = ("Net sales | $ 2,184.6 | $ 1,527.3 (Fiscal 2024 | Fiscal 2023; CONSOLIDATED STATEMENTS "
       "OF INCOME, in millions)")


def _record(context: str, ids: list[str]) -> StepRecord:
    return StepRecord(step=0, sub_question="What were Borealis's net sales in fiscal 2024?",
                      tool="filing_search", query="q", evidence_ids=ids, coverage="answered",
                      context=context)


def test_readable_row_pairs_each_figure_with_its_period_and_keeps_the_unit():
    assert readable_row(ROW) == ("Net sales: $2,184.6 (Fiscal 2024); $1,527.3 (Fiscal 2023) — "
                                 "CONSOLIDATED STATEMENTS OF INCOME, in millions")
    assert readable_row("Revenue grew 12% in fiscal 2024.") == "Revenue grew 12% in fiscal 2024."


def quoted(text: str) -> list[str]:
    """The brief's quoted lines (each cites), without their bullet."""
    return [re.sub(r"^- ", "", ln) for ln in text.splitlines() if re.search(r"\[\d+\]", ln)]


LABEL = "Borealis 10-K FY2024 — Item 7, p. {}"  # one filing: one speaker


def _evidence(ids: list[str], context: str = "") -> dict[int, Evidence]:
    """Each id's chunk: the context lines citing it, as the offline distiller took them."""
    def text(i: str) -> str:
        return "\n".join(ln[2:].rsplit(" [", 1)[0] for ln in context.splitlines()
                         if ln.endswith(f"[{i}]")) or "t"

    return {n: Evidence(id=i, kind="chunk", text=text(i), doc_id="b", label=LABEL.format(n))
            for n, i in enumerate(ids, start=1)}


def test_brief_quotes_the_best_line_of_each_kept_source():
    context = "\n".join([
        f"- {ROW} [b-1]",
        "- Net sales rose 43% on higher volumes in North America. [b-1]",
        "- Net sales growth was driven by pricing in the snacks segment. [b-2]",
        "- Borealis expects net sales to grow 4% to 6% in fiscal 2025. [b-3]",
    ])
    rec = _record(context, ["b-1", "b-2", "b-3"])
    ev = _evidence(["b-1", "b-2", "b-3"], context)
    text, not_found = offline_answer("q", [rec], ev, None)
    assert text.endswith(BANNER) and not_found == []
    lines = quoted(text)
    assert [re.findall(r"\[(\d+)\]", ln) for ln in lines] == [["1"], ["2"], ["3"]]
    assert "$2,184.6 (Fiscal 2024)" in lines[0] and "in millions" in lines[0]
    assert lines[0].startswith("Borealis 10-K FY2024 reports Net sales:")  # said by its filing
    assert all(ln.startswith("Borealis 10-K FY2024: “") for ln in lines[1:])
    assert "higher volumes" not in text  # source 1's second line: one line per source
    assert validate_citations(text, ev).uncited == []  # no heading: the part opens with its answer


def test_a_heading_or_question_line_gives_way_to_what_its_source_states():
    context = "\n".join([
        "- Results of operations: what drove net sales? [b-1]",
        "- Net sales rose 43% to $2.2 billion on higher volumes. [b-1]",
        "- Segment information [b-2]",
    ])
    ev = _evidence(["b-1", "b-2"], context)
    text, _ = offline_answer("q", [_record(context, ["b-1", "b-2"])], ev, None)
    lines = quoted(text)
    assert lines == ["Borealis 10-K FY2024 says “Net sales rose 43% to $2.2 billion on higher "
                     "volumes” [1]."]
    assert "Segment information" not in text and "what drove" not in text  # headings: never


def test_a_list_item_is_quoted_as_a_sentence_not_with_its_semicolon():
    context = "\n".join([
        "- Competitors include suppliers of GPUs such as AMD and Intel; [b-1]",
        "- Our customers in China include Alibaba, Tencent and Baidu, Inc.; [b-2]",
    ])
    ev = _evidence(["b-1", "b-2"], context)
    text, _ = offline_answer("q", [_record(context, ["b-1", "b-2"])], ev, None)
    assert quoted(text) == [
        "Borealis 10-K FY2024 says “Competitors include suppliers of GPUs such as AMD and "
        "Intel” [1].",
        "Borealis 10-K FY2024: “Our customers in China include Alibaba, Tencent and Baidu, "
        "Inc.” [2]"]


def test_brief_takes_at_most_per_part_sources():
    ids = [f"b-{k}" for k in range(PER_PART + 2)]
    topics = ["pricing lifted snacks", "volumes fell in Europe", "currency cut growth",
              "new stores opened", "online orders doubled", "freight costs eased"]
    context = "\n".join(f"- Net sales: {topics[k]} this fiscal year. [{i}]"
                        for k, i in enumerate(ids))
    ev = _evidence(ids, context)
    text, _ = offline_answer("q", [_record(context, ids)], ev, None)
    assert len(quoted(text)) == PER_PART


def test_two_company_run_quotes_each_company_under_its_own_part(settings):
    svc = question_service(settings)
    record = svc.ask("What were Acme's net revenue and Borealis's net sales in fiscal 2024?")
    text = record.answer.text
    assert text.endswith(BANNER) and record.answer.invalid_markers == []
    cited = {c.evidence_id.split("-")[0] for c in record.answer.citations}
    assert cited == {"acme", "bore"}
    assert "2,184.6" in text and "in millions" in text


def test_distiller_keeps_the_best_sentence_of_every_source_before_second_sentences():
    from core.agent.roles.distill import MAX_SENTENCES, extract
    from core.foundation.types import Chunk, Hit

    strong = " ".join(f"Net sales rose in region {k} on pricing and volumes." for k in range(8))
    texts = [strong, strong.replace("region", "area"), strong.replace("region", "zone"),
             "Borealis reported net sales growth in the snacks segment this year.",
             "Gross margin narrowed as commodity costs rose; net sales grew modestly."]
    hits = [Hit(chunk=Chunk(chunk_id=f"bore-{k}", doc_id="bore", index=k, text=t,
                            section="Item 7", start=0, end=len(t))) for k, t in enumerate(texts)]
    kept, _, _ = extract("net sales growth", hits, set())
    assert {e.evidence_id for e in kept} == {f"bore-{k}" for k in range(5)}
    assert len(kept) <= MAX_SENTENCES
    assert [e.score for e in kept] == sorted((e.score for e in kept), reverse=True)
