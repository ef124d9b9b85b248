"""The retrieval measurement tool: benchmark loaders, the hit rule, scores and the CLI."""

from __future__ import annotations

import json

import pytest

from core.bench.measure.judge import first_hit_rank, is_hit
from core.bench.measure.run import ConfigScore
from core.bench.measure.sets import answer_figures, answer_sentences, load_set
from core.foundation.types import Chunk


def chunk(i: int, text: str, doc: str = "d1", page: int | None = None,
          page_end: int | None = None) -> Chunk:
    return Chunk(chunk_id=f"{doc}-{i:05d}", doc_id=doc, index=i, text=text, section="Document",
                 page=page, page_end=page_end, start=0, end=len(text))


def test_financebench_layout_gives_physical_one_based_pages(tmp_path):
    (tmp_path / "pdfs").mkdir()
    rows = [{"id": "fb1", "doc": "ACME_2023_10K", "question": "What was capex?",
             "question_type": "metrics-generated",
             "evidence": [{"page_index": 0, "text": "x"}, {"page_index": 41, "text": "y"}]}]
    (tmp_path / "questions.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    bench = load_set(tmp_path)
    q = bench.questions[0]
    assert bench.files == ["ACME_2023_10K.pdf"] and bench.files_dir == tmp_path / "pdfs"
    assert q.pages == {"ACME_2023_10K.pdf": [1, 42]} and q.gold == "pages"


def test_docugami_layout_expands_globs_and_keeps_judgeable_questions(tmp_path):
    (tmp_path / "pdfs").mkdir()
    for name in ("2023 Q1 ACME.pdf", "2023 Q2 ACME.pdf", "2023 Q2 BETA.pdf"):
        (tmp_path / "pdfs" / name).write_bytes(b"%PDF")
    csv = ("\ufeffQuestion,Source Docs,Question Type,Source Chunk Type,Answer\n"
           'How did sales move?,*ACME*,Multi-Doc RAG,Table,"Net sales were $82,959 million '
           'and $117,154 million in 2023. (SOURCE: 2023 Q1 ACME.pdf)"\n'
           "Who audits?,2023 Q2 BETA.pdf,Single-Doc,Text,Yes.\n")
    (tmp_path / "qna_data.csv").write_text(csv, encoding="utf-8")
    bench = load_set(tmp_path)
    assert bench.skipped == 1 and len(bench.questions) == 1
    q = bench.questions[0]
    assert q.files == ["2023 Q1 ACME.pdf", "2023 Q2 ACME.pdf"]
    assert q.figures == ["82959", "117154"]


def test_answer_facts_leave_out_years_round_numbers_and_sources():
    assert answer_figures("In 2022 revenue rose 4.255 billion, 12% and 100 stores; "
                          "(SOURCE: 2023 Q3 NVDA.pdf)") == ["4255"]
    terms = answer_sentences("Cost savings and a different products mix, partially offset by "
                             "currency weakness in June.", "What drove the margin?")
    assert terms and "june" not in terms[0] and "savings" in terms[0]


def test_a_chunk_hits_on_its_page_span_only_in_the_right_file():
    bench_q = load_question(pages={"f.pdf": [12]})
    file_of = {"d1": "f.pdf", "d2": "g.pdf"}
    assert is_hit(chunk(1, "text", page=11, page_end=12), bench_q, file_of)
    assert not is_hit(chunk(2, "text", page=13, page_end=14), bench_q, file_of)
    assert not is_hit(chunk(3, "text", doc="d2", page=12), bench_q, file_of)
    assert not is_hit(chunk(4, "text", page=None), bench_q, file_of)


def test_a_chunk_hits_on_a_figure_among_its_numbers_not_inside_another():
    q = load_question(figures=["82959"])
    file_of = {"d1": "f.pdf"}
    assert is_hit(chunk(1, "Total net sales | $ 82,959 | $ 83,000"), q, file_of)
    assert not is_hit(chunk(2, "Total net sales | $ 182,959"), q, file_of)
    ranked = [chunk(5, "nothing here"), chunk(6, "Net sales $82,959")]
    assert first_hit_rank(ranked, q, file_of) == 2


def test_scores_are_recall_at_k_mrr_and_latency_percentiles():
    sc = ConfigScore(ranks={"a": 1, "b": 4, "c": None, "d": 12},
                     latencies_ms=[10.0, 20.0, 30.0, 40.0])
    assert sc.recall(1) == 0.25 and sc.recall(5) == 0.5 and sc.recall(10) == 0.5
    assert sc.mrr == pytest.approx((1 + 0.25) / 4)
    assert sc.latency(0.5) in (20.0, 30.0) and sc.latency(0.95) == 40.0


def load_question(**gold):
    from core.bench.measure.sets import BenchQuestion

    return BenchQuestion(id="q", question="q", files=["f.pdf"], **gold)


@pytest.mark.slow
def test_measure_command_end_to_end_on_the_sample_filing(tmp_path, capsys, monkeypatch):
    from pathlib import Path

    from core.bench.measure.__main__ import main

    monkeypatch.setenv("DTR_DATA_DIR", str(tmp_path / "store"))
    sample = Path(__file__).resolve().parents[1] / "data" / "sample"
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({
        "id": "nw-rev", "question": "What was Northwind's total revenue?",
        "file": "northwind-10k-fy2024.htm", "evidence": ["Total revenue"]}) + "\n")
    out = tmp_path / "out.json"
    assert main([str(questions), "--filings", str(sample), "--root", str(tmp_path / "m"),
                 "--configs", "keyword,plain", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| q | filtered | keyword |" in printed and "| q | pooled | plain |" in printed
    saved = json.loads(out.read_text())
    assert 1 <= saved["q"]["filtered"]["keyword"]["ranks"]["nw-rev"] <= 5
    assert set(saved["q"]["pooled"]["plain"]) >= {"R@1", "R@5", "MRR@10", "p50_ms", "ranks"}
