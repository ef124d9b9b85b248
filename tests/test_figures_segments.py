"""Segment, product-line and region figures end to end on real iXBRL 10-Ks (NVIDIA FY2023:
Compute & Networking and Graphics segments, Data Center ... market platforms; AMD FY2025:
Data Center, Client and Gaming, Embedded segments): the members listed, a question naming
one read into a member-qualified formula, looked up among that member's facts only,
computed (a share of the total, a segment's growth, its margin) and stated."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from core.figures.compute import answer_figure
from core.figures.question import parse_figure_question
from core.figures.segments import Member, match_member, members
from core.figures.statement import figure_sentence, work_lines
from core.foundation.config import Settings
from core.ingest.pipeline import prepare
from tests.test_figures_compute import FactStore, fact

FIXTURES = Path(__file__).parent / "fixtures" / "figures"
M = 1e6


@pytest.fixture(scope="module")
def corpus():
    docs, facts = [], []
    for name in ("nvda-10k-fy2023.html.gz", "amd-10k-fy2025.htm.gz"):
        done = prepare(gzip.decompress((FIXTURES / name).read_bytes()), name[:-3],
                       Settings(_env_file=None))
        docs.append(done.meta)
        facts += done.facts
    return FactStore(facts, docs), docs


def _ask(question: str, corpus):
    store, docs = corpus
    request = parse_figure_question(question, docs, store)
    assert request is not None, question
    return request, answer_figure(request, store)


def _said(result) -> str:
    return figure_sentence(result, "NVIDIA", lambda _cid: "[1]")


def test_members_are_listed_in_printed_order_without_the_total(corpus):
    store, docs = corpus
    nvda = docs[0].doc_id
    segments = members(store, [nvda], "revenue", "FY2023", kind="segment")
    assert [(m.name, i.value / M) for m, i in segments] == \
        [("Compute & Networking", 15068), ("Graphics", 11906)]
    assert segments[0][0].member == "nvda:ComputeAndNetworkingMember"
    assert segments[0][0].axis == "us-gaap:StatementBusinessSegmentsAxis"
    products = [(m.name, i.value / M) for m, i in members(store, [nvda], "revenue", "FY2023",
                                                          kind="product")]
    assert products == [("Data Center", 15005), ("Gaming", 9067),
                        ("Professional Visualization", 1544), ("Automotive", 903),
                        ("OEM & Other", 455)]
    income = {m.name: i.value / M for m, i in members(store, [nvda], "operating_income",
                                                      "FY2023")}
    assert income["Graphics"] == 4552 and income["All Other"] == -5411
    assert all(i.fact.dims for _, i in segments)  # the facts as recorded
    amd = [m.name for m, _ in members(store, [docs[1].doc_id], "revenue", "FY2025",
                                      kind="segment")]
    assert amd[:1] == ["Data Center"] and "Embedded" in amd


def test_words_name_a_member_however_they_spell_it():
    found = [Member(axis="us-gaap:StatementBusinessSegmentsAxis", kind="segment",
                    member=m, name=n) for m, n in
             [("jnj:MedTechMember", "MedTech"), ("jnj:InnovativeMedicineMember",
                                                 "Innovative Medicine"),
              ("ko:EuropeMiddleEastAfricaMember", "Europe, Middle East & Africa"),
              ("us-gaap:AllOtherSegmentsMember", "Other")]]
    assert match_member("Med Tech", found).name == "MedTech"
    assert match_member("revenue of the Europe Middle East Africa segment",
                        found).name == "Europe, Middle East & Africa"
    assert match_member("What did other companies report?", found) is None  # generic word
    assert match_member("Other", found).name == "Other"
    assert match_member("Cloud", found) is None


@pytest.mark.parametrize("question, formula, value, first", [
    ("What was NVIDIA's Compute & Networking segment revenue in fiscal 2023?",
     "revenue{Compute & Networking}[FY2023]", 15068,
     "NVIDIA's Compute & Networking segment revenue in FY2023 was $15,068 million [1]."),
    ("What was NVIDIA's Data Center revenue in fiscal 2023?",
     "revenue{Data Center}[FY2023]", 15005,
     "NVIDIA's Data Center revenue in FY2023 was $15,005 million [1]."),
    ("How much operating income did NVIDIA's Graphics segment report in fiscal 2023?",
     "operating_income{Graphics}[FY2023]", 4552, None),
    ("What was NVIDIA's revenue from the United States in fiscal 2023?",
     "revenue{United States}[FY2023]", 8292, None),
    ("What was AMD's Embedded segment operating income in fiscal 2025?",
     "operating_income{Embedded}[FY2025]", None, None),
])
def test_a_segment_figure_is_looked_up_among_its_own_facts(corpus, question, formula, value,
                                                           first):
    request, result = _ask(question, corpus)
    assert request.formula == formula and request.member == formula.split("{")[1][:-9]
    assert result.ok and result.inputs[0].fact.dims
    if value is not None:
        assert result.value == value
    assert result.inputs[0].alternatives == []  # never "disagreeing" with the total
    if first:
        assert _said(result) == first


def test_a_share_of_the_total_and_a_segment_growth_are_computed(corpus):
    request, share = _ask("What share of NVIDIA's fiscal 2023 revenue came from its "
                          "Compute and Networking segment?", corpus)
    assert request.formula == "revenue{Compute & Networking}[FY2023] / revenue[FY2023]"
    assert request.unit == "percent" and share.value == round(15068 / 26974 * 100, 1)
    assert _said(share).startswith("NVIDIA's Compute & Networking segment share of revenue "
                                   "in FY2023 was 55.9%")
    rows = work_lines(share, lambda _cid: "[1]")
    assert rows[0].startswith("- Revenue (Compute & Networking), FY2023: $15,068 million")
    assert rows[1].startswith("- Revenue, FY2023: $26,974 million")
    _, percent = _ask("What percentage of NVIDIA's revenue in fiscal 2023 came from Data "
                      "Center?", corpus)
    assert percent.value == round(15005 / 26974 * 100, 1)
    request, growth = _ask("By what percent did NVIDIA's Gaming revenue change from fiscal "
                           "2022 to fiscal 2023?", corpus)
    assert request.aggregate == "pct_change" and request.member == "Gaming"
    assert growth.value == round((9067 - 12462) / 12462 * 100, 1)
    _, margin = _ask("What was the operating margin of NVIDIA's Graphics segment in fiscal "
                     "2023?", corpus)
    assert margin.value == round(4552 / 11906 * 100, 1)


def test_a_part_no_filing_reports_is_no_entity_figure(corpus):
    store, docs = corpus
    assert parse_figure_question("What was AMD's Automotive segment revenue in fiscal 2025?",
                                 docs, store) is None
    assert parse_figure_question("What was NVIDIA's Data Center segment revenue in fiscal "
                                 "2023?", docs, None) is None  # no facts to know members by
    request, total = _ask("What was NVIDIA's total revenue in fiscal 2023?", corpus)
    assert request.member is None and total.value == 26974


def test_a_table_member_column_joins_the_tagged_member_of_its_name():
    doc = "seg"
    tagged = fact(doc, "Revenue", 700, 2024, None, source="xbrl", concept="us-gaap:Revenues",
                  dims="us-gaap:StatementBusinessSegmentsAxis=x:CloudMember")
    tagged.member_names = {"x:CloudMember": "Cloud Services"}
    column = fact(doc, "Revenue", 700, 2024, None, dims="column=Cloud Services")
    other = fact(doc, "Revenue", 300, 2024, None, dims="column=Devices")
    total = fact(doc, "Total revenue", 1000, 2024, "income", source="xbrl",
                 concept="us-gaap:Revenues")
    store = FactStore([column, other, tagged, total])
    found = members(store, [doc], "revenue", "FY2024")
    assert [(m.name, m.member, i.fact.source) for m, i in found] == \
        [("Cloud Services", "x:CloudMember", "xbrl"), ("Devices", "Devices", "table")]


@pytest.mark.parametrize("question, formula, value", [
    ("How much did Data Center contribute to NVIDIA's revenue in fiscal 2023?",
     "revenue{Data Center}[FY2023]", 15005),
    ("How much revenue did NVIDIA generate in Taiwan in fiscal 2023?",
     "revenue{Taiwan}[FY2023]", 6986),
    ("What was AMD's revenue from Singapore in 2025?", "revenue{Singapore}[FY2025]", 4284),
    ("What portion of NVIDIA's fiscal 2023 revenue came from Gaming?",
     "revenue{Gaming}[FY2023] / revenue[FY2023]", round(9067 / 26974 * 100, 1)),
    ("What was the growth rate of NVIDIA's Data Center revenue in fiscal 2023?",
     "(revenue{Data Center}[FY2023] - revenue{Data Center}[FY2022]) / "
     "revenue{Data Center}[FY2022]", round((15005 - 10613) / 10613 * 100, 1)),
])
def test_members_named_in_other_words(corpus, question, formula, value):
    request, result = _ask(question, corpus)
    assert request.formula == formula
    assert result.value == value
