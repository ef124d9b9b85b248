"""Offline answers to figure questions: table rows split, labelled with their column headings
and caption, and the row whose label names what is asked chosen (hand-made table chunks in
the shape the HTML parser writes: cells joined by " | ")."""

from __future__ import annotations

from core.agent.distill import extract
from core.agent.text import (
    blocks,
    near_duplicate,
    row_core,
    sentences,
    summary_sentences,
    table_rows,
)
from core.evaluation.offline import claims, support
from core.foundation.types import Chunk, Hit

INCOME = (
    "Item 8. Financial Statements and Supplementary Data\n\n"
    "ACME SEMICONDUCTOR, INC.\nCONSOLIDATED STATEMENTS OF INCOME\n"
    "(in millions, except per-share amounts)\n\n"
    "Fiscal Year Ended December 28, 2024 | Fiscal Year Ended December 30, 2023\n"
    "Revenue | $ 2,184.6 | $ 1,527.3\n"
    "Operating income | 513.4 | 196.6\n"
    "Interest and other income, net | 18.3 | 9.1\n"
    "Income before income taxes | 531.7 | 205.7\n"
    "Provision for income taxes | (74.4) | (24.7)\n"
    "Net income | $ 457.3 | $ 181.0\n"
    "Net income per share — basic | $ 2.86 | $ 1.16\n"
    "Net income per share — diluted | $ 2.82 | $ 1.14"
)
SEGMENTS = (
    "Fiscal 2024 Summary\n\nRevenue for fiscal 2024 was $2,184.6 million, up 43% from $1,527.3 "
    "million in fiscal 2023. Operating income was $513.4 million.\n\nRevenue by Segment\n\n"
    "(in millions) | Fiscal 2024 | Fiscal 2023 | Change\n"
    "Data Center | $ 1,412.0 | $ 812.5 | 74%\n"
    "Embedded and Edge | 772.6 | 714.8 | 8%\n"
    "Total revenue | $ 2,184.6 | $ 1,527.3 | 43%"
)
TOC = "PART I | Page\nItem 1. | Business | 3\nItem 1A. | Risk Factors | 7"


def _hits(*texts: str) -> list[Hit]:
    return [Hit(chunk=Chunk(chunk_id=f"c{k}", doc_id="d", index=k, text=t, section="Item 8",
                            start=0, end=len(t))) for k, t in enumerate(texts)]


def test_sentences_split_tables_into_rows_and_keep_prose():
    got = sentences(SEGMENTS)
    assert "Data Center | $ 1,412.0 | $ 812.5 | 74%" in got
    assert "Total revenue | $ 2,184.6 | $ 1,527.3 | 43%" in got
    assert "Operating income was $513.4 million." in got
    assert not any(s.count(" | ") > 3 for s in got)  # no two rows glued together
    assert ["Revenue by Segment"] in blocks(SEGMENTS)
    assert summary_sentences(INCOME) == set()  # a row is no risk summary


def test_table_rows_carry_label_column_headings_and_caption():
    rows = {r.label: r for r in table_rows(INCOME)}
    assert "Fiscal Year Ended December 28, 2024 | Fiscal Year Ended December 30, 2023" not in rows
    net = rows["Net income"]
    assert net.text == "Net income | $ 457.3 | $ 181.0"
    assert net.header == "Fiscal Year Ended December 28, 2024 | Fiscal Year Ended December 30, 2023"
    assert net.caption == "CONSOLIDATED STATEMENTS OF INCOME, in millions, except per-share amounts"
    assert net.quote().startswith("Net income | $ 457.3 | $ 181.0 (Fiscal Year Ended December 28")
    seg = {r.label: r for r in table_rows(SEGMENTS)}["Data Center"]
    assert (seg.header, seg.caption) == ("Fiscal 2024 | Fiscal 2023 | Change",
                                         "Revenue by Segment, in millions")
    assert table_rows(TOC) == []  # a table of contents is no data


def test_row_core_and_near_duplicate_ignore_the_shared_headings():
    rows = table_rows(INCOME)
    quotes = [r.quote() for r in rows]
    assert row_core(quotes[0]) == rows[0].text
    assert row_core("Provision for income taxes | (74.4) | (24.7)") == \
        "Provision for income taxes | (74.4) | (24.7)"
    assert row_core("Prose (with a remark).") == "Prose (with a remark)."
    assert not near_duplicate(quotes[0], quotes[1])  # same headings, different rows
    assert near_duplicate(quotes[0], quotes[0] + ".")


def test_net_income_row_beats_neighbours_with_the_same_words():
    kept, coverage, _ = extract("What net income did Acme report for fiscal 2024?",
                                _hits(SEGMENTS, INCOME), {"acme"})
    assert kept[0].sentence.startswith("Net income | $ 457.3 | $ 181.0 (Fiscal Year Ended")
    assert kept[0].evidence_id == "c1"
    quoted = " ".join(e.sentence for e in kept)
    assert "Interest and other income" not in quoted and "per share" not in quoted
    assert coverage != "none"
    # diluted EPS asked: that row, not basic EPS nor net income
    kept, _, _ = extract("What was diluted net income per share in fiscal 2024?",
                         _hits(INCOME), set())
    assert kept[0].sentence.startswith("Net income per share — diluted | $ 2.82")
    assert not any("basic" in e.sentence for e in kept)


def test_segment_row_is_chosen_and_prose_questions_get_no_rows():
    kept, _, _ = extract("How much revenue did the Data Center segment generate in fiscal 2024?",
                         _hits(SEGMENTS), set())
    assert kept[0].sentence.startswith("Data Center | $ 1,412.0 | $ 812.5 | 74% (Fiscal 2024")
    kept, _, _ = extract("How did operating income develop?", _hits(SEGMENTS, INCOME), set())
    assert kept and not any(" | " in e.sentence for e in kept)  # no figure asked: prose only
    assert not any(e.sentence.startswith("Revenue by Segment") for e in kept)


def test_quoted_rows_stay_traceable_and_supported_by_their_chunk():
    hits = _hits(SEGMENTS, INCOME)
    kept, _, _ = extract("What net income did Acme report for fiscal 2024?", hits, {"acme"})
    by_id = {h.chunk.chunk_id: h.chunk.text for h in hits}
    flat = {k: " ".join(v.split()) for k, v in by_id.items()}
    for e in kept:
        for row in table_rows(by_id[e.evidence_id]):
            if e.sentence == row.quote():
                assert row.text in flat[e.evidence_id] and row.header in flat[e.evidence_id]
                assert all(p.strip("()") in flat[e.evidence_id]
                           for p in ("CONSOLIDATED STATEMENTS OF INCOME", "in millions"))
    statements = claims("\n".join(e.sentence for e in kept))
    assert statements
    verdicts = support(statements, [by_id[e.evidence_id] for e in kept])
    assert all(v.supported for v in verdicts), [v.as_dict() for v in verdicts]
